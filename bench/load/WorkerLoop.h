// WorkerLoop: the plan every worker thread of a run follows, and the event loop they share.
//
// A worker owns an Epoll, a slice of the connections and a RunStats. runWorkerLoop() waits on the epoll
// instance, hands each event to the worker, calls its sweep() every kSweepIntervalNs (timeouts, reconnects),
// clears its counters once at the end of the warm-up, and returns at the deadline, when the worker's request
// budget is reached, or soon after *plan.stop is set (SIGINT). It never allocates.
#pragma once

#include "Clock.h"
#include "LoadLimits.h"
#include "RunStats.h"
#include "Socket.h"

#include <atomic>
#include <cstdint>

#include <sys/epoll.h>

namespace loopwire::lwload {

struct RunPlan {
    std::int64_t measureStartNs = 0;  // end of the warm-up: counters are cleared when a worker first sees it
    std::int64_t deadlineNs = 0;      // the run ends here whatever happens
    std::int64_t timeoutNs = 0;       // a request (echo) outstanding for longer is an error
    std::uint64_t requestBudget = 0;  // this worker's share of --requests; 0 in a duration run
    const std::atomic<bool>* stop = nullptr;
};

// Worker must provide:
//   void onEvent(void* data, std::uint32_t events, std::int64_t now);  // data: what it registered
//   void sweep(std::int64_t now);
//   RunStats& stats();
// and read `measuring` (set true when measuring starts; it is true from the start without a warm-up).
// Returns the time the loop ended.
template <typename Worker>
std::int64_t runWorkerLoop(Worker& worker, Epoll& epoll, const RunPlan& plan, bool& measuring) {
    epoll_event events[limits::kMaxEpollEvents];
    std::int64_t now = monotonicNs();
    std::int64_t nextSweep = now + limits::kSweepIntervalNs;
    for (;;) {
        if (!measuring && now >= plan.measureStartNs) {
            worker.stats().reset();
            measuring = true;
        }
        if (now >= plan.deadlineNs || plan.stop->load(std::memory_order_relaxed)) break;
        if (measuring && plan.requestBudget != 0 && worker.stats().requests >= plan.requestBudget) break;
        if (now >= nextSweep) {
            worker.sweep(now);
            nextSweep = now + limits::kSweepIntervalNs;
        }
        std::int64_t wakeAt = nextSweep < plan.deadlineNs ? nextSweep : plan.deadlineNs;
        if (!measuring && plan.measureStartNs < wakeAt) wakeAt = plan.measureStartNs;
        const std::int64_t waitNs = wakeAt > now ? wakeAt - now : 0;
        const int timeoutMs = static_cast<int>((waitNs + 999'999) / 1'000'000);

        const int n = epoll_wait(epoll.fd(), events, limits::kMaxEpollEvents, timeoutMs);
        now = monotonicNs();
        if (n <= 0) continue;  // timeout, or EINTR
        if (now >= plan.deadlineNs) break;
        for (int i = 0; i < n; ++i)
            worker.onEvent(events[i].data.ptr, events[i].events, now);
        now = monotonicNs();
    }
    return now;
}

}  // namespace loopwire::lwload
