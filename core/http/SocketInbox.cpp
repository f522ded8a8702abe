#include "SocketInbox.h"

#include <cstdint>
#include <sys/eventfd.h>
#include <unistd.h>

namespace loopwire {

SocketInbox::~SocketInbox() { close(); }

SocketInbox::PostResult SocketInbox::post(int fd, const SocketAddress& remote) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (state_ == State::Closed) return PostResult::Gone;
    if (state_ == State::New || pending_.size() >= kMaxPendingSockets) return PostResult::Refused;
    // The vector only grows while the owner is slower than the acceptors; a failed allocation is a refusal like a
    // full inbox, not a reason to end the process.
    try {
        pending_.push_back(Pending{fd, remote});
    } catch (...) {
        return PostResult::Refused;
    }
    // One wakeup per batch: while sockets wait, the owner has been woken already and takes them all.
    if (pending_.size() == 1) {
        std::uint64_t one = 1;
        ssize_t written = ::write(wakeupFd_, &one, sizeof one);
        (void)written;  // the counter cannot overflow at one write per batch
    }
    return PostResult::Taken;
}

bool SocketInbox::isOpen() const noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    return state_ == State::Open;
}

std::size_t SocketInbox::pendingCount() const noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    return pending_.size();
}

int SocketInbox::open() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (state_ == State::Open) return wakeupFd_;
    if (state_ == State::Closed) return -1;
    wakeupFd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wakeupFd_ < 0) return -1;
    state_ = State::Open;
    return wakeupFd_;
}

void SocketInbox::takeAll(std::vector<Pending>& out) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (wakeupFd_ >= 0) {
        std::uint64_t count = 0;
        ssize_t got = ::read(wakeupFd_, &count, sizeof count);
        (void)got;  // EAGAIN: a wakeup of sockets taken in an earlier call
    }
    out.swap(pending_);
}

void SocketInbox::close() noexcept {
    std::vector<Pending> orphans;
    int wakeupFd = -1;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        state_ = State::Closed;
        orphans.swap(pending_);
        wakeupFd = wakeupFd_;
        wakeupFd_ = -1;
    }
    // Their clients see the connection close: the App they were handed to has ended before serving them.
    for (const Pending& orphan : orphans)
        ::close(orphan.fd);
    if (wakeupFd >= 0) ::close(wakeupFd);
}

}  // namespace loopwire
