#include "UvLoop.h"

#include "base/Check.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace loopwire {

struct UvLoop::Handles {
    uv_timer_t timer;
    uv_async_t async;
    uv_check_t check;
    uv_prepare_t prepare;
    uv_poll_t poll;  // the EpollSet's descriptor
    int open = 5;    // handles whose close callback has not run yet
};

namespace {

[[noreturn]] void fatal(const char* what, int error) {
    std::fprintf(stderr, "loopwire: %s: %s\n", what, uv_strerror(error));
    std::abort();
}

void closeHandle(uv_handle_t* handle) {
    uv_close(handle, [](uv_handle_t* closed) {
        auto* handles = static_cast<UvLoop::Handles*>(closed->data);
        if (--handles->open == 0) delete handles;
    });
}

}  // namespace

UvLoop::UvLoop(uv_loop_t* borrowed, std::uint32_t sweepIntervalMs)
    : Loop(LoopBackend::Libuv, sweepIntervalMs),
      uvLoop_(borrowed),
      ownsLoop_(borrowed == nullptr),
      handles_(new Handles) {
    if (ownsLoop_) {
        uvLoop_ = new uv_loop_t;
        if (int error = uv_loop_init(uvLoop_); error != 0) fatal("uv_loop_init", error);
    }
    uv_timer_init(uvLoop_, &handles_->timer);
    uv_async_init(uvLoop_, &handles_->async, &UvLoop::onAsync);
    uv_check_init(uvLoop_, &handles_->check);
    uv_prepare_init(uvLoop_, &handles_->prepare);
    if (int error = uv_poll_init(uvLoop_, &handles_->poll, set_.fd()); error != 0) fatal("uv_poll_init", error);
    for (uv_handle_t* handle : allHandles()) {
        handle->data = this;
        uv_unref(handle);
    }
    uv_check_start(&handles_->check, &UvLoop::onCheck);
    uv_prepare_start(&handles_->prepare, &UvLoop::onPrepare);
    if (int error = uv_poll_start(&handles_->poll, UV_READABLE, &UvLoop::onReady); error != 0) {
        fatal("uv_poll_start", error);
    }
    startInternalTimers();
}

UvLoop::~UvLoop() {
    stopInternalTimers();
    uv_timer_stop(&handles_->timer);
    uv_check_stop(&handles_->check);
    uv_prepare_stop(&handles_->prepare);
    // Stopping takes the epoll descriptor out of libuv's own set at once, so set_ may close it afterwards.
    uv_poll_stop(&handles_->poll);
    for (uv_handle_t* handle : allHandles()) {
        handle->data = handles_;
        closeHandle(handle);
    }
    if (ownsLoop_) {
        // Let the close callbacks (of these handles and of any uv_poll_t) run, then free the loop.
        uv_run(uvLoop_, UV_RUN_DEFAULT);
        uv_loop_close(uvLoop_);
        delete uvLoop_;
    }
}

void UvLoop::watch(IoWatcher& watcher, int fd, std::uint32_t events) {
    set_.add(watcher, fd, events);
    if (watchedCount_++ == 0) uv_ref(reinterpret_cast<uv_handle_t*>(&handles_->poll));
}

void UvLoop::setWatchedEvents(IoWatcher& watcher, std::uint32_t events) { set_.modify(watcher, events); }

void UvLoop::unwatch(IoWatcher& watcher) {
    if (!watcher.isWatched()) return;
    set_.remove(watcher);
    if (--watchedCount_ == 0) uv_unref(reinterpret_cast<uv_handle_t*>(&handles_->poll));
}

void UvLoop::transferWatch(IoWatcher& from, IoWatcher& to) { set_.transfer(from, to); }

std::array<uv_handle_t*, 5> UvLoop::allHandles() const noexcept {
    return {reinterpret_cast<uv_handle_t*>(&handles_->timer), reinterpret_cast<uv_handle_t*>(&handles_->async),
            reinterpret_cast<uv_handle_t*>(&handles_->check), reinterpret_cast<uv_handle_t*>(&handles_->prepare),
            reinterpret_cast<uv_handle_t*>(&handles_->poll)};
}

// libuv reports the epoll descriptor readable: every socket ready in it now is handled in one batch.
void UvLoop::onReady(uv_poll_t* poll, int status, int) {
    auto* self = static_cast<UvLoop*>(poll->data);
    if (status < 0) return;
    // libuv read the clock when the poll returned, a moment ago, and it is the same clock (CLOCK_MONOTONIC, in
    // milliseconds): one read fewer per iteration.
    self->setNow(uv_now(self->uvLoop_));
    int ready = self->set_.wait(0);
    if (ready > 0) self->runBatch([self, ready] { self->set_.dispatch(ready); }, static_cast<std::uint32_t>(ready));
    self->afterCallbacks();
}

void UvLoop::run() {
    LW_CHECK(ownsLoop_);
    runDeferred();
    afterCallbacks();
    uv_run(uvLoop_, UV_RUN_DEFAULT);
    afterCallbacks();
}

void UvLoop::stop() { uv_stop(uvLoop_); }

void UvLoop::wakeup() { uv_async_send(&handles_->async); }

void UvLoop::onAsync(uv_async_t* async) {
    auto* self = static_cast<UvLoop*>(async->data);
    self->runBatch([self] { self->runDeferred(); });
    self->afterCallbacks();
}

void UvLoop::onCheck(uv_check_t* check) {
    auto* self = static_cast<UvLoop*>(check->data);
    self->setNow(uv_now(self->uvLoop_));
    self->afterCallbacks();
}

void UvLoop::onPrepare(uv_prepare_t* prepare) {
    auto* self = static_cast<UvLoop*>(prepare->data);
    self->runFlushes();
}

void UvLoop::onTimer(uv_timer_t* timer) {
    auto* self = static_cast<UvLoop*>(timer->data);
    self->runBatch([self] { self->runTimers(); });
    self->afterCallbacks();
    self->timersChanged();
}

// All Timers share one uv_timer_t, armed to the earliest deadline and referenced only while a timer that keeps
// the loop alive is active.
void UvLoop::timersChanged() noexcept {
    if (handles_ == nullptr) return;
    uv_timer_t* timer = &handles_->timer;
    int untilNext = nextTimerDelayMs();
    if (untilNext < 0) {
        uv_timer_stop(timer);
        return;
    }
    uv_timer_start(timer, &UvLoop::onTimer, static_cast<std::uint64_t>(untilNext), 0);
    if (hasKeepAliveTimers()) {
        uv_ref(reinterpret_cast<uv_handle_t*>(timer));
    } else {
        uv_unref(reinterpret_cast<uv_handle_t*>(timer));
    }
}

}  // namespace loopwire
