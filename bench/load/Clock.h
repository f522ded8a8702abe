// Clock: the monotonic time every worker reads, in nanoseconds.
#pragma once

#include <cstdint>
#include <ctime>

namespace loopwire::lwload {

// CLOCK_MONOTONIC through the vDSO: no syscall, about 20 ns. Never allocates, never fails on Linux.
inline std::int64_t monotonicNs() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace loopwire::lwload
