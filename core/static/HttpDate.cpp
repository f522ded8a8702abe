#include "static/HttpDate.h"

#include <algorithm>
#include <array>

namespace loopwire::files {

namespace {

constexpr std::int64_t kSecondsPerDay = 86'400;
constexpr std::int64_t kDaysPerFourCenturies = 146'097;
constexpr std::int64_t kEpochYear = 1970;
constexpr std::int64_t kLastYear = 9999;
// 1970-01-01 was a Thursday; weekdays are counted from Sunday, as the names below are.
constexpr std::int64_t kEpochWeekday = 4;
// RFC 9110 §5.6.7: an RFC 850 year that appears to be more than this many years in the future is a past one.
constexpr std::int64_t kRfc850YearsAhead = 50;

constexpr std::array<std::string_view, 7> kShortDays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<std::string_view, 7> kLongDays = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                       "Thursday", "Friday", "Saturday"};
constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
// Days before the first of each month in a common year.
constexpr std::array<std::int64_t, 12> kDaysBeforeMonth = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
constexpr std::array<int, 12> kDaysInMonth = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

constexpr std::int64_t floorDiv(std::int64_t a, std::int64_t b) noexcept {
    const std::int64_t quotient = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient;
}

constexpr std::int64_t floorMod(std::int64_t a, std::int64_t b) noexcept { return a - floorDiv(a, b) * b; }

constexpr bool isLeapYear(std::int64_t year) noexcept { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0); }

// Days from 0001-01-01 to January 1st of year, for a year of at least 1.
constexpr std::int64_t daysFromYearOne(std::int64_t year) noexcept {
    const std::int64_t before = year - 1;
    return 365 * before + before / 4 - before / 100 + before / 400;
}

// Days from 1970-01-01 to January 1st of year, negative before 1970. The leap years are counted with divisions that
// truncate toward zero, which is right only for positive years; so the year is moved four centuries on first. The
// Gregorian calendar repeats every four centuries, which moves both ends of the difference by the same days.
constexpr std::int64_t daysBeforeYear(std::int64_t year) noexcept {
    constexpr std::int64_t kShift = 400;
    return daysFromYearOne(year + kShift) - daysFromYearOne(kEpochYear + kShift);
}

static_assert(daysBeforeYear(kEpochYear) == 0);
static_assert(daysBeforeYear(2000) * kSecondsPerDay == 946'684'800);
static_assert(daysBeforeYear(0) * kSecondsPerDay == HttpDate::kEarliest);
static_assert(daysBeforeYear(kLastYear + 1) * kSecondsPerDay - 1 == HttpDate::kLatest);
static_assert(daysBeforeYear(400) - daysBeforeYear(0) == kDaysPerFourCenturies);

// month counts from 0 (January), day from 1.
constexpr std::int64_t daysBeforeMonth(std::int64_t year, int month) noexcept {
    return kDaysBeforeMonth[static_cast<std::size_t>(month)] + (month > 1 && isLeapYear(year) ? 1 : 0);
}

constexpr int daysInMonth(std::int64_t year, int month) noexcept {
    return kDaysInMonth[static_cast<std::size_t>(month)] + (month == 1 && isLeapYear(year) ? 1 : 0);
}

constexpr int weekdayOf(std::int64_t daysSinceEpoch) noexcept {
    return static_cast<int>(floorMod(daysSinceEpoch + kEpochWeekday, 7));
}

struct CivilDate {
    std::int64_t year = kEpochYear;
    int month = 0;  // 0 is January
    int day = 1;
};

// The date of the day daysSinceEpoch, for the days of years 0 to 9999.
CivilDate civilFromDays(std::int64_t daysSinceEpoch) noexcept {
    // A first guess from the mean length of a Gregorian year, which is never more than a year off, then corrected.
    CivilDate date;
    date.year = kEpochYear + floorDiv(daysSinceEpoch * 400, kDaysPerFourCenturies);
    while (daysBeforeYear(date.year + 1) <= daysSinceEpoch)
        ++date.year;
    while (daysBeforeYear(date.year) > daysSinceEpoch)
        --date.year;
    const std::int64_t dayOfYear = daysSinceEpoch - daysBeforeYear(date.year);
    while (date.month < 11 && daysBeforeMonth(date.year, date.month + 1) <= dayOfYear)
        ++date.month;
    date.day = static_cast<int>(dayOfYear - daysBeforeMonth(date.year, date.month)) + 1;
    return date;
}

// The year an RFC 850 date's two digits stand for: the latest year with those digits that is at most
// kRfc850YearsAhead years after now's, kept within the four-digit years.
std::int64_t rfc850Year(int twoDigits, std::int64_t now) noexcept {
    const std::int64_t today = floorDiv(std::clamp(now, HttpDate::kEarliest, HttpDate::kLatest), kSecondsPerDay);
    const std::int64_t latest = civilFromDays(today).year + kRfc850YearsAhead;
    std::int64_t year = latest - floorMod(latest - twoDigits, 100);
    if (year > kLastYear) year -= 100;
    if (year < 0) year += 100;
    return year;
}

// The fields of a date as read, before they are checked against each other.
struct DateFields {
    int weekday = 0;
    std::int64_t year = 0;
    int month = 0;
    int day = 0;
    int hour = 0;
    int minute = 0;
    int second = 0;
};

// Reads a date's pieces from the front of a field; every method consumes what it matched and only that.
class FieldReader {
public:
    explicit FieldReader(std::string_view field) noexcept : field_(field) {}

    bool atEnd() const noexcept { return at_ == field_.size(); }
    bool next(char c) const noexcept { return at_ < field_.size() && field_[at_] == c; }

    bool literal(std::string_view expected) noexcept {
        if (field_.substr(at_, expected.size()) != expected) return false;
        at_ += expected.size();
        return true;
    }

    // Exactly `count` decimal digits.
    template <typename Number>
    bool digits(std::size_t count, Number& value) noexcept {
        if (field_.size() - at_ < count) return false;
        value = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const char c = field_[at_ + i];
            if (c < '0' || c > '9') return false;
            value = static_cast<Number>(value * 10 + (c - '0'));
        }
        at_ += count;
        return true;
    }

    // One of names, exactly (HTTP-date is case-sensitive); its index in index.
    template <std::size_t Count>
    bool name(const std::array<std::string_view, Count>& names, int& index) noexcept {
        for (std::size_t i = 0; i < Count; ++i) {
            if (literal(names[i])) {
                index = static_cast<int>(i);
                return true;
            }
        }
        return false;
    }

    // time-of-day = hour ":" minute ":" second
    bool timeOfDay(DateFields& fields) noexcept {
        return digits(2, fields.hour) && literal(":") && digits(2, fields.minute) && literal(":") &&
               digits(2, fields.second);
    }

private:
    std::string_view field_;
    std::size_t at_ = 0;
};

// "Sun, 06 Nov 1994 08:49:37 GMT"
bool readImfFixdate(FieldReader& reader, DateFields& fields) noexcept {
    return reader.name(kShortDays, fields.weekday) && reader.literal(", ") && reader.digits(2, fields.day) &&
           reader.literal(" ") && reader.name(kMonths, fields.month) && reader.literal(" ") &&
           reader.digits(4, fields.year) && reader.literal(" ") && reader.timeOfDay(fields) && reader.literal(" GMT");
}

// "Sunday, 06-Nov-94 08:49:37 GMT"
bool readRfc850Date(FieldReader& reader, std::int64_t now, DateFields& fields) noexcept {
    int twoDigits = 0;
    if (!(reader.name(kLongDays, fields.weekday) && reader.literal(", ") && reader.digits(2, fields.day) &&
          reader.literal("-") && reader.name(kMonths, fields.month) && reader.literal("-") &&
          reader.digits(2, twoDigits) && reader.literal(" ") && reader.timeOfDay(fields) && reader.literal(" GMT"))) {
        return false;
    }
    fields.year = rfc850Year(twoDigits, now);
    return true;
}

// "Sun Nov  6 08:49:37 1994", the day of the month as two digits or as a space and one digit.
bool readAsctimeDate(FieldReader& reader, DateFields& fields) noexcept {
    if (!(reader.name(kShortDays, fields.weekday) && reader.literal(" ") && reader.name(kMonths, fields.month) &&
          reader.literal(" "))) {
        return false;
    }
    const bool day =
        reader.next(' ') ? (reader.literal(" ") && reader.digits(1, fields.day)) : reader.digits(2, fields.day);
    return day && reader.literal(" ") && reader.timeOfDay(fields) && reader.literal(" ") &&
           reader.digits(4, fields.year);
}

// The seconds of fields read whole, or nullopt when they name no instant: a day the month does not have, a time
// out of range, or a weekday that is not the date's.
std::optional<std::int64_t> toSeconds(const DateFields& fields) noexcept {
    if (fields.day < 1 || fields.day > daysInMonth(fields.year, fields.month)) return std::nullopt;
    // Second 60 is the leap second the grammar allows; POSIX time has no such second and counts it as the next.
    if (fields.hour > 23 || fields.minute > 59 || fields.second > 60) return std::nullopt;
    const std::int64_t days = daysBeforeYear(fields.year) + daysBeforeMonth(fields.year, fields.month) + fields.day - 1;
    if (weekdayOf(days) != fields.weekday) return std::nullopt;
    return days * kSecondsPerDay + fields.hour * 3600 + fields.minute * 60 + fields.second;
}

char* put(char* out, std::string_view text) noexcept { return std::copy(text.begin(), text.end(), out); }

// value as `count` decimal digits, the leading ones 0.
char* putDigits(char* out, std::int64_t value, int count) noexcept {
    for (int i = count - 1; i >= 0; --i) {
        out[i] = static_cast<char>('0' + value % 10);
        value /= 10;
    }
    return out + count;
}

}  // namespace

std::optional<std::int64_t> HttpDate::parse(std::string_view field, std::int64_t now) noexcept {
    // The byte after a day name tells the forms apart: a comma after three letters is IMF-fixdate, a space after
    // three is asctime, anything else can only be RFC 850's long day name.
    FieldReader reader(field);
    DateFields fields;
    bool read = false;
    if (field.size() > 3 && field[3] == ',') {
        read = readImfFixdate(reader, fields);
    } else if (field.size() > 3 && field[3] == ' ') {
        read = readAsctimeDate(reader, fields);
    } else {
        read = readRfc850Date(reader, now, fields);
    }
    if (!read || !reader.atEnd()) return std::nullopt;
    return toSeconds(fields);
}

void HttpDate::format(std::int64_t seconds, std::span<char, kLength> out) noexcept {
    seconds = std::clamp(seconds, kEarliest, kLatest);
    const std::int64_t days = floorDiv(seconds, kSecondsPerDay);
    const std::int64_t secondOfDay = seconds - days * kSecondsPerDay;
    const CivilDate date = civilFromDays(days);
    // Written by hand: strftime follows the process locale, and gmtime_r is not needed for UTC.
    char* at = out.data();
    at = put(at, kShortDays[static_cast<std::size_t>(weekdayOf(days))]);
    at = put(at, ", ");
    at = putDigits(at, date.day, 2);
    at = put(at, " ");
    at = put(at, kMonths[static_cast<std::size_t>(date.month)]);
    at = put(at, " ");
    at = putDigits(at, date.year, 4);
    at = put(at, " ");
    at = putDigits(at, secondOfDay / 3600, 2);
    at = put(at, ":");
    at = putDigits(at, secondOfDay / 60 % 60, 2);
    at = put(at, ":");
    at = putDigits(at, secondOfDay % 60, 2);
    put(at, " GMT");
}

}  // namespace loopwire::files
