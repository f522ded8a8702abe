// Timer: a one-shot or repeating callback on a Loop's thread.
//
// Timers are few (the date clock, the timeout sweep, user timers): per-socket timeouts never use one, they are
// checked by the loop's coarse sweep. A Timer must be stopped or destroyed before its Loop. start() and stop()
// run on the loop thread and may be called from the timer's own callback. No allocation after construction.
#pragma once

#include <loopwire/InlineFunction.h>

#include <cstdint>

namespace loopwire {

class Loop;

class Timer {
public:
    using Callback = InlineFunction<void(), 32>;

    Timer(Loop& loop, Callback callback) noexcept;
    ~Timer();
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;

    // Fires after delayMs, then every repeatMs if repeatMs > 0. Restarts a running timer.
    void start(std::uint64_t delayMs, std::uint64_t repeatMs = 0) noexcept;
    void stop() noexcept;
    bool isActive() const noexcept { return active_; }

    // A timer that does not keep Loop::run() going on its own (internal timers: date clock, sweep).
    void setKeepsLoopAlive(bool keepsAlive) noexcept { keepsLoopAlive_ = keepsAlive; }

private:
    friend class Loop;
    Loop& loop_;
    Callback callback_;
    std::uint64_t dueMs_ = 0;
    std::uint64_t repeatMs_ = 0;
    Timer* next_ = nullptr;  // the loop's list of active timers, sorted by dueMs_
    bool active_ = false;
    bool keepsLoopAlive_ = true;
};

}  // namespace loopwire
