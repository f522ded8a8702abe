#include "EpollLoop.h"

#include "base/Check.h"

#include <cerrno>
#include <utility>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sys/eventfd.h>
#include <unistd.h>

namespace loopwire {

namespace {

std::uint32_t toEpoll(std::uint32_t events) noexcept {
    std::uint32_t result = 0;
    if (events & io::kReadable) result |= EPOLLIN | EPOLLRDHUP;
    if (events & io::kWritable) result |= EPOLLOUT;
    return result;
}

std::uint32_t fromEpoll(std::uint32_t events) noexcept {
    std::uint32_t result = 0;
    if (events & (EPOLLIN | EPOLLRDHUP)) result |= io::kReadable;
    if (events & EPOLLOUT) result |= io::kWritable;
    if (events & EPOLLERR) result |= io::kError;
    if (events & EPOLLHUP) result |= io::kHangup;
    return result;
}

[[noreturn]] void fatal(const char* what) {
    std::perror(what);
    std::abort();
}

// The eventfd has no watcher of its own: its epoll_event carries this tag instead of a pointer.
IoWatcher* const kWakeupTag = nullptr;

}  // namespace

EpollLoop::EpollLoop(std::uint32_t sweepIntervalMs) : Loop(LoopBackend::Epoll, sweepIntervalMs) {
    epollFd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epollFd_ < 0) fatal("loopwire: epoll_create1");
    wakeupFd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wakeupFd_ < 0) fatal("loopwire: eventfd");
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.ptr = kWakeupTag;
    if (epoll_ctl(epollFd_, EPOLL_CTL_ADD, wakeupFd_, &event) != 0) fatal("loopwire: epoll_ctl(eventfd)");
    startInternalTimers();
}

EpollLoop::~EpollLoop() {
    stopInternalTimers();
    close(wakeupFd_);
    close(epollFd_);
}

void EpollLoop::watch(IoWatcher& watcher, int fd, std::uint32_t events) {
    LW_CHECK(!watcher.isWatched());
    epoll_event event{};
    event.events = toEpoll(events);
    event.data.ptr = &watcher;
    if (epoll_ctl(epollFd_, EPOLL_CTL_ADD, fd, &event) != 0) fatal("loopwire: epoll_ctl(ADD)");
    watcher.fd_ = fd;
    watcher.events_ = events;
    ++watchedCount_;
}

void EpollLoop::setWatchedEvents(IoWatcher& watcher, std::uint32_t events) {
    LW_CHECK(watcher.isWatched());
    if (watcher.events_ == events) return;
    epoll_event event{};
    event.events = toEpoll(events);
    event.data.ptr = &watcher;
    if (epoll_ctl(epollFd_, EPOLL_CTL_MOD, watcher.fd_, &event) != 0) fatal("loopwire: epoll_ctl(MOD)");
    watcher.events_ = events;
}

void EpollLoop::unwatch(IoWatcher& watcher) {
    if (!watcher.isWatched()) return;
    epoll_ctl(epollFd_, EPOLL_CTL_DEL, watcher.fd_, nullptr);
    watcher.fd_ = -1;
    watcher.events_ = 0;
    --watchedCount_;
}

void EpollLoop::transferWatch(IoWatcher& from, IoWatcher& to) {
    LW_CHECK(from.isWatched() && !to.isWatched());
    epoll_event event{};
    event.events = toEpoll(from.events_);
    event.data.ptr = &to;
    if (epoll_ctl(epollFd_, EPOLL_CTL_MOD, from.fd_, &event) != 0) fatal("loopwire: epoll_ctl(MOD)");
    to.fd_ = std::exchange(from.fd_, -1);
    to.events_ = std::exchange(from.events_, 0);
}

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
        int ready = epoll_wait(epollFd_, events_, kMaxEventsPerWait, timeoutMs);
        if (ready < 0) {
            if (errno == EINTR) continue;
            fatal("loopwire: epoll_wait");
        }
        updateNow();
        // Every descriptor one epoll_wait reported, and the wakeup, are one batch.
        runBatch([this, ready] { dispatchReady(ready); });
        afterCallbacks();
    }
    runDeferred();
    afterCallbacks();
}

void EpollLoop::dispatchReady(int ready) {
    bool woken = false;
    for (int i = 0; i < ready; ++i) {
        auto* watcher = static_cast<IoWatcher*>(events_[i].data.ptr);
        if (watcher == kWakeupTag) {
            woken = true;
            continue;
        }
        // A watcher unwatched by an earlier callback of this batch is still allocated (deferDelete) and reports
        // itself unwatched.
        if (!watcher->isWatched()) continue;
        watcher->onIo(fromEpoll(events_[i].events));
    }
    if (woken) {
        drainWakeups();
        runDeferred();
    }
}

}  // namespace loopwire
