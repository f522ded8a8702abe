// SocketInbox: connected sockets that other threads hand to one HttpServer, waiting for its loop to adopt them.
//
// An acceptor App (see ServerThreads) posts each socket its listeners accept to a child's inbox from the
// acceptor's thread; the child's loop, woken through the inbox's eventfd, takes them all at once and serves them.
// The inbox is shared (std::shared_ptr) by the server that owns it and every acceptor holding it as a child, so
// that an acceptor may still post to it after the owner has gone: the post is refused, and the acceptor drops it.
//
// States: new (posts refused, nothing watched), open (posts taken, the owner's loop watches the eventfd), closed
// (posts refused for good). Only the owner opens and closes it; the descriptors still waiting when it closes are
// closed then, so none leaks whatever the order in which the threads end.
//
// Threading: post(), isOpen() and pendingCount() from any thread; open(), takeAll() and close() on the owner's
// loop thread. One mutex guards everything, held for a few instructions and one eventfd write at most.
#pragma once

#include "net/SocketAddress.h"

#include <cstddef>
#include <mutex>
#include <vector>

namespace loopwire {

class SocketInbox {
public:
    // Sockets that may wait in one inbox. A child whose loop is blocked (a handler that does not return) stops
    // taking sockets at this bound, and its acceptor gives them to the next child instead.
    static constexpr std::size_t kMaxPendingSockets = 1024;

    enum class PostResult {
        Taken,    // the inbox owns the descriptor now
        Refused,  // not open yet, or full: the descriptor is still the caller's; try another inbox
        Gone,     // closed for good: the descriptor is still the caller's, and the inbox never takes one again
    };

    struct Pending {
        int fd;
        SocketAddress remote;
    };

    SocketInbox() = default;
    // Closes what still waits, and the eventfd.
    ~SocketInbox();
    SocketInbox(const SocketInbox&) = delete;
    SocketInbox& operator=(const SocketInbox&) = delete;

    // Any thread. Queues fd (a connected, non-blocking socket) and wakes the owner's loop when the queue was empty.
    PostResult post(int fd, const SocketAddress& remote) noexcept;
    bool isOpen() const noexcept;
    std::size_t pendingCount() const noexcept;

    // Owner thread. Creates the eventfd the owner's loop watches; returns it, or -1 when the inbox is closed or no
    // descriptor could be created. Opening an open inbox returns the same eventfd.
    int open() noexcept;
    // Owner thread. Clears the eventfd and swaps everything waiting into out (empty on entry, so that the two
    // vectors trade their capacity back and forth and nothing allocates once both have grown).
    void takeAll(std::vector<Pending>& out) noexcept;
    // Owner thread, after the loop stopped watching the eventfd. Refuses every later post, closes the sockets still
    // waiting, then the eventfd. Idempotent.
    void close() noexcept;

private:
    enum class State { New, Open, Closed };

    mutable std::mutex mutex_;
    State state_ = State::New;
    int wakeupFd_ = -1;
    std::vector<Pending> pending_;
};

}  // namespace loopwire
