// DateClock: the IMF-fixdate string of RFC 9110 ("Sun, 06 Nov 1994 08:49:37 GMT") for the Date header.
//
// The loop refreshes it once a second from a timer, so that a response copies 29 ready bytes instead of
// formatting a date per request. Not thread-safe; one per loop.
#pragma once

#include <cstddef>
#include <ctime>
#include <string_view>

namespace loopwire {

class DateClock {
public:
    static constexpr std::size_t kLength = 29;

    DateClock() noexcept { refresh(std::time(nullptr)); }

    // Formats `now` (seconds since the epoch). Does nothing when the second has not changed.
    void refresh(std::time_t now) noexcept;

    std::string_view text() const noexcept { return {text_, kLength}; }

private:
    std::time_t second_ = -1;
    char text_[kLength + 1] = {};
};

}  // namespace loopwire
