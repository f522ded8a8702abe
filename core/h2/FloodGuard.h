// FloodGuard: how much of a kind of work a client may cause per second before its connection is ended with
// GOAWAY ENHANCE_YOUR_CALM, for the floods that the protocol's own limits do not bound.
//
// HTTP/2 lets a client cause work that no limit counts: streams it opens and resets at once (rapid reset,
// CVE-2023-44487), streams it makes the server reset with frames that break a stream's rules (MadeYouReset,
// CVE-2025-8671), and frames that need an answer or nothing at all (SETTINGS, PING, PRIORITY, empty DATA:
// CVE-2019-9512, -9515, -9516, -9518). Each kind has a budget per second of the loop's clock; spend() returns false
// once a second's budget is spent.
#pragma once

#include <cstdint>

namespace loopwire::h2 {

class FloodGuard {
public:
    explicit constexpr FloodGuard(std::uint32_t perSecond) noexcept : perSecond_(perSecond) {}

    // Counts one event at nowMs; false when it is over the second's budget.
    bool spend(std::uint64_t nowMs) noexcept {
        if (nowMs - windowStartMs_ >= 1000) {
            windowStartMs_ = nowMs;
            spent_ = 0;
        }
        return ++spent_ <= perSecond_;
    }

private:
    std::uint64_t windowStartMs_ = 0;
    std::uint32_t spent_ = 0;
    std::uint32_t perSecond_;
};

}  // namespace loopwire::h2
