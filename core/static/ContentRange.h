// ContentRange: a Content-Range field value (RFC 9110 §14.4), "bytes <first>-<last>/<length>" for a range sent, or
// "bytes */<length>" for a 416; made on the stack, for a 206's head and a multipart part's header alike.
#pragma once

#include "base/DecimalText.h"
#include "static/ByteRanges.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace loopwire::files {

class ContentRange {
public:
    ContentRange(const ByteRange& range, std::uint64_t length) noexcept {
        append("bytes ");
        appendDecimal(range.first);
        append("-");
        appendDecimal(range.last);
        append("/");
        appendDecimal(length);
    }
    explicit ContentRange(std::uint64_t length) noexcept {
        append("bytes */");
        appendDecimal(length);
    }
    std::string_view text() const noexcept { return {text_, size_}; }

private:
    void append(std::string_view part) noexcept {
        std::copy(part.begin(), part.end(), text_ + size_);
        size_ += part.size();
    }
    void appendDecimal(std::uint64_t value) noexcept {
        char digits[20];
        append(formatDecimal(value, digits));
    }

    char text_[6 + 3 * 20 + 2];
    std::size_t size_ = 0;
};

}  // namespace loopwire::files
