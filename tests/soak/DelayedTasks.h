// DelayedTasks: runs tasks on an App's loop after a delay, for soak_server's /deferred route.
//
// The public App has no timer API, so a thread of its own waits for each deadline and hands the task to the
// loop with App::defer, the one member that other threads may call. Tasks therefore run on the loop thread, like
// a handler. Construct it after the App and destroy it before; schedule() may be called from any thread.
#pragma once

#include <loopwire/App.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

class DelayedTasks {
public:
    explicit DelayedTasks(loopwire::App& app);
    ~DelayedTasks();
    DelayedTasks(const DelayedTasks&) = delete;
    DelayedTasks& operator=(const DelayedTasks&) = delete;

    // Runs task on the loop thread once delay has passed (or a little later). Allocates.
    void schedule(std::chrono::milliseconds delay, loopwire::App::Task task);

private:
    using Clock = std::chrono::steady_clock;

    void waitAndHandOver();

    loopwire::App& app_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::multimap<Clock::time_point, loopwire::App::Task> tasks_;
    bool stopping_ = false;
    std::thread thread_;
};
