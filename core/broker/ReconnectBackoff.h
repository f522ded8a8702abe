// ReconnectBackoff: when a broker link tries again after a failed connection (pure; no allocation, no clock).
//
// Capped exponential backoff with jitter, over a URL that may name several hosts:
// - a failure moves on to the next host; a full round of the hosts counts as one step, so that a second host is
//   tried at once-ish rather than after the first host's longer delay;
// - step k (from 0) is minDelayMs * 2^k, at most maxDelayMs;
// - each delay is drawn uniformly between half and all of its step, so that the Apps of a cluster that lost the
//   same Redis at the same instant do not all come back at the same instant.
// succeeded() starts over from the first step. The generator is seeded by the caller (the link's origin), so a
// test can give a fixed seed and get the same delays.
#pragma once

#include <cstdint>
#include <random>

namespace loopwire::broker {

class ReconnectBackoff {
public:
    // minDelayMs >= 1 and maxDelayMs >= minDelayMs (the broker's options check refuses others); hostCount >= 1.
    ReconnectBackoff(std::uint32_t minDelayMs, std::uint32_t maxDelayMs, std::uint32_t hostCount,
                     std::uint32_t seed) noexcept;

    // The delay before the next attempt, after one more failure; at least 1 ms.
    std::uint64_t nextDelayMs() noexcept;
    // The step the next failure is drawn from (half of it to all of it).
    std::uint64_t nextStepMs() const noexcept;
    // A connection succeeded: the next failure starts from the first step.
    void succeeded() noexcept { failures_ = 0; }

    // Past this many doublings the step is the cap for any minDelayMs the options take.
    static constexpr std::uint32_t kMaxDoublings = 20;

private:
    std::uint32_t minDelayMs_;
    std::uint32_t maxDelayMs_;
    std::uint32_t hostCount_;
    std::uint32_t failures_ = 0;
    std::minstd_rand jitter_;
};

}  // namespace loopwire::broker
