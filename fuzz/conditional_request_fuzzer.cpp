// Fuzz target for the conditional requests of core/static: HttpDate, EntityTag and Preconditions.
//
// The input is a flags byte (bit 0: the method is GET or HEAD; bit 1: Last-Modified is a strong validator), then
// lines: If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since, If-Range, the current ETag (used only when
// it is an entity-tag), Last-Modified and the Date (each used only when it is an HTTP-date). Missing lines are
// absent fields.
//
// Checks the contracts the headers state: a date reads as a second of the four-digit years, an IMF-fixdate is
// written back byte for byte and what format() writes reads back; only RFC 850 dates depend on now; an entity-tag
// reads back as its text; a list's malformedness does not depend on the comparison or the current tag, a strong
// match is a weak one, and nothing but "*" matches without a current tag; the verdicts follow the precedence steps
// they can be checked against; If-Range applies only on an exact strong tag or an exact strong date; and every
// answer is the same when asked again.
#include "static/EntityTag.h"
#include "static/HttpDate.h"
#include "static/Preconditions.h"

#include "FuzzSupport.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

using loopwire::files::ConditionalFields;
using loopwire::files::EntityTag;
using loopwire::files::HttpDate;
using loopwire::files::Preconditions;
using loopwire::files::PreconditionVerdict;
using loopwire::files::TagComparison;
using loopwire::files::TagListMatch;
using loopwire::files::Validators;

namespace {

constexpr std::int64_t kDefaultNow = 1'748'736'000;         // 2025-06-01 00:00:00 UTC
constexpr std::int64_t kDefaultLastModified = 784'111'777;  // 1994-11-06 08:49:37 UTC
constexpr std::size_t kLines = 8;

void checkDate(std::string_view field, std::int64_t now) {
    const std::optional<std::int64_t> seconds = HttpDate::parse(field, now);
    FUZZ_CHECK(HttpDate::parse(field, now) == seconds);
    const bool rfc850 = !(field.size() > 3 && (field[3] == ',' || field[3] == ' '));
    if (!rfc850) FUZZ_CHECK(HttpDate::parse(field, 0) == seconds);
    if (!seconds) return;
    // A leap second in the last minute of 9999 reads as the second after kLatest.
    FUZZ_CHECK(*seconds >= HttpDate::kEarliest && *seconds <= HttpDate::kLatest + 1);
    std::array<char, HttpDate::kLength> text{};
    HttpDate::format(*seconds, text);
    const std::string_view written(text.data(), text.size());
    const std::int64_t writable = *seconds <= HttpDate::kLatest ? *seconds : HttpDate::kLatest;
    FUZZ_CHECK(HttpDate::parse(written, now) == writable);
    const bool imfFixdate = field.size() == HttpDate::kLength && field[3] == ',';
    const bool leapSecond = field.size() == HttpDate::kLength && field.substr(23, 2) == "60";
    if (imfFixdate && !leapSecond) FUZZ_CHECK(written == field);
}

void checkTag(std::string_view text) {
    const std::optional<EntityTag> tag = EntityTag::parse(text);
    if (!tag) return;
    const std::size_t prefix = tag->weak ? 2 : 0;
    FUZZ_CHECK(text.size() == prefix + tag->opaque.size() + 2);
    FUZZ_CHECK(text.substr(prefix + 1, tag->opaque.size()) == tag->opaque);
    FUZZ_CHECK(tag->matches(*tag, TagComparison::Weak));
    FUZZ_CHECK(tag->matches(*tag, TagComparison::Strong) == !tag->weak);
}

void checkList(std::string_view field, const std::optional<EntityTag>& current) {
    const TagListMatch strong = EntityTag::matchList(field, current, TagComparison::Strong);
    const TagListMatch weak = EntityTag::matchList(field, current, TagComparison::Weak);
    const TagListMatch withoutTag = EntityTag::matchList(field, std::nullopt, TagComparison::Weak);
    FUZZ_CHECK(EntityTag::matchList(field, current, TagComparison::Strong) == strong);
    FUZZ_CHECK((strong == TagListMatch::Malformed) == (withoutTag == TagListMatch::Malformed));
    FUZZ_CHECK((weak == TagListMatch::Malformed) == (withoutTag == TagListMatch::Malformed));
    if (strong == TagListMatch::Matched) FUZZ_CHECK(weak == TagListMatch::Matched);
    if (withoutTag == TagListMatch::Matched) FUZZ_CHECK(strong == TagListMatch::Matched);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::uint8_t flags = data[0];
    std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    std::array<std::string_view, kLines> lines{};
    for (std::size_t i = 0; i < kLines && !rest.empty(); ++i) {
        const std::size_t end = rest.find('\n');
        lines[i] = rest.substr(0, end);
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    }

    const std::int64_t now = HttpDate::parse(lines[7], kDefaultNow).value_or(kDefaultNow);
    for (std::string_view line : lines) {
        checkDate(line, now);
        checkTag(line);
    }

    const std::string_view currentText = EntityTag::parse(lines[5]) ? lines[5] : std::string_view();
    const std::optional<EntityTag> current = EntityTag::parse(currentText);
    for (std::size_t i = 0; i < 2; ++i)
        checkList(lines[i], current);

    const ConditionalFields fields{.ifMatch = lines[0],
                                   .ifNoneMatch = lines[1],
                                   .ifModifiedSince = lines[2],
                                   .ifUnmodifiedSince = lines[3],
                                   .getOrHead = (flags & 1) != 0};
    const Validators validators{currentText, HttpDate::parse(lines[6], now).value_or(kDefaultLastModified)};
    const PreconditionVerdict verdict = Preconditions::evaluate(fields, validators, now);
    FUZZ_CHECK(Preconditions::evaluate(fields, validators, now) == verdict);
    if (verdict == PreconditionVerdict::NotModified) FUZZ_CHECK(fields.getOrHead);
    if (!fields.ifMatch.empty() &&
        EntityTag::matchList(fields.ifMatch, current, TagComparison::Strong) != TagListMatch::Matched) {
        FUZZ_CHECK(verdict == PreconditionVerdict::PreconditionFailed);
    }
    if (fields.ifMatch.empty() && fields.ifNoneMatch.empty() && fields.ifModifiedSince.empty() &&
        fields.ifUnmodifiedSince.empty()) {
        FUZZ_CHECK(verdict == PreconditionVerdict::Proceed);
    }

    const std::string_view ifRange = lines[4];
    const bool lastModifiedIsStrong = (flags & 2) != 0;
    const bool applies = Preconditions::rangeApplies(ifRange, validators, lastModifiedIsStrong, now);
    FUZZ_CHECK(Preconditions::rangeApplies(ifRange, validators, lastModifiedIsStrong, now) == applies);
    if (ifRange.empty()) FUZZ_CHECK(applies);
    if (applies && !ifRange.empty()) {
        const std::optional<EntityTag> given = EntityTag::parse(ifRange);
        if (given) {
            // Strong on both sides with the same opaque-tag: the same text.
            FUZZ_CHECK(!given->weak && ifRange == currentText);
        } else {
            FUZZ_CHECK(lastModifiedIsStrong && HttpDate::parse(ifRange, now) == validators.lastModified);
        }
    }
    return 0;
}
