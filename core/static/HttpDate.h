// HttpDate: an HTTP-date (RFC 9110 §5.6.7) read into seconds since the Unix epoch, and seconds written as an
// IMF-fixdate, for Last-Modified and the date-based conditional fields.
//
// Pure: no clock of its own, no locale, no gmtime_r, no allocation. UTC throughout; the proleptic Gregorian calendar
// for every year from 0000 to 9999, the years a four-digit field can write.
//
// parse() takes a field value as the HTTP parser gives it (no surrounding whitespace) in any of the three forms a
// recipient must accept:
//   - IMF-fixdate, the one senders use:  "Sun, 06 Nov 1994 08:49:37 GMT"
//   - RFC 850, obsolete:                 "Sunday, 06-Nov-94 08:49:37 GMT"
//   - asctime, obsolete:                 "Sun Nov  6 08:49:37 1994" (the day also as "06")
// Anything else is nullopt, which the conditional fields read as "ignore this field": another layout or spacing,
// names in another case (HTTP-date is case-sensitive), a day of the month the month does not have, an hour past
// 23, a minute past 59, a second past 60, a day name that is not the date's day of the week (RFC 5322 §3.3, which
// IMF-fixdate is a subset of), a zone other than GMT, and any byte before or after the date.
//
// Second 60 (a leap second, which the grammar allows) reads as the first second of the next minute, as POSIX time
// counts it. RFC 850's two-digit year is read against `now` as RFC 9110 asks: the year with those last two digits
// that is at most 50 years after now's year, i.e. the latest such year that does not appear to be more than 50
// years in the future (now in 2025: "75" is 2075, "76" is 1976).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace loopwire::files {

struct HttpDate {
    // The bytes of an IMF-fixdate.
    static constexpr std::size_t kLength = 29;
    // The first and the last second a four-digit year can write: 0000-01-01 00:00:00 and 9999-12-31 23:59:59 UTC.
    static constexpr std::int64_t kEarliest = -62'167'219'200;
    static constexpr std::int64_t kLatest = 253'402'300'799;

    // Seconds since the epoch of the HTTP-date in field, or nullopt when field is not one. now (seconds since the
    // epoch, the response's Date) only places an RFC 850 date's two-digit year; the other forms do not read it.
    static std::optional<std::int64_t> parse(std::string_view field, std::int64_t now) noexcept;

    // Writes seconds as an IMF-fixdate into out, exactly kLength bytes, no terminating NUL. Seconds outside
    // [kEarliest, kLatest] are written as the nearer bound. parse(text, any) of what it writes gives the seconds
    // back.
    static void format(std::int64_t seconds, std::span<char, kLength> out) noexcept;
};

}  // namespace loopwire::files
