// EpollLoop: the Loop backend on Linux epoll (level-triggered), for standalone servers.
//
// One epoll_wait per iteration on its EpollSet, with up to EpollSet::kMaxEventsPerWait events; an eventfd wakes it
// for defer(). The epoll descriptor and the eventfd are created in the constructor and closed in the destructor.
#pragma once

#include "EpollSet.h"
#include "loop/Loop.h"

namespace loopwire {

class EpollLoop final : public Loop {
public:
    explicit EpollLoop(std::uint32_t sweepIntervalMs);
    ~EpollLoop() override;

    void watch(IoWatcher& watcher, int fd, std::uint32_t events) override;
    void setWatchedEvents(IoWatcher& watcher, std::uint32_t events) override;
    void rearmWatch(IoWatcher& watcher) override { set_.rearm(watcher); }
    void unwatch(IoWatcher& watcher) override;
    void transferWatch(IoWatcher& from, IoWatcher& to) override;
    bool isWatching(int fd) const noexcept override { return set_.contains(fd); }
    void run() override;
    void stop() override { stopRequested_ = true; }

protected:
    void wakeup() override;

private:
    void drainWakeups() noexcept;
    // The second batch of an iteration (Loop::runBatch), after the due timers: the `ready` descriptors the last
    // wait reported.
    void dispatchReady(int ready);

    EpollSet set_;
    int wakeupFd_ = -1;
    bool stopRequested_ = false;
};

}  // namespace loopwire
