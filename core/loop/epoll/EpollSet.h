// EpollSet: the descriptors a loop watches, in one epoll instance, for both backends. A watcher is level-triggered
// unless it asks for io::kEdgeTriggered (the sockets do: see Socket::readOnce for why, and what it takes).
//
// The epoll backend waits on it itself. The libuv backend gives its descriptor to libuv as a single uv_poll_t and
// reads the ready sockets here when libuv says it is readable: libuv then holds one registration per loop instead
// of one uv_poll_t (160 bytes, plus its slot in libuv's table) per socket, which every idle connection paid for.
//
// add/modify/remove/transfer keep the IoWatcher's fields (fd, events) in step with the kernel; wait() collects up
// to kMaxEventsPerWait ready descriptors and dispatch() calls their watchers, skipping one that an earlier call of
// the same dispatch unwatched (it is still allocated: see Loop::deferDelete). A descriptor registered with
// addTagged() has no watcher: dispatch reports it to its caller instead. Loop thread only.
#pragma once

#include "loop/IoWatcher.h"

#include <cstdint>
#include <sys/epoll.h>

namespace loopwire {

class EpollSet {
public:
    static constexpr int kMaxEventsPerWait = 1024;

    EpollSet();
    ~EpollSet();
    EpollSet(const EpollSet&) = delete;
    EpollSet& operator=(const EpollSet&) = delete;

    int fd() const noexcept { return fd_; }

    // Registers fd for events (io::kReadable | io::kWritable); watcher must not be watched.
    void add(IoWatcher& watcher, int fd, std::uint32_t events);
    void modify(IoWatcher& watcher, std::uint32_t events);
    // Re-registers the same events: the kernel polls the descriptor again and, if it is ready, queues it for the
    // next wait() even when edge-triggered and nothing new happened.
    void rearm(IoWatcher& watcher);
    // Unregisters; the descriptor may be closed afterwards.
    void remove(IoWatcher& watcher) noexcept;
    // Moves from's registration to to (see Loop::transferWatch).
    void transfer(IoWatcher& from, IoWatcher& to);
    // Registers fd for reading under a tag instead of a watcher (a loop's own wakeup descriptor).
    void addTagged(int fd);
    // Whether fd is registered here (asked of the kernel: two system calls; not for the hot path).
    bool contains(int fd) const noexcept;

    // Waits up to timeoutMs (0: does not wait, -1: until something is ready); returns how many are ready.
    int wait(int timeoutMs);
    // Calls the watchers of the `ready` descriptors wait() returned; returns whether the tagged one was ready.
    bool dispatch(int ready);

private:
    int fd_ = -1;
    epoll_event events_[kMaxEventsPerWait];
};

}  // namespace loopwire
