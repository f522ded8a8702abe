// SpinLock: mutual exclusion under contention, and a waiter that outlasts kSpinsBeforeYield still gets the lock.
#include "SpinLock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

using loopwire::addon::SpinLock;

TEST(SpinLock, ThreadsIncrementingUnderItLoseNoIncrement) {
    constexpr int kThreads = 4;
    constexpr int kIncrements = 100000;
    SpinLock lock;
    long counter = 0;  // plain: only the lock keeps the increments apart
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < kIncrements; ++i) {
                std::lock_guard<SpinLock> guard(lock);
                ++counter;
            }
        });
    }
    for (auto& thread : threads)
        thread.join();
    EXPECT_EQ(counter, static_cast<long>(kThreads) * kIncrements);
}

TEST(SpinLock, AWaiterGetsTheLockOnceAHolderThatSleptReleasesIt) {
    SpinLock lock;
    std::atomic<bool> waiterHasIt{false};
    lock.lock();
    std::thread waiter([&] {
        lock.lock();
        waiterHasIt.store(true);
        lock.unlock();
    });
    // Long enough for the waiter to spin past kSpinsBeforeYield many times over.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(waiterHasIt.load()) << "the lock excluded the waiter while held";
    lock.unlock();
    waiter.join();
    EXPECT_TRUE(waiterHasIt.load());
    static_assert(SpinLock::kSpinsBeforeYield > 0);
}
