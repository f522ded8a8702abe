// Loop: one event loop, on one thread, with a backend behind an internal interface (epoll or libuv).
//
// What it provides to the layers above:
// - descriptor readiness through IoWatcher (watch, setWatchedEvents, unwatch);
// - Timers, and a coarse timeout sweep: every sweepIntervalMs it calls each SweepListener, which checks the
//   deadlines of its own sockets, so no socket ever owns a timer;
// - the timeout clock those deadlines are set and checked on, which leaves out the time the loop could not run
//   (timeoutClockMs);
// - defer(task) from any thread, which wakes the loop;
// - the Date header text, refreshed once a second;
// - the per-loop buffers every socket shares: the receive buffer, the cork buffer and the record buffer, and the
//   record of which socket holds the cork (at most one at a time);
// - deferDelete(): objects closed during a callback are freed after the callbacks of the iteration, so a
//   pointer seen earlier in the same batch of events stays valid.
//
// Threading: every member runs on the loop's thread, except defer(). Loops never share state, so a process may
// run one per thread. run() returns after stop(), or when nothing keeps the loop alive: no watched descriptor and
// no active Timer that keeps the loop alive.
#pragma once

#include "IoWatcher.h"
#include "Timer.h"
#include "base/ByteBuffer.h"
#include "base/DateClock.h"

#include <loopwire/CallbackBatchRunner.h>
#include <loopwire/InlineFunction.h>
#include <loopwire/LoopBackend.h>
#include <loopwire/SharedBlock.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <type_traits>
#include <vector>

namespace loopwire {

// Something whose deadlines the sweep checks (the net layer's socket groups).
class SweepListener {
public:
    // timeoutClockMs: Loop::timeoutClockMs() now, the clock deadlines are compared with.
    virtual void onSweep(std::uint64_t timeoutClockMs) = 0;

protected:
    ~SweepListener() = default;

private:
    friend class Loop;
    SweepListener* nextListener_ = nullptr;
    SweepListener* previousListener_ = nullptr;
};

// Something that gathers work during a batch of callbacks and finishes it once the batch is over (the WebSocket
// layer's pub/sub fan-out: all the publishes of a batch leave in one write per subscriber). See
// Loop::requestFlush.
class FlushListener {
public:
    virtual void onFlush() = 0;

protected:
    ~FlushListener() = default;

private:
    friend class Loop;
    FlushListener* nextToFlush_ = nullptr;
    bool flushRequested_ = false;
};

// Something closed during a callback and freed once the iteration's callbacks have returned.
class DeferredDeletable {
public:
    virtual ~DeferredDeletable() = default;

private:
    friend class Loop;
    DeferredDeletable* nextDeleted_ = nullptr;
};

struct LoopOptions {
    static constexpr std::uint32_t kDefaultSweepIntervalMs = 4000;

    LoopBackend backend = LoopBackend::Epoll;
    // How often socket deadlines are checked; timeouts fire up to this much late. Tests use small values.
    std::uint32_t sweepIntervalMs = kDefaultSweepIntervalMs;
};

class Loop {
public:
    // Shared by every socket of the loop: one read lands here and is parsed in place.
    static constexpr std::size_t kReceiveBufferBytes = 512 * 1024;
    // Writable bytes after the received data, for parsers that place a sentinel past the end.
    static constexpr std::size_t kReceiveBufferPadding = 32;
    // Writes of a corked socket gather here and leave in one syscall when it uncorks.
    static constexpr std::size_t kCorkBufferBytes = 16 * 1024;

    using Task = InlineFunction<void(), 48>;

    // Creates a loop that owns its backend (for the libuv backend, its own uv_loop_t).
    static std::unique_ptr<Loop> create(const LoopOptions& options = {});
    // Creates a loop on an existing uv_loop_t that someone else runs (Node's). run() must not be called; the
    // owner's uv_run drives it. Returns null when loopwire was built without libuv.
    static std::unique_ptr<Loop> createOnUvLoop(void* uvLoop, std::uint32_t sweepIntervalMs);

    virtual ~Loop();
    Loop(const Loop&) = delete;
    Loop& operator=(const Loop&) = delete;

    LoopBackend backend() const noexcept { return backend_; }

    // Registers fd for the events (io::kReadable | io::kWritable). The watcher must not be watched already.
    virtual void watch(IoWatcher& watcher, int fd, std::uint32_t events) = 0;
    virtual void setWatchedEvents(IoWatcher& watcher, std::uint32_t events) = 0;
    // For an edge-triggered watcher that stopped before the kernel ran out (a full receive buffer, a socket that
    // broke): reports it again, in the next poll, if it is ready now. One system call.
    virtual void rearmWatch(IoWatcher& watcher) = 0;
    // Unregisters; afterwards the descriptor may be closed. No onIo call follows, even one already polled.
    virtual void unwatch(IoWatcher& watcher) = 0;
    // Moves from's registration (descriptor and events) to to, which must not be watched: from is unwatched
    // and its descriptor stays open, watched by to, with no system call. For a connection that changes
    // protocol (an HTTP connection upgraded to a WebSocket), whose object changes but whose descriptor does not.
    virtual void transferWatch(IoWatcher& from, IoWatcher& to) = 0;
    // Whether this loop watches fd (for adopting a descriptor, which must not be one of the loop's own).
    virtual bool isWatching(int fd) const noexcept = 0;

    virtual void run() = 0;
    // Makes run() return after the current callback. Loop thread only.
    virtual void stop() = 0;

    // Runs task on the loop thread soon. Thread-safe; may allocate (it is not on the request path).
    void defer(Task task);

    // Milliseconds of a monotonic clock, read once per iteration.
    std::uint64_t nowMs() const noexcept { return nowMs_; }
    // Re-reads the monotonic clock (and advances the timeout clock).
    void updateNow() noexcept;

    // Milliseconds of the timeout clock, on which connection deadlines are set and checked. It follows the
    // monotonic clock, except that a gap between two readings longer than maxCountedGapMs() counts as
    // maxCountedGapMs(): the loop wakes at least that often when it is free, so a longer gap is time it could not
    // run (a callback that blocked it, a long garbage collection, a stopped process), and a connection must not
    // be timed out for the server's own unavailability. Read once per iteration, like nowMs().
    std::uint64_t timeoutClockMs() const noexcept { return timeoutClockMs_; }
    // Moves the timeout clock ms ahead at once, as if that much time had passed, so that a test can reach a
    // deadline minutes away (a WebSocket's maxLifetime) without waiting; the next sweep acts on it. Tests only.
    void advanceTimeoutClockForTesting(std::uint64_t ms) noexcept { timeoutClockMs_ += ms; }
    // Twice the longest the loop sleeps when free: min(sweepIntervalMs, the Date refresh period) * 2.
    std::uint32_t maxCountedGapMs() const noexcept { return maxCountedGapMs_; }
    std::string_view date() const noexcept { return date_.text(); }

    std::uint32_t sweepIntervalMs() const noexcept { return sweepIntervalMs_; }
    void addSweepListener(SweepListener& listener) noexcept;
    void removeSweepListener(SweepListener& listener) noexcept;

    // The shared receive buffer: kReceiveBufferBytes of data space plus kReceiveBufferPadding.
    char* receiveBuffer() noexcept { return receiveBuffer_->data(); }
    // The same bytes as a SharedBlock, for code that lends them out past a callback (it retains the block).
    SharedBlock& receiveBlock() noexcept { return *receiveBuffer_; }

    // The shared cork buffer and its current owner (a socket of the net layer), or null when nobody is corked.
    char* corkBuffer() noexcept { return corkBuffer_.get(); }
    std::size_t& corkedBytes() noexcept { return corkedBytes_; }
    void* corkOwner() const noexcept { return corkOwner_; }
    void setCorkOwner(void* owner) noexcept { corkOwner_ = owner; }

    // The shared record buffer: what a socket's transport made for the kernel (TLS records), from the call that
    // made it to the send right after. Empty between two such calls: the net layer checks it.
    ByteBuffer& recordBuffer() noexcept { return recordBuffer_; }

    // Frees object after the current iteration's callbacks. Loop thread only.
    void deferDelete(DeferredDeletable* object) noexcept;

    // Calls listener.onFlush() once, after the current batch of callbacks (or, for work a callback outside the
    // loop's batches did on a borrowed libuv loop, before the loop next waits for I/O). Requests made before
    // that call are merged into it. Loop thread only.
    void requestFlush(FlushListener& listener) noexcept;
    // Forgets a request (a listener that is going away).
    void cancelFlush(FlushListener& listener) noexcept;

    // The runner every batch of callbacks goes through from now on (null: called directly, the default).
    void setBatchRunner(CallbackBatchRunner* runner) noexcept { batchRunner_ = runner; }
    // Runs body() as one batch serving `sources` event sources (CallbackBatchRunner): through the runner when there
    // is one, else directly (inlined).
    template <typename Body>
    void runBatch(Body&& body, std::uint32_t sources = 1) {
        if (batchRunner_ == nullptr) {
            body();
            return;
        }
        batchRunner_->runBatch([](void* argument) { (*static_cast<std::remove_reference_t<Body>*>(argument))(); },
                               &body, sources);
    }

    // Descriptors watched right now (for tests and leak checks).
    std::size_t watchedCount() const noexcept { return watchedCount_; }

    // send/sendmsg calls made by the sockets of this loop, so tests can prove "one syscall per batch".
    std::uint64_t sendCalls() const noexcept { return sendCalls_; }
    void countSendCall() noexcept { ++sendCalls_; }

protected:
    Loop(LoopBackend backend, std::uint32_t sweepIntervalMs);

    // Called by the backends.
    // Sets the monotonic clock's reading to nowMs, a reading of the same clock the backend already made (libuv's
    // loop time, taken once per iteration), and advances the timeout clock: updateNow() without its own read.
    void setNow(std::uint64_t nowMs) noexcept;
    void startInternalTimers() noexcept;
    void stopInternalTimers() noexcept;
    // Runs due timers; returns milliseconds until the next one (-1 when none).
    int runTimers() noexcept;
    // Runs tasks queued by defer().
    void runDeferred();
    // Runs the requested flushes, then frees what deferDelete() collected. Called after each batch of callbacks.
    void afterCallbacks() noexcept;
    // Runs the requested flushes only.
    void runFlushes() noexcept;
    // Milliseconds until the earliest timer is due (0 when overdue), -1 when no timer is active.
    int nextTimerDelayMs() const noexcept;
    bool hasKeepAliveTimers() const noexcept { return keepAliveTimers_ > 0; }
    // True while a watched descriptor or a keep-alive timer exists.
    bool hasWork() const noexcept;

    // Backend hooks.
    virtual void wakeup() = 0;                // any thread
    virtual void timersChanged() noexcept {}  // the earliest deadline or the keep-alive set changed

    std::size_t watchedCount_ = 0;

private:
    friend class Timer;
    void insertTimer(Timer& timer) noexcept;
    void removeTimer(Timer& timer) noexcept;
    void sweep() noexcept;

    LoopBackend backend_;
    std::uint32_t sweepIntervalMs_;
    std::uint32_t maxCountedGapMs_;
    std::uint64_t nowMs_ = 0;
    std::uint64_t timeoutClockMs_ = 0;
    DateClock date_;

    Timer* timers_ = nullptr;
    std::size_t keepAliveTimers_ = 0;
    SweepListener* sweepListeners_ = nullptr;
    SweepListener* nextToSweep_ = nullptr;  // lets a listener remove itself or the next one during the sweep
    DeferredDeletable* graveyard_ = nullptr;
    FlushListener* flushQueue_ = nullptr;
    CallbackBatchRunner* batchRunner_ = nullptr;

    // Owned by reference: a lent chunk may keep the bytes allocated after the loop is gone.
    struct BlockRelease {
        void operator()(SharedBlock* block) const noexcept { block->release(); }
    };
    std::unique_ptr<SharedBlock, BlockRelease> receiveBuffer_;
    std::unique_ptr<char[]> corkBuffer_;
    std::size_t corkedBytes_ = 0;
    void* corkOwner_ = nullptr;
    ByteBuffer recordBuffer_;
    std::uint64_t sendCalls_ = 0;

    std::mutex deferredMutex_;
    std::vector<Task> deferred_;
    std::vector<Task> running_;

    // Declared last: their callbacks use the members above.
    Timer dateTimer_;
    Timer sweepTimer_;
};

}  // namespace loopwire
