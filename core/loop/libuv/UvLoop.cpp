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
    int open = 4;  // handles whose close callback has not run yet
};

namespace {

int toUv(std::uint32_t events) noexcept {
    int result = 0;
    if (events & io::kReadable) result |= UV_READABLE | UV_DISCONNECT;
    if (events & io::kWritable) result |= UV_WRITABLE;
    return result;
}

std::uint32_t fromUv(int status, int events) noexcept {
    if (status < 0) return io::kError | io::kReadable;
    std::uint32_t result = 0;
    if (events & (UV_READABLE | UV_DISCONNECT)) result |= io::kReadable;
    if (events & UV_WRITABLE) result |= io::kWritable;
    return result;
}

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
    for (uv_handle_t* handle : allHandles()) {
        handle->data = this;
        uv_unref(handle);
    }
    uv_check_start(&handles_->check, &UvLoop::onCheck);
    uv_prepare_start(&handles_->prepare, &UvLoop::onPrepare);
    startInternalTimers();
}

UvLoop::~UvLoop() {
    readyHead_ = nullptr;
    readyTail_ = &readyHead_;
    stopInternalTimers();
    uv_timer_stop(&handles_->timer);
    uv_check_stop(&handles_->check);
    uv_prepare_stop(&handles_->prepare);
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

// A descriptor's uv_poll_t, the loop it belongs to, and its place in that loop's queue of ready descriptors.
// The handle comes first, so a pointer to it is a pointer to the Poll.
struct UvLoop::Poll {
    uv_poll_t handle;
    UvLoop* loop;
    Poll* nextReady = nullptr;
    std::uint32_t ready = 0;  // io:: events reported since it was queued
    bool queued = false;
};

void UvLoop::watch(IoWatcher& watcher, int fd, std::uint32_t events) {
    LW_CHECK(!watcher.isWatched());
    auto* registration = new Poll{{}, this};
    uv_poll_t* poll = &registration->handle;
    if (int error = uv_poll_init(uvLoop_, poll, fd); error != 0) fatal("uv_poll_init", error);
    poll->data = &watcher;
    watcher.registration_ = registration;
    watcher.fd_ = fd;
    watcher.events_ = events;
    ++watchedCount_;
    if (int error = uv_poll_start(poll, toUv(events), &UvLoop::onPoll); error != 0) fatal("uv_poll_start", error);
}

void UvLoop::setWatchedEvents(IoWatcher& watcher, std::uint32_t events) {
    LW_CHECK(watcher.isWatched());
    if (watcher.events_ == events) return;
    watcher.events_ = events;
    uv_poll_t* poll = &static_cast<Poll*>(watcher.registration_)->handle;
    if (events == 0) {
        uv_poll_stop(poll);
    } else if (int error = uv_poll_start(poll, toUv(events), &UvLoop::onPoll); error != 0) {
        fatal("uv_poll_start", error);
    }
}

void UvLoop::unwatch(IoWatcher& watcher) {
    if (!watcher.isWatched()) return;
    uv_poll_t* poll = &static_cast<Poll*>(watcher.registration_)->handle;
    // uv_poll_stop removes the descriptor from the backend at once, so the caller may close it right after;
    // the handle itself is freed when libuv has finished with it.
    uv_poll_stop(poll);
    poll->data = nullptr;
    uv_close(reinterpret_cast<uv_handle_t*>(poll), [](uv_handle_t* handle) { delete reinterpret_cast<Poll*>(handle); });
    watcher.registration_ = nullptr;
    watcher.fd_ = -1;
    watcher.events_ = 0;
    --watchedCount_;
}

void UvLoop::transferWatch(IoWatcher& from, IoWatcher& to) {
    LW_CHECK(from.isWatched() && !to.isWatched());
    // The uv_poll_t stays as it is (a descriptor already queued for this iteration goes to its new watcher).
    auto* registration = static_cast<Poll*>(std::exchange(from.registration_, nullptr));
    registration->handle.data = &to;
    to.registration_ = registration;
    to.fd_ = std::exchange(from.fd_, -1);
    to.events_ = std::exchange(from.events_, 0);
}

std::array<uv_handle_t*, 4> UvLoop::allHandles() const noexcept {
    return {reinterpret_cast<uv_handle_t*>(&handles_->timer), reinterpret_cast<uv_handle_t*>(&handles_->async),
            reinterpret_cast<uv_handle_t*>(&handles_->check), reinterpret_cast<uv_handle_t*>(&handles_->prepare)};
}

// libuv calls this once per ready descriptor; the descriptors of one iteration are handled together, in one
// batch, by onCheck (see the header for why).
void UvLoop::onPoll(uv_poll_t* poll, int status, int events) {
    if (poll->data == nullptr) return;
    auto* registration = reinterpret_cast<Poll*>(poll);
    registration->ready |= fromUv(status, events);
    if (registration->queued) return;
    registration->queued = true;
    UvLoop* self = registration->loop;
    *self->readyTail_ = registration;
    self->readyTail_ = &registration->nextReady;
}

void UvLoop::dispatchReady() {
    while (Poll* registration = readyHead_) {
        readyHead_ = registration->nextReady;
        if (readyHead_ == nullptr) readyTail_ = &readyHead_;
        registration->nextReady = nullptr;
        registration->queued = false;
        std::uint32_t ready = std::exchange(registration->ready, 0);
        // Unwatched since it was queued (by JavaScript that ran in the poll phase, or by an earlier watcher of
        // this batch): its Poll is closed but not freed before the loop's closing phase, which comes after this.
        auto* watcher = static_cast<IoWatcher*>(registration->handle.data);
        if (watcher != nullptr && watcher->isWatched()) watcher->onIo(ready);
    }
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
    self->updateNow();
    if (self->readyHead_ != nullptr) self->runBatch([self] { self->dispatchReady(); });
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
