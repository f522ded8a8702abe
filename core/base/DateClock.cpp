#include "DateClock.h"

namespace loopwire {

namespace {

constexpr char kDays[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr char kMonths[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

void putTwoDigits(char* out, int value) noexcept {
    out[0] = static_cast<char>('0' + value / 10);
    out[1] = static_cast<char>('0' + value % 10);
}

}  // namespace

void DateClock::refresh(std::time_t now) noexcept {
    if (now == second_) return;
    second_ = now;
    std::tm parts{};
    gmtime_r(&now, &parts);
    // Written by hand rather than with strftime, which follows the process locale.
    char* out = text_;
    for (int i = 0; i < 3; ++i)
        *out++ = kDays[parts.tm_wday][i];
    *out++ = ',';
    *out++ = ' ';
    putTwoDigits(out, parts.tm_mday);
    out += 2;
    *out++ = ' ';
    for (int i = 0; i < 3; ++i)
        *out++ = kMonths[parts.tm_mon][i];
    *out++ = ' ';
    int year = parts.tm_year + 1900;
    putTwoDigits(out, year / 100);
    putTwoDigits(out + 2, year % 100);
    out += 4;
    *out++ = ' ';
    putTwoDigits(out, parts.tm_hour);
    out[2] = ':';
    putTwoDigits(out + 3, parts.tm_min);
    out[5] = ':';
    putTwoDigits(out + 6, parts.tm_sec);
    out += 8;
    for (char c : std::string_view(" GMT"))
        *out++ = c;
    *out = '\0';
}

}  // namespace loopwire
