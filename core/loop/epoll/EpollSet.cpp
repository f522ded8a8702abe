#include "EpollSet.h"

#include "base/Check.h"
#include "base/DirectSystemCalls.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <utility>

namespace loopwire {

namespace {

std::uint32_t toEpoll(std::uint32_t events) noexcept {
    std::uint32_t result = 0;
    if (events & io::kReadable) result |= EPOLLIN | EPOLLRDHUP;
    if (events & io::kWritable) result |= EPOLLOUT;
    if (events & io::kEdgeTriggered) result |= EPOLLET;
    return result;
}

std::uint32_t fromEpoll(std::uint32_t events) noexcept {
    std::uint32_t result = 0;
    if (events & (EPOLLIN | EPOLLRDHUP)) result |= io::kReadable;
    if (events & EPOLLRDHUP) result |= io::kPeerEnded;
    if (events & EPOLLOUT) result |= io::kWritable;
    if (events & EPOLLERR) result |= io::kError;
    if (events & EPOLLHUP) result |= io::kHangup;
    return result;
}

[[noreturn]] void fatal(const char* what) {
    std::perror(what);
    std::abort();
}

// The tagged descriptor's epoll_event carries this instead of a watcher.
IoWatcher* const kTag = nullptr;

// Registers (EPOLL_CTL_ADD) or re-registers (EPOLL_CTL_MOD) fd for events, reported to watcher.
void control(int epollFd, int operation, int fd, std::uint32_t events, IoWatcher* watcher) {
    epoll_event event{};
    event.events = events;
    event.data.ptr = watcher;
    if (epoll_ctl(epollFd, operation, fd, &event) != 0) {
        fatal(operation == EPOLL_CTL_ADD ? "loopwire: epoll_ctl(ADD)" : "loopwire: epoll_ctl(MOD)");
    }
}

}  // namespace

EpollSet::EpollSet() : fd_(epoll_create1(EPOLL_CLOEXEC)) {
    if (fd_ < 0) fatal("loopwire: epoll_create1");
}

EpollSet::~EpollSet() { ::close(fd_); }

void EpollSet::add(IoWatcher& watcher, int fd, std::uint32_t events) {
    LW_CHECK(!watcher.isWatched());
    control(fd_, EPOLL_CTL_ADD, fd, toEpoll(events), &watcher);
    watcher.fd_ = fd;
    watcher.events_ = events;
}

void EpollSet::modify(IoWatcher& watcher, std::uint32_t events) {
    LW_CHECK(watcher.isWatched());
    if (watcher.events_ == events) return;
    control(fd_, EPOLL_CTL_MOD, watcher.fd_, toEpoll(events), &watcher);
    watcher.events_ = events;
}

void EpollSet::rearm(IoWatcher& watcher) {
    LW_CHECK(watcher.isWatched());
    control(fd_, EPOLL_CTL_MOD, watcher.fd_, toEpoll(watcher.events_), &watcher);
}

void EpollSet::remove(IoWatcher& watcher) noexcept {
    if (!watcher.isWatched()) return;
    epoll_ctl(fd_, EPOLL_CTL_DEL, watcher.fd_, nullptr);
    watcher.fd_ = -1;
    watcher.events_ = 0;
}

void EpollSet::transfer(IoWatcher& from, IoWatcher& to) {
    LW_CHECK(from.isWatched() && !to.isWatched());
    control(fd_, EPOLL_CTL_MOD, from.fd_, toEpoll(from.events_), &to);
    to.fd_ = std::exchange(from.fd_, -1);
    to.events_ = std::exchange(from.events_, 0);
}

void EpollSet::addTagged(int fd) { control(fd_, EPOLL_CTL_ADD, fd, EPOLLIN, kTag); }

bool EpollSet::contains(int fd) const noexcept {
    // The kernel keeps the registrations; adding one again is how it tells. A probe that succeeds is undone at
    // once, and with no events requested it can report nothing meanwhile.
    epoll_event probe{};
    if (epoll_ctl(fd_, EPOLL_CTL_ADD, fd, &probe) == 0) {
        epoll_ctl(fd_, EPOLL_CTL_DEL, fd, &probe);
        return false;
    }
    return errno == EEXIST;
}

int EpollSet::wait(int timeoutMs) {
    for (;;) {
        int ready = direct::epollWait(fd_, events_, kMaxEventsPerWait, timeoutMs);
        if (ready >= 0) return ready;
        if (errno != EINTR) fatal("loopwire: epoll_wait");
    }
}

bool EpollSet::dispatch(int ready) {
    bool tagged = false;
    for (int i = 0; i < ready; ++i) {
        auto* watcher = static_cast<IoWatcher*>(events_[i].data.ptr);
        if (watcher == kTag) {
            tagged = true;
            continue;
        }
        // A watcher unwatched by an earlier callback of this dispatch is still allocated and says so.
        if (!watcher->isWatched()) continue;
        watcher->onIo(fromEpoll(events_[i].events));
    }
    return tagged;
}

}  // namespace loopwire
