#include "EpollLoop.h"

#include "base/Check.h"

#include <algorithm>
#include <cerrno>
#include <utility>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sys/eventfd.h>
#include <unistd.h>

namespace loopwire {

namespace {

[[noreturn]] void fatal(const char* what) {
    std::perror(what);
    std::abort();
}

}  // namespace

EpollLoop::EpollLoop(std::uint32_t sweepIntervalMs) : Loop(LoopBackend::Epoll, sweepIntervalMs) {
    wakeupFd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wakeupFd_ < 0) fatal("loopwire: eventfd");
    set_.addTagged(wakeupFd_);
    startInternalTimers();
}

EpollLoop::~EpollLoop() {
    stopInternalTimers();
    close(wakeupFd_);
}

void EpollLoop::watch(IoWatcher& watcher, int fd, std::uint32_t events) {
    set_.add(watcher, fd, events);
    ++watchedCount_;
}

void EpollLoop::setWatchedEvents(IoWatcher& watcher, std::uint32_t events) { set_.modify(watcher, events); }

void EpollLoop::unwatch(IoWatcher& watcher) {
    if (!watcher.isWatched()) return;
    set_.remove(watcher);
    --watchedCount_;
}

void EpollLoop::transferWatch(IoWatcher& from, IoWatcher& to) { set_.transfer(from, to); }

void EpollLoop::wakeup() {
    std::uint64_t one = 1;
    ssize_t written = write(wakeupFd_, &one, sizeof one);
    (void)written;  // EAGAIN means a wakeup is already pending, which is all we need
}

void EpollLoop::drainWakeups() noexcept {
    std::uint64_t count = 0;
    ssize_t got = read(wakeupFd_, &count, sizeof count);
    (void)got;
}

void EpollLoop::run() {
    stopRequested_ = false;
    runDeferred();
    while (!stopRequested_ && hasWork()) {
        int timeoutMs = -1;
        runBatch([this, &timeoutMs] { timeoutMs = runTimers(); });
        afterCallbacks();
        if (stopRequested_ || !hasWork()) break;
        int ready = set_.wait(timeoutMs);
        updateNow();
        // Every descriptor one epoll_wait reported, and the wakeup, are one batch (of at least one source: a wait
        // that timed out or was interrupted still runs the deferred tasks).
        runBatch([this, ready] { dispatchReady(ready); }, static_cast<std::uint32_t>(std::max(ready, 1)));
        afterCallbacks();
    }
    runDeferred();
    afterCallbacks();
}

void EpollLoop::dispatchReady(int ready) {
    if (set_.dispatch(ready)) {
        drainWakeups();
        runDeferred();
    }
}

}  // namespace loopwire
