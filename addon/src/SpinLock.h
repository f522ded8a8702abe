// SpinLock: a mutex for critical sections of a few instructions that are almost never contended, such as a free
// list the loop thread uses for every lent buffer and a garbage collector thread now and then. Taking and
// releasing it costs one atomic exchange and one store where std::mutex (pthread) costs some 60 instructions a
// pair. A waiter spins, then yields its CPU, so a holder preempted inside the section is not starved. Meets
// BasicLockable (std::lock_guard works). Not recursive; never hold it across anything that may block.
#pragma once

#include <atomic>
#include <thread>

namespace loopwire::addon {

class SpinLock {
public:
    void lock() noexcept {
        for (unsigned spins = 0; held_.exchange(true, std::memory_order_acquire); ++spins) {
            // Wait reading, not writing, so the holder's cache line is not taken from it at every turn.
            while (held_.load(std::memory_order_relaxed)) {
                if (++spins >= kSpinsBeforeYield) {
                    std::this_thread::yield();
                    spins = 0;
                }
            }
        }
    }

    void unlock() noexcept { held_.store(false, std::memory_order_release); }

    // Turns of waiting before a waiter gives its CPU away.
    static constexpr unsigned kSpinsBeforeYield = 64;

private:
    std::atomic<bool> held_{false};
};

}  // namespace loopwire::addon
