// UvLoop: the Loop backend on libuv, the loop Node.js runs on.
//
// The watched descriptors live in the loop's own EpollSet, whose epoll descriptor libuv watches with one uv_poll_t:
// when it is readable, every descriptor ready in it is handled as one batch (Loop::runBatch), then
// afterCallbacks() runs. So the requests of one iteration share one entry into the batch runner, as in the epoll
// backend (in Node, one callback scope: its per-call cost is paid once per iteration instead of once per socket),
// and a socket costs libuv nothing (a uv_poll_t per socket was 160 bytes and a slot in libuv's table, and libuv's
// bookkeeping for each event). The uv_poll_t is referenced while a descriptor is watched, so listening keeps Node
// alive. The callbacks of the timer and the wakeup are batches of their own; the uv_check_t refreshes the clock
// and runs afterCallbacks() after Node's own callbacks of the iteration. A uv_prepare_t runs the flushes requested by
// code that ran outside those batches (JavaScript timers and promises on Node's loop) before libuv polls. All Timers
// share one uv_timer_t armed to the earliest deadline; a uv_async_t wakes the loop for defer(). The internal handles
// are unreferenced, so they never keep a loop alive on their own (in Node, an App with no listening socket lets the
// process exit).
//
// Either it owns a uv_loop_t (standalone, run() drives it) or it borrows one (the addon passes Node's loop;
// Node's uv_run drives it and run() must not be called).
#pragma once

#include "loop/Loop.h"
#include "loop/epoll/EpollSet.h"

#include <uv.h>

#include <array>

namespace loopwire {

class UvLoop final : public Loop {
public:
    // borrowed: an existing loop to attach to, or null to create and own one.
    UvLoop(uv_loop_t* borrowed, std::uint32_t sweepIntervalMs);
    ~UvLoop() override;

    void watch(IoWatcher& watcher, int fd, std::uint32_t events) override;
    void setWatchedEvents(IoWatcher& watcher, std::uint32_t events) override;
    void rearmWatch(IoWatcher& watcher) override { set_.rearm(watcher); }
    void unwatch(IoWatcher& watcher) override;
    void transferWatch(IoWatcher& from, IoWatcher& to) override;
    bool isWatching(int fd) const noexcept override { return set_.contains(fd); }
    void run() override;
    void stop() override;

    uv_loop_t* uvLoop() const noexcept { return uvLoop_; }

    struct Handles;  // the internal handles, defined in the .cpp

protected:
    void wakeup() override;
    void timersChanged() noexcept override;

private:
    static void onReady(uv_poll_t* poll, int status, int events);
    static void onTimer(uv_timer_t* timer);
    static void onAsync(uv_async_t* async);
    static void onCheck(uv_check_t* check);
    static void onPrepare(uv_prepare_t* prepare);
    std::array<uv_handle_t*, 5> allHandles() const noexcept;

    uv_loop_t* uvLoop_;
    bool ownsLoop_;
    // Heap-allocated because libuv frees handles asynchronously, possibly after this object is gone.
    Handles* handles_;
    EpollSet set_;
};

}  // namespace loopwire
