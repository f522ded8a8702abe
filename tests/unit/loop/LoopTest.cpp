// The loop's contract, on both backends: timers, the sweep, defer from other threads, descriptor readiness,
// deferred deletion, and run() returning when nothing is left.
#include "loop/Loop.h"

#include <gtest/gtest.h>

#include <atomic>
#include <array>
#include <chrono>
#include <thread>
#include <unistd.h>
#include <vector>

namespace loopwire {
namespace {

class LoopBackends : public ::testing::TestWithParam<LoopBackend> {
protected:
    std::unique_ptr<Loop> makeLoop(std::uint32_t sweepIntervalMs = LoopOptions::kDefaultSweepIntervalMs) {
        LoopOptions options;
        options.backend = GetParam();
        options.sweepIntervalMs = sweepIntervalMs;
        auto loop = Loop::create(options);
        EXPECT_TRUE(loop);
        return loop;
    }
};

INSTANTIATE_TEST_SUITE_P(Backends, LoopBackends, ::testing::Values(LoopBackend::Epoll, LoopBackend::Libuv),
                         [](const ::testing::TestParamInfo<LoopBackend>& backendInfo) {
                             return backendInfo.param == LoopBackend::Epoll ? "epoll" : "libuv";
                         });

TEST_P(LoopBackends, RunReturnsAtOnceWithNothingToDo) {
    auto loop = makeLoop();
    auto start = std::chrono::steady_clock::now();
    loop->run();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST_P(LoopBackends, TimersFireInDeadlineOrder) {
    auto loop = makeLoop();
    std::vector<int> fired;
    Timer late(*loop, [&fired] { fired.push_back(30); });
    Timer early(*loop, [&fired] { fired.push_back(10); });
    Timer middle(*loop, [&fired] { fired.push_back(20); });
    late.start(30);
    early.start(10);
    middle.start(20);
    loop->run();
    EXPECT_EQ(fired, (std::vector<int>{10, 20, 30}));
    EXPECT_FALSE(late.isActive());
}

TEST_P(LoopBackends, RepeatingTimerRunsUntilStopped) {
    auto loop = makeLoop();
    int count = 0;
    Timer* self = nullptr;
    Timer repeating(*loop, [&] {
        if (++count == 5) self->stop();
    });
    self = &repeating;
    repeating.start(1, 1);
    loop->run();
    EXPECT_EQ(count, 5);
}

TEST_P(LoopBackends, StoppedTimerDoesNotFire) {
    auto loop = makeLoop();
    bool fired = false;
    Timer timer(*loop, [&fired] { fired = true; });
    Timer stopper(*loop, [&timer] { timer.stop(); });
    timer.start(50);
    stopper.start(1);
    loop->run();
    EXPECT_FALSE(fired);
}

TEST_P(LoopBackends, TimerThatDoesNotKeepTheLoopAliveLetsRunReturn) {
    auto loop = makeLoop();
    bool fired = false;
    Timer background(*loop, [&fired] { fired = true; });
    background.setKeepsLoopAlive(false);
    background.start(10000);
    auto start = std::chrono::steady_clock::now();
    loop->run();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
    EXPECT_FALSE(fired);
}

TEST_P(LoopBackends, DeferFromAnotherThreadWakesTheLoop) {
    auto loop = makeLoop();
    std::atomic<bool> ran{false};
    std::thread::id ranOn;
    // A keep-alive timer holds the loop until the deferred task stops it.
    Timer guard(*loop, [] {});
    guard.start(10000);
    std::thread other([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        loop->defer([&] {
            ran = true;
            ranOn = std::this_thread::get_id();
            guard.stop();
        });
    });
    loop->run();
    other.join();
    EXPECT_TRUE(ran);
    EXPECT_EQ(ranOn, std::this_thread::get_id());
}

struct CountingSweep : SweepListener {
    int sweeps = 0;
    void onSweep(std::uint64_t) override { ++sweeps; }
};

TEST_P(LoopBackends, SweepRunsAtTheConfiguredInterval) {
    auto loop = makeLoop(10);
    CountingSweep listener;
    loop->addSweepListener(listener);
    Timer stop(*loop, [] {});
    stop.start(105);
    loop->run();
    loop->removeSweepListener(listener);
    EXPECT_GE(listener.sweeps, 5);
    EXPECT_LE(listener.sweeps, 11);
}

struct PipeWatcher : IoWatcher {
    Loop& loop;
    int fds[2] = {-1, -1};
    std::string received;
    explicit PipeWatcher(Loop& l) : loop(l) { EXPECT_EQ(::pipe(fds), 0); }
    ~PipeWatcher() {
        ::close(fds[0]);
        ::close(fds[1]);
    }
    void onIo(std::uint32_t events) override {
        if (!(events & io::kReadable)) return;
        char buffer[64];
        ssize_t got = ::read(fds[0], buffer, sizeof buffer);
        if (got > 0) received.append(buffer, static_cast<std::size_t>(got));
        if (received.size() >= 5) loop.unwatch(*this);
    }
};

TEST_P(LoopBackends, WatchedDescriptorReportsReadable) {
    auto loop = makeLoop();
    PipeWatcher watcher(*loop);
    loop->watch(watcher, watcher.fds[0], io::kReadable);
    EXPECT_EQ(loop->watchedCount(), 1u);
    Timer writer(*loop, [&watcher] { EXPECT_EQ(::write(watcher.fds[1], "hello", 5), 5); });
    writer.start(5);
    loop->run();  // returns once the watcher unwatched itself
    EXPECT_EQ(watcher.received, "hello");
    EXPECT_EQ(loop->watchedCount(), 0u);
}

struct Tracked : DeferredDeletable {
    bool* deleted;
    explicit Tracked(bool* flag) : deleted(flag) {}
    ~Tracked() override { *deleted = true; }
};

TEST_P(LoopBackends, DeferDeleteFreesAfterTheCallbacks) {
    auto loop = makeLoop();
    bool deleted = false;
    bool deletedDuringCallback = true;
    Timer timer(*loop, [&] {
        loop->deferDelete(new Tracked(&deleted));
        deletedDuringCallback = deleted;
    });
    timer.start(1);
    loop->run();
    EXPECT_FALSE(deletedDuringCallback);
    EXPECT_TRUE(deleted);
}

TEST_P(LoopBackends, DateIsAnImfFixdate) {
    auto loop = makeLoop();
    std::string_view date = loop->date();
    ASSERT_EQ(date.size(), 29u);
    EXPECT_EQ(date.substr(25), " GMT");
    EXPECT_EQ(date[3], ',');
}

// Counts batches, and whether each callback ran inside one; keeps the sources of the batch running now.
struct CountingRunner : CallbackBatchRunner {
    int batches = 0;
    bool inBatch = false;
    std::uint32_t sources = 0;
    void runBatch(void (*body)(void*), void* argument, std::uint32_t batchSources) override {
        EXPECT_FALSE(inBatch) << "batches never nest";
        EXPECT_GE(batchSources, 1u);
        ++batches;
        sources = batchSources;
        inBatch = true;
        body(argument);
        inBatch = false;
    }
};

TEST_P(LoopBackends, EveryCallbackRunsInsideABatch) {
    auto loop = makeLoop();
    CountingRunner runner;
    loop->setBatchRunner(&runner);
    bool timerInBatch = false;
    bool ioInBatch = false;
    struct Watcher : PipeWatcher {
        CountingRunner& runner;
        bool& seen;
        Watcher(Loop& l, CountingRunner& r, bool& s) : PipeWatcher(l), runner(r), seen(s) {}
        void onIo(std::uint32_t events) override {
            seen = runner.inBatch;
            PipeWatcher::onIo(events);
        }
    } watcher(*loop, runner, ioInBatch);
    loop->watch(watcher, watcher.fds[0], io::kReadable);
    Timer writer(*loop, [&] {
        timerInBatch = runner.inBatch;
        EXPECT_EQ(::write(watcher.fds[1], "hello", 5), 5);
    });
    writer.start(5);
    loop->run();
    EXPECT_TRUE(timerInBatch);
    EXPECT_TRUE(ioInBatch);
    EXPECT_EQ(watcher.received, "hello");
    EXPECT_GE(runner.batches, 2);
    loop->setBatchRunner(nullptr);
}

// Descriptors that become ready together are handled in one batch (in Node: one callback scope for all the
// requests of a loop iteration), on both backends, and the batch says how many they are.
TEST_P(LoopBackends, DescriptorsReadyTogetherShareOneBatch) {
    auto loop = makeLoop();
    CountingRunner runner;
    loop->setBatchRunner(&runner);
    struct Watcher : PipeWatcher {
        CountingRunner& runner;
        int batch = -1;
        Watcher(Loop& l, CountingRunner& r) : PipeWatcher(l), runner(r) {}
        std::uint32_t sources = 0;
        void onIo(std::uint32_t events) override {
            batch = runner.batches;
            sources = runner.sources;
            PipeWatcher::onIo(events);
        }
    };
    Watcher first(*loop, runner);
    Watcher second(*loop, runner);
    Watcher third(*loop, runner);
    int timerBatch = -1;
    const std::array<Watcher*, 3> watchers{&first, &second, &third};
    for (Watcher* watcher : watchers)
        loop->watch(*watcher, watcher->fds[0], io::kReadable);
    Timer writer(*loop, [&watchers, &timerBatch, &runner] {
        timerBatch = runner.batches;
        for (Watcher* watcher : watchers)
            EXPECT_EQ(::write(watcher->fds[1], "hello", 5), 5);
    });
    writer.start(5);
    loop->run();  // returns once every watcher has read its bytes and unwatched itself
    for (Watcher* watcher : watchers)
        EXPECT_EQ(watcher->received, "hello");
    EXPECT_EQ(first.batch, second.batch);
    EXPECT_EQ(second.batch, third.batch);
    EXPECT_GT(first.batch, timerBatch);
    // The runner is told how many descriptors the batch serves (at least these three).
    EXPECT_GE(first.sources, 3u);
    loop->setBatchRunner(nullptr);
}

// A watcher unwatched by another callback of the batch its event belongs to is not called.
TEST_P(LoopBackends, AWatcherUnwatchedEarlierInItsBatchIsNotCalled) {
    auto loop = makeLoop();
    struct Watcher : PipeWatcher {
        Watcher* other = nullptr;
        int calls = 0;
        using PipeWatcher::PipeWatcher;
        void onIo(std::uint32_t) override {
            ++calls;
            loop.unwatch(*this);
            loop.unwatch(*other);
        }
    };
    Watcher first(*loop);
    Watcher second(*loop);
    first.other = &second;
    second.other = &first;
    loop->watch(first, first.fds[0], io::kReadable);
    loop->watch(second, second.fds[0], io::kReadable);
    Timer writer(*loop, [&] {
        EXPECT_EQ(::write(first.fds[1], "x", 1), 1);
        EXPECT_EQ(::write(second.fds[1], "x", 1), 1);
    });
    writer.start(5);
    loop->run();
    EXPECT_EQ(first.calls + second.calls, 1);
    EXPECT_EQ(loop->watchedCount(), 0u);
}

TEST_P(LoopBackends, StopEndsRun) {
    auto loop = makeLoop();
    Timer forever(*loop, [] {});
    forever.start(100000);
    Timer stopper(*loop, [&loop] { loop->stop(); });
    stopper.start(5);
    auto start = std::chrono::steady_clock::now();
    loop->run();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    forever.stop();
}

}  // namespace
}  // namespace loopwire
