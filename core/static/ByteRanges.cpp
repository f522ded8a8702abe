#include "static/ByteRanges.h"

#include <algorithm>
#include <limits>

namespace loopwire::files {

namespace {

constexpr std::uint64_t kLargest = std::numeric_limits<std::uint64_t>::max();

bool isOws(char c) noexcept { return c == ' ' || c == '\t'; }
bool isDigit(char c) noexcept { return c >= '0' && c <= '9'; }

void skipOws(std::string_view field, std::size_t& at) noexcept {
    while (at < field.size() && isOws(field[at]))
        ++at;
}

// One or more digits at `at`, saturating at the largest 64-bit value. False when there is no digit.
bool readNumber(std::string_view field, std::size_t& at, std::uint64_t& value) noexcept {
    if (at >= field.size() || !isDigit(field[at])) return false;
    value = 0;
    for (; at < field.size() && isDigit(field[at]); ++at) {
        const auto digit = static_cast<std::uint64_t>(field[at] - '0');
        value = value > (kLargest - digit) / 10 ? kLargest : value * 10 + digit;
    }
    return true;
}

// "bytes", in any case (range units are case-insensitive), then "=".
bool readBytesUnit(std::string_view field, std::size_t& at) noexcept {
    constexpr std::string_view kUnit = "bytes";
    skipOws(field, at);
    if (field.size() - at < kUnit.size() + 1) return false;
    for (std::size_t i = 0; i < kUnit.size(); ++i) {
        if ((field[at + i] | 0x20) != kUnit[i]) return false;
    }
    at += kUnit.size();
    if (field[at] != '=') return false;
    ++at;
    return true;
}

}  // namespace

RangeVerdict ByteRanges::read(std::string_view field, std::uint64_t representationLength) noexcept {
    count_ = 0;
    if (representationLength == 0) return RangeVerdict::Ignored;
    std::size_t specs = 0;
    if (!readSpecs(field, representationLength, specs) || specs == 0) {
        count_ = 0;
        return RangeVerdict::Ignored;
    }
    if (count_ == 0) return RangeVerdict::Unsatisfiable;
    coalesce();
    return RangeVerdict::Satisfiable;
}

bool ByteRanges::readSpecs(std::string_view field, std::uint64_t representationLength, std::size_t& specs) noexcept {
    std::size_t at = 0;
    if (!readBytesUnit(field, at)) return false;
    // 1#range-spec: specs separated by commas with optional whitespace; empty elements are allowed and skipped.
    while (true) {
        skipOws(field, at);
        if (at == field.size()) return true;
        if (field[at] == ',') {
            ++at;
            continue;
        }
        std::uint64_t first = 0;
        std::uint64_t last = kLargest;
        bool suffix = false;
        if (field[at] == '-') {
            ++at;
            suffix = true;
            if (!readNumber(field, at, last)) return false;  // the suffix length
        } else {
            if (!readNumber(field, at, first) || at == field.size() || field[at] != '-') return false;
            ++at;
            if (at < field.size() && isDigit(field[at])) {
                readNumber(field, at, last);
                if (last < first) return false;
            }
        }
        skipOws(field, at);
        if (at < field.size() && field[at] != ',') return false;
        if (++specs > kMaxRangeSpecs) return false;
        // The spec as bytes of this representation, if it selects any.
        ByteRange range;
        if (suffix) {
            if (last == 0) continue;
            range.first = representationLength - std::min(last, representationLength);
            range.last = representationLength - 1;
        } else {
            if (first >= representationLength) continue;
            range.first = first;
            range.last = std::min(last, representationLength - 1);
        }
        ranges_[count_++] = range;
    }
}

void ByteRanges::coalesce() noexcept {
    if (count_ < 2) return;
    std::array<ByteRange, kMaxRangeSpecs> sorted = ranges_;
    const auto byFirst = [](const ByteRange& a, const ByteRange& b) { return a.first < b.first; };
    std::sort(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(count_), byFirst);
    // Whether two neighbours in byte order overlap or lie too close: then they are merged, and every range is sent
    // in byte order. Otherwise the client's order stands.
    const auto mergesWith = [](const ByteRange& earlier, const ByteRange& later) {
        return earlier.last >= later.first || later.first - earlier.last - 1 < kCoalesceGapBytes;
    };
    bool needed = false;
    for (std::size_t i = 1; i < count_ && !needed; ++i)
        needed = mergesWith(sorted[i - 1], sorted[i]);
    if (!needed) return;
    std::size_t merged = 0;
    ranges_[0] = sorted[0];
    for (std::size_t i = 1; i < count_; ++i) {
        ByteRange& current = ranges_[merged];
        if (mergesWith(current, sorted[i])) {
            current.last = std::max(current.last, sorted[i].last);
        } else {
            ranges_[++merged] = sorted[i];
        }
    }
    count_ = merged + 1;
}

std::uint64_t ByteRanges::totalBytes() const noexcept {
    std::uint64_t total = 0;
    for (const ByteRange& range : ranges())
        total += range.length();
    return total;
}

}  // namespace loopwire::files
