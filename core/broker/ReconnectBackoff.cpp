#include "ReconnectBackoff.h"

#include <algorithm>

namespace loopwire::broker {

ReconnectBackoff::ReconnectBackoff(std::uint32_t minDelayMs, std::uint32_t maxDelayMs, std::uint32_t hostCount,
                                   std::uint32_t seed) noexcept
    : minDelayMs_(std::max<std::uint32_t>(minDelayMs, 1)),
      maxDelayMs_(std::max(maxDelayMs, minDelayMs_)),
      hostCount_(std::max<std::uint32_t>(hostCount, 1)),
      jitter_(seed) {}

std::uint64_t ReconnectBackoff::nextStepMs() const noexcept {
    const std::uint32_t rounds = failures_ / hostCount_;
    const std::uint32_t shift = std::min(rounds, kMaxDoublings);
    return std::min<std::uint64_t>(std::uint64_t{minDelayMs_} << shift, maxDelayMs_);
}

std::uint64_t ReconnectBackoff::nextDelayMs() noexcept {
    const std::uint64_t step = nextStepMs();
    ++failures_;
    const std::uint64_t delay = step / 2 + jitter_() % (step / 2 + 1);
    return std::max<std::uint64_t>(delay, 1);
}

}  // namespace loopwire::broker
