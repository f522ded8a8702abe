#include "static/HttpDate.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>

namespace loopwire::files {
namespace {

// The Date the tests read dates at, unless a test says otherwise: 2025-06-01 00:00:00 UTC.
constexpr std::int64_t kNow = 1'748'736'000;
// The example of RFC 9110 §5.6.7, 1994-11-06 08:49:37 UTC, in each form.
constexpr std::int64_t kExample = 784'111'777;
constexpr std::string_view kExampleImf = "Sun, 06 Nov 1994 08:49:37 GMT";
constexpr std::string_view kExampleRfc850 = "Sunday, 06-Nov-94 08:49:37 GMT";
constexpr std::string_view kExampleAsctime = "Sun Nov  6 08:49:37 1994";

std::string formatted(std::int64_t seconds) {
    std::array<char, HttpDate::kLength> out{};
    HttpDate::format(seconds, out);
    return std::string(out.data(), out.size());
}

std::optional<std::int64_t> parse(std::string_view field) { return HttpDate::parse(field, kNow); }

// The IMF-fixdate of seconds as the C library's gmtime_r sees it, written by the test's own means.
std::string formattedByGmtime(std::int64_t seconds) {
    static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    const auto time = static_cast<std::time_t>(seconds);
    std::tm parts{};
    gmtime_r(&time, &parts);
    char text[64];
    std::snprintf(text, sizeof text, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[parts.tm_wday], parts.tm_mday,
                  kMonths[parts.tm_mon], parts.tm_year + 1900, parts.tm_hour, parts.tm_min, parts.tm_sec);
    return text;
}

TEST(HttpDate, ReadsTheRfc9110ExampleInEachForm) {
    EXPECT_EQ(parse(kExampleImf), kExample);
    EXPECT_EQ(parse(kExampleRfc850), kExample);
    EXPECT_EQ(parse(kExampleAsctime), kExample);
    EXPECT_EQ(parse("Sun Nov 06 08:49:37 1994"), kExample) << "asctime's day as two digits";
    EXPECT_EQ(parse("Wed Nov 16 08:49:37 1994"), kExample + 10 * 86'400);
}

TEST(HttpDate, FormatsTheRfc9110Example) { EXPECT_EQ(formatted(kExample), kExampleImf); }

TEST(HttpDate, FormatsTheEpochAndTheSecondsAroundIt) {
    EXPECT_EQ(formatted(0), "Thu, 01 Jan 1970 00:00:00 GMT");
    EXPECT_EQ(formatted(-1), "Wed, 31 Dec 1969 23:59:59 GMT");
    EXPECT_EQ(formatted(86'399), "Thu, 01 Jan 1970 23:59:59 GMT");
    EXPECT_EQ(parse("Wed, 31 Dec 1969 23:59:59 GMT"), -1);
    EXPECT_EQ(parse("Thu, 01 Jan 1970 00:00:00 GMT"), 0);
}

TEST(HttpDate, WritesExactlyItsLengthAndNoMore) {
    std::array<char, HttpDate::kLength + 1> out;
    out.fill('#');
    HttpDate::format(kExample, std::span<char, HttpDate::kLength>(out.data(), HttpDate::kLength));
    EXPECT_EQ(std::string_view(out.data(), HttpDate::kLength), kExampleImf);
    EXPECT_EQ(out[HttpDate::kLength], '#');
}

TEST(HttpDate, KnowsWhichYearsAreLeapYears) {
    EXPECT_EQ(parse("Tue, 29 Feb 2000 00:00:00 GMT"), 951'782'400) << "divisible by 400";
    EXPECT_EQ(parse("Thu, 29 Feb 2024 00:00:00 GMT"), 1'709'164'800) << "divisible by 4";
    EXPECT_EQ(parse("Fri, 01 Mar 2024 00:00:00 GMT"), 1'709'164'800 + 86'400);
    EXPECT_EQ(parse("Thu, 01 Mar 1900 00:00:00 GMT"), -2'203'891'200);
    EXPECT_EQ(parse("Thu, 29 Feb 1900 00:00:00 GMT"), std::nullopt) << "a century not divisible by 400";
    EXPECT_EQ(parse("Mon, 29 Feb 2100 00:00:00 GMT"), std::nullopt);
    EXPECT_EQ(parse("Wed, 29 Feb 2023 00:00:00 GMT"), std::nullopt);
    EXPECT_EQ(formatted(951'782'400), "Tue, 29 Feb 2000 00:00:00 GMT");
    EXPECT_EQ(formatted(1'709'164'800), "Thu, 29 Feb 2024 00:00:00 GMT");
    EXPECT_EQ(formatted(4'107'542'400 - 1), "Sun, 28 Feb 2100 23:59:59 GMT");
    EXPECT_EQ(formatted(4'107'542'400), "Mon, 01 Mar 2100 00:00:00 GMT");
}

TEST(HttpDate, ReachesPast2038AndPastThirtyTwoUnsignedBits) {
    EXPECT_EQ(formatted(2'147'483'647), "Tue, 19 Jan 2038 03:14:07 GMT");
    EXPECT_EQ(formatted(2'147'483'648), "Tue, 19 Jan 2038 03:14:08 GMT");
    EXPECT_EQ(parse("Tue, 19 Jan 2038 03:14:08 GMT"), 2'147'483'648);
    EXPECT_EQ(formatted(4'294'967'296), "Sun, 07 Feb 2106 06:28:16 GMT");
    EXPECT_EQ(parse("Sun, 07 Feb 2106 06:28:16 GMT"), 4'294'967'296);
}

TEST(HttpDate, ReachesEveryFourDigitYearAndClampsPastThem) {
    EXPECT_EQ(formatted(HttpDate::kLatest), "Fri, 31 Dec 9999 23:59:59 GMT");
    EXPECT_EQ(parse("Fri, 31 Dec 9999 23:59:59 GMT"), HttpDate::kLatest);
    EXPECT_EQ(parse("Fri Dec 31 23:59:59 9999"), HttpDate::kLatest);
    EXPECT_EQ(formatted(HttpDate::kEarliest), "Sat, 01 Jan 0000 00:00:00 GMT");
    EXPECT_EQ(parse("Sat, 01 Jan 0000 00:00:00 GMT"), HttpDate::kEarliest);
    EXPECT_EQ(formatted(HttpDate::kLatest + 1), "Fri, 31 Dec 9999 23:59:59 GMT");
    EXPECT_EQ(formatted(INT64_MAX), "Fri, 31 Dec 9999 23:59:59 GMT");
    EXPECT_EQ(formatted(HttpDate::kEarliest - 1), "Sat, 01 Jan 0000 00:00:00 GMT");
    EXPECT_EQ(formatted(INT64_MIN), "Sat, 01 Jan 0000 00:00:00 GMT");
}

TEST(HttpDate, ReadsAnRfc850YearAsAtMostFiftyYearsAhead) {
    // Read in 2025: "75" is 2075, fifty years ahead; "76" would be 51 ahead, so it is 1976.
    EXPECT_EQ(parse("Tuesday, 01-Jan-75 00:00:00 GMT"), 3'313'526'400);
    EXPECT_EQ(parse("Thursday, 01-Jan-76 00:00:00 GMT"), 189'302'400);
    EXPECT_EQ(parse("Friday, 01-Jan-21 00:00:00 GMT"), 1'609'459'200);
    // Read in 2070: "20" is 2120, "21" is 2021.
    constexpr std::int64_t k2070 = 3'168'806'400;
    EXPECT_EQ(HttpDate::parse("Monday, 01-Jan-20 00:00:00 GMT", k2070), 4'733'510'400);
    EXPECT_EQ(HttpDate::parse("Friday, 01-Jan-21 00:00:00 GMT", k2070), 1'609'459'200);
    // The weekday is checked against the year the rule gives: 1976-01-01 was a Thursday, 2076-01-01 a Wednesday.
    EXPECT_EQ(HttpDate::parse("Thursday, 01-Jan-76 00:00:00 GMT", k2070), std::nullopt);
    EXPECT_EQ(HttpDate::parse("Wednesday, 01-Jan-76 00:00:00 GMT", k2070), 3'345'062'400);
}

TEST(HttpDate, KeepsAnRfc850YearWithinTheFourDigitYears) {
    // Read in 9999: "99" is 9999; "00" would be 10000, so it is the year with those digits before, 9900.
    EXPECT_EQ(HttpDate::parse("Friday, 31-Dec-99 23:59:59 GMT", HttpDate::kLatest), HttpDate::kLatest);
    EXPECT_EQ(HttpDate::parse("Monday, 01-Jan-00 00:00:00 GMT", HttpDate::kLatest), 250'246'627'200);
    EXPECT_EQ(HttpDate::parse("Monday, 01-Jan-00 00:00:00 GMT", INT64_MAX), 250'246'627'200) << "now clamped";
    // Read in year 0: "00" is year 0, "50" is 50; "99" would be -1, so it is 99.
    EXPECT_EQ(HttpDate::parse("Saturday, 01-Jan-00 00:00:00 GMT", HttpDate::kEarliest), HttpDate::kEarliest);
    EXPECT_EQ(HttpDate::parse("Saturday, 01-Jan-50 00:00:00 GMT", HttpDate::kEarliest), -60'589'296'000);
    EXPECT_EQ(HttpDate::parse("Thursday, 31-Dec-99 23:59:59 GMT", HttpDate::kEarliest), -59'011'459'201);
    EXPECT_EQ(HttpDate::parse("Thursday, 31-Dec-99 23:59:59 GMT", INT64_MIN), -59'011'459'201) << "now clamped";
}

TEST(HttpDate, OnlyTheRfc850FormReadsNow) {
    for (const std::int64_t now : {std::int64_t{0}, kNow, HttpDate::kEarliest, HttpDate::kLatest}) {
        EXPECT_EQ(HttpDate::parse(kExampleImf, now), kExample);
        EXPECT_EQ(HttpDate::parse(kExampleAsctime, now), kExample);
    }
    EXPECT_EQ(HttpDate::parse(kExampleRfc850, 4'000'000'000), std::nullopt) << "2094-11-06 is no Sunday";
}

TEST(HttpDate, ReadsALeapSecondAsTheNextSecond) {
    EXPECT_EQ(parse("Sat, 31 Dec 2016 23:59:60 GMT"), 1'483'228'800);
    EXPECT_EQ(parse("Sun, 01 Jan 2017 00:00:00 GMT"), 1'483'228'800);
    EXPECT_EQ(parse("Sun, 06 Nov 1994 08:49:60 GMT"), kExample + 23);
}

TEST(HttpDate, RejectsFieldsOutOfRange) {
    for (std::string_view field : {
             "Sun, 00 Nov 1994 08:49:37 GMT",
             "Sun, 31 Nov 1994 08:49:37 GMT",  // November has 30 days
             "Sun, 32 Dec 1994 08:49:37 GMT",
             "Sun, 06 Nov 1994 24:00:00 GMT",
             "Sun, 06 Nov 1994 08:60:37 GMT",
             "Sun, 06 Nov 1994 08:49:61 GMT",
             "Sun, 06 Nov 1994 99:99:99 GMT",
             "Sunday, 31-Nov-94 08:49:37 GMT",
             "Sunday, 06-Nov-94 25:49:37 GMT",
             "Sun Nov  0 08:49:37 1994",
             "Sun Nov 31 08:49:37 1994",
             "Sun Nov  6 08:49:62 1994",
         }) {
        EXPECT_EQ(parse(field), std::nullopt) << field;
    }
}

TEST(HttpDate, RejectsNamesThatAreNotDaysOrMonthsInTheirCase) {
    for (std::string_view field : {
             "sun, 06 Nov 1994 08:49:37 GMT",
             "SUN, 06 Nov 1994 08:49:37 GMT",
             "Sun, 06 nov 1994 08:49:37 GMT",
             "Sun, 06 NOV 1994 08:49:37 GMT",
             "Sun, 06 Nob 1994 08:49:37 GMT",
             "Snu, 06 Nov 1994 08:49:37 GMT",
             "Sun, 06 Nov 1994 08:49:37 gmt",
             "Sun, 06 Nov 1994 08:49:37 UTC",
             "Sun, 06 Nov 1994 08:49:37 +0000",
             "sunday, 06-Nov-94 08:49:37 GMT",
             "Sonday, 06-Nov-94 08:49:37 GMT",
             "Sunday, 06-nov-94 08:49:37 GMT",
             "Sun Nov  6 08:49:37 1994 GMT",
             "sun Nov  6 08:49:37 1994",
             "Sun nov  6 08:49:37 1994",
             "Sunday, 06 Nov 1994 08:49:37 GMT",
             "Sun, 06-Nov-94 08:49:37 GMT",
             "Sunday Nov  6 08:49:37 1994",
         }) {
        EXPECT_EQ(parse(field), std::nullopt) << field;
    }
}

TEST(HttpDate, RejectsADayNameThatIsNotTheDates) {
    EXPECT_EQ(parse("Mon, 06 Nov 1994 08:49:37 GMT"), std::nullopt);
    EXPECT_EQ(parse("Monday, 06-Nov-94 08:49:37 GMT"), std::nullopt);
    EXPECT_EQ(parse("Sat Nov  6 08:49:37 1994"), std::nullopt);
}

TEST(HttpDate, RejectsOtherLayouts) {
    for (std::string_view field : {
             "",
             "Sun",
             "Sun,",
             "784111777",
             "Sun, 6 Nov 1994 08:49:37 GMT",
             "Sun,  06 Nov 1994 08:49:37 GMT",
             "Sun,06 Nov 1994 08:49:37 GMT",
             "Sun, 06 Nov 94 08:49:37 GMT",
             "Sun, 06 Nov 01994 08:49:37 GMT",
             "Sun, 06-Nov-1994 08:49:37 GMT",
             "Sun, 06 Nov 1994 8:49:37 GMT",
             "Sun, 06 Nov 1994 08:49 GMT",
             "Sun, 06 Nov 1994 08.49.37 GMT",
             "Sun, 06 Nov 1994 08:49:37GMT",
             "Sun,\t06 Nov 1994 08:49:37 GMT",
             "Sun, 06 Nov 1994T08:49:37 GMT",
             "Sun, +6 Nov 1994 08:49:37 GMT",
             "Sun, 06 Nov -994 08:49:37 GMT",
             "Sunday, 06-Nov-1994 08:49:37 GMT",
             "Sunday, 6-Nov-94 08:49:37 GMT",
             "Sunday 06-Nov-94 08:49:37 GMT",
             "Sunday, 06 Nov 94 08:49:37 GMT",
             "Sun Nov 6 08:49:37 1994",
             "Sun Nov   6 08:49:37 1994",
             "Sun Nov  6 08:49:37 94",
             "Sun Nov  6 08:49:37  1994",
             "Sun  Nov  6 08:49:37 1994",
             "1994-11-06T08:49:37Z",
         }) {
        EXPECT_EQ(parse(field), std::nullopt) << field;
    }
}

TEST(HttpDate, RejectsAnyByteBeforeOrAfterTheDate) {
    for (std::string_view date : {kExampleImf, kExampleRfc850, kExampleAsctime}) {
        for (std::string_view extra :
             {std::string_view(" "), std::string_view("\t"), std::string_view("x"), std::string_view("0"),
              std::string_view(","), std::string_view("\r\n"), std::string_view("\0", 1)}) {
            EXPECT_EQ(parse(std::string(date) + std::string(extra)), std::nullopt) << date << " then " << extra;
            EXPECT_EQ(parse(std::string(extra) + std::string(date)), std::nullopt) << extra << " then " << date;
        }
    }
    EXPECT_EQ(parse(std::string(kExampleImf) + ", " + std::string(kExampleImf)), std::nullopt) << "two members";
}

TEST(HttpDate, RejectsEveryPrefixOfEachForm) {
    for (std::string_view date : {kExampleImf, kExampleRfc850, kExampleAsctime}) {
        for (std::size_t length = 0; length < date.size(); ++length)
            EXPECT_EQ(parse(date.substr(0, length)), std::nullopt) << date.substr(0, length);
    }
}

TEST(HttpDate, AgreesWithGmtimeAndReadsBackWhatItWrites) {
    std::mt19937_64 random(7);
    std::uniform_int_distribution<std::int64_t> anySecond(HttpDate::kEarliest, HttpDate::kLatest);
    for (int i = 0; i < 100'000; ++i) {
        const std::int64_t seconds = anySecond(random);
        const std::string text = formatted(seconds);
        ASSERT_EQ(text, formattedByGmtime(seconds)) << seconds;
        ASSERT_EQ(parse(text), seconds) << text;
    }
}

// Every day of four centuries (one whole Gregorian cycle) around now, at its first and last second.
TEST(HttpDate, ReadsBackEveryDayOfAFourCenturyCycle) {
    constexpr std::int64_t kFirstDay = -25'567;  // 1900-01-01
    constexpr std::int64_t kDays = 146'097;
    for (std::int64_t day = kFirstDay; day < kFirstDay + kDays; ++day) {
        for (const std::int64_t seconds : {day * 86'400, day * 86'400 + 86'399}) {
            const std::string text = formatted(seconds);
            ASSERT_EQ(parse(text), seconds) << text;
            ASSERT_EQ(text, formattedByGmtime(seconds)) << seconds;
        }
    }
}

}  // namespace
}  // namespace loopwire::files
