#include "Loop.h"

#include "base/Check.h"
#include "epoll/EpollLoop.h"
#ifdef LW_HAVE_LIBUV
#include "libuv/UvLoop.h"
#endif

#include <algorithm>
#include <ctime>
#include <utility>

namespace loopwire {

namespace {

constexpr std::uint64_t kDateRefreshMs = 1000;

std::uint64_t monotonicMs() noexcept {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<std::uint64_t>(now.tv_sec) * 1000u + static_cast<std::uint64_t>(now.tv_nsec) / 1000000u;
}

}  // namespace

std::unique_ptr<Loop> Loop::create(const LoopOptions& options) {
    switch (options.backend) {
        case LoopBackend::Epoll:
            return std::make_unique<EpollLoop>(options.sweepIntervalMs);
        case LoopBackend::Libuv:
#ifdef LW_HAVE_LIBUV
            return std::make_unique<UvLoop>(nullptr, options.sweepIntervalMs);
#else
            return nullptr;
#endif
    }
    return nullptr;
}

std::unique_ptr<Loop> Loop::createOnUvLoop([[maybe_unused]] void* uvLoop,
                                           [[maybe_unused]] std::uint32_t sweepIntervalMs) {
#ifdef LW_HAVE_LIBUV
    return std::make_unique<UvLoop>(static_cast<uv_loop_t*>(uvLoop), sweepIntervalMs);
#else
    return nullptr;
#endif
}

Loop::Loop(LoopBackend backend, std::uint32_t sweepIntervalMs)
    : backend_(backend),
      sweepIntervalMs_(sweepIntervalMs == 0 ? LoopOptions::kDefaultSweepIntervalMs : sweepIntervalMs),
      maxCountedGapMs_(2 * static_cast<std::uint32_t>(std::min<std::uint64_t>(sweepIntervalMs_, kDateRefreshMs))),
      nowMs_(monotonicMs()),
      timeoutClockMs_(nowMs_),
      receiveBuffer_(SharedBlock::create(kReceiveBufferBytes + kReceiveBufferPadding)),
      corkBuffer_(new char[kCorkBufferBytes]),
      dateTimer_(*this, [this] { date_.refresh(std::time(nullptr)); }),
      sweepTimer_(*this, [this] { sweep(); }) {
    dateTimer_.setKeepsLoopAlive(false);
    sweepTimer_.setKeepsLoopAlive(false);
}

Loop::~Loop() {
    // A backend's destructor has already stopped the internal timers; free what is still waiting.
    afterCallbacks();
}

void Loop::startInternalTimers() noexcept {
    dateTimer_.start(kDateRefreshMs, kDateRefreshMs);
    sweepTimer_.start(sweepIntervalMs_, sweepIntervalMs_);
}

void Loop::stopInternalTimers() noexcept {
    dateTimer_.stop();
    sweepTimer_.stop();
}

// The loop never sleeps longer than its shortest internal timer period, so consecutive readings of a free loop
// are at most that far apart; a longer gap is counted as maxCountedGapMs_ only. Only the excess is dropped, so a
// loop that is merely busy (short iterations back to back) keeps the timeout clock on time.
void Loop::updateNow() noexcept { setNow(monotonicMs()); }

void Loop::setNow(std::uint64_t now) noexcept {
    // Never backwards: a reading libuv took at the top of the iteration may be older than one made since.
    if (now <= nowMs_) return;
    timeoutClockMs_ += std::min<std::uint64_t>(now - nowMs_, maxCountedGapMs_);
    nowMs_ = now;
}

void Loop::defer(Task task) {
    {
        std::lock_guard<std::mutex> lock(deferredMutex_);
        deferred_.push_back(std::move(task));
    }
    wakeup();
}

void Loop::runDeferred() {
    {
        std::lock_guard<std::mutex> lock(deferredMutex_);
        if (deferred_.empty()) return;
        std::swap(deferred_, running_);
    }
    for (Task& task : running_)
        task();
    running_.clear();
}

void Loop::addSweepListener(SweepListener& listener) noexcept {
    listener.previousListener_ = nullptr;
    listener.nextListener_ = sweepListeners_;
    if (sweepListeners_ != nullptr) sweepListeners_->previousListener_ = &listener;
    sweepListeners_ = &listener;
}

void Loop::removeSweepListener(SweepListener& listener) noexcept {
    if (nextToSweep_ == &listener) nextToSweep_ = listener.nextListener_;
    if (listener.previousListener_ != nullptr) {
        listener.previousListener_->nextListener_ = listener.nextListener_;
    } else if (sweepListeners_ == &listener) {
        sweepListeners_ = listener.nextListener_;
    }
    if (listener.nextListener_ != nullptr) listener.nextListener_->previousListener_ = listener.previousListener_;
    listener.nextListener_ = listener.previousListener_ = nullptr;
}

void Loop::sweep() noexcept {
    updateNow();
    for (SweepListener* listener = sweepListeners_; listener != nullptr; listener = nextToSweep_) {
        nextToSweep_ = listener->nextListener_;
        listener->onSweep(timeoutClockMs_);
    }
    nextToSweep_ = nullptr;
}

void Loop::deferDelete(DeferredDeletable* object) noexcept {
    object->nextDeleted_ = graveyard_;
    graveyard_ = object;
}

void Loop::requestFlush(FlushListener& listener) noexcept {
    if (listener.flushRequested_) return;
    listener.flushRequested_ = true;
    listener.nextToFlush_ = flushQueue_;
    flushQueue_ = &listener;
}

void Loop::cancelFlush(FlushListener& listener) noexcept {
    if (!listener.flushRequested_) return;
    for (FlushListener** link = &flushQueue_; *link != nullptr; link = &(*link)->nextToFlush_) {
        if (*link == &listener) {
            *link = listener.nextToFlush_;
            break;
        }
    }
    listener.flushRequested_ = false;
    listener.nextToFlush_ = nullptr;
}

void Loop::runFlushes() noexcept {
    // A flush may request another (a drop handler that publishes): it joins the queue and runs in this loop.
    while (FlushListener* listener = flushQueue_) {
        flushQueue_ = listener->nextToFlush_;
        listener->nextToFlush_ = nullptr;
        listener->flushRequested_ = false;
        listener->onFlush();
    }
}

void Loop::afterCallbacks() noexcept {
    runFlushes();
    while (graveyard_ != nullptr) {
        DeferredDeletable* object = graveyard_;
        graveyard_ = object->nextDeleted_;
        delete object;
    }
}

bool Loop::hasWork() const noexcept { return watchedCount_ > 0 || keepAliveTimers_ > 0; }

// Active timers form one list sorted by due time: there are only a handful per loop, because per-socket
// deadlines go through the sweep instead.
void Loop::insertTimer(Timer& timer) noexcept {
    Timer** link = &timers_;
    while (*link != nullptr && (*link)->dueMs_ <= timer.dueMs_)
        link = &(*link)->next_;
    timer.next_ = *link;
    *link = &timer;
    if (timer.keepsLoopAlive_) ++keepAliveTimers_;
}

void Loop::removeTimer(Timer& timer) noexcept {
    for (Timer** link = &timers_; *link != nullptr; link = &(*link)->next_) {
        if (*link == &timer) {
            *link = timer.next_;
            timer.next_ = nullptr;
            if (timer.keepsLoopAlive_) --keepAliveTimers_;
            return;
        }
    }
}

int Loop::runTimers() noexcept {
    updateNow();
    while (timers_ != nullptr && timers_->dueMs_ <= nowMs_) {
        Timer& timer = *timers_;
        removeTimer(timer);
        timer.active_ = false;
        if (timer.repeatMs_ > 0) {
            timer.dueMs_ = nowMs_ + timer.repeatMs_;
            timer.active_ = true;
            insertTimer(timer);
        }
        timer.callback_();
    }
    return nextTimerDelayMs();
}

int Loop::nextTimerDelayMs() const noexcept {
    if (timers_ == nullptr) return -1;
    if (timers_->dueMs_ <= nowMs_) return 0;
    return static_cast<int>(timers_->dueMs_ - nowMs_);
}

Timer::Timer(Loop& loop, Callback callback) noexcept : loop_(loop), callback_(std::move(callback)) {}

Timer::~Timer() { stop(); }

void Timer::start(std::uint64_t delayMs, std::uint64_t repeatMs) noexcept {
    if (active_) loop_.removeTimer(*this);
    loop_.updateNow();
    dueMs_ = loop_.nowMs() + delayMs;
    repeatMs_ = repeatMs;
    active_ = true;
    loop_.insertTimer(*this);
    loop_.timersChanged();
}

void Timer::stop() noexcept {
    if (!active_) return;
    loop_.removeTimer(*this);
    active_ = false;
    loop_.timersChanged();
}

}  // namespace loopwire
