#include "DelayedTasks.h"

#include <utility>
#include <vector>

DelayedTasks::DelayedTasks(loopwire::App& app) : app_(app), thread_([this] { waitAndHandOver(); }) {}

DelayedTasks::~DelayedTasks() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_one();
    thread_.join();
}

void DelayedTasks::schedule(std::chrono::milliseconds delay, loopwire::App::Task task) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        tasks_.emplace(Clock::now() + delay, std::move(task));
    }
    changed_.notify_one();
}

void DelayedTasks::waitAndHandOver() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
        if (tasks_.empty()) {
            changed_.wait(lock);
            continue;
        }
        auto first = tasks_.begin();
        if (first->first > Clock::now()) {
            changed_.wait_until(lock, first->first);
            continue;
        }
        // Every due task is taken out under the lock and handed to the loop without it, so that a handler
        // scheduling a new task on the loop thread never waits for this one.
        std::vector<loopwire::App::Task> due;
        auto now = Clock::now();
        while (!tasks_.empty() && tasks_.begin()->first <= now) {
            due.push_back(std::move(tasks_.begin()->second));
            tasks_.erase(tasks_.begin());
        }
        lock.unlock();
        for (auto& task : due)
            app_.defer(std::move(task));
        lock.lock();
    }
}
