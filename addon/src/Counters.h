// Counters: what the JS tests count to prove the per-request cost rules (docs/decisions/node-addon.md).
//
// Only a build configured with LW_ADDON_COUNTERS (the loopwire_counting.node test module) counts; in every other
// build each hook below is an empty inline function and the counters do not exist, so ordinary builds pay
// nothing. Counted:
// - global handles the addon creates (every one goes through Handle<T>) and how many are alive;
// - native allocations made by the addon and the core inside it: the counting module replaces operator new for
//   its own code (it is linked with -Bsymbolic), so allocations by V8 or Node themselves are not counted;
// - backing stores LentBuffer makes (each one V8 allocates), to show when one serves again;
// - calls the loop makes into JavaScript (AddonState::callFromLoop), to show what is served with none (app.static).
// The counters are process-wide relaxed atomics: exact for one thread, and never torn with workers.
#pragma once

#include <cstdint>

#if defined(LW_ADDON_COUNTERS)
#include <atomic>
#endif

namespace loopwire::addon {

#if defined(LW_ADDON_COUNTERS)

struct CounterValues {
    std::atomic<std::uint64_t> handlesCreated{0};
    std::atomic<std::int64_t> handlesAlive{0};
    std::atomic<std::uint64_t> allocations{0};
    std::atomic<std::uint64_t> lentStoresMade{0};
    std::atomic<std::uint64_t> callsIntoJavaScript{0};
};

CounterValues& counterValues() noexcept;

inline void countHandleCreated() noexcept {
    counterValues().handlesCreated.fetch_add(1, std::memory_order_relaxed);
    counterValues().handlesAlive.fetch_add(1, std::memory_order_relaxed);
}
inline void countHandleReleased() noexcept { counterValues().handlesAlive.fetch_sub(1, std::memory_order_relaxed); }
inline void countLentStoreMade() noexcept { counterValues().lentStoresMade.fetch_add(1, std::memory_order_relaxed); }
inline void countCallIntoJavaScript() noexcept {
    counterValues().callsIntoJavaScript.fetch_add(1, std::memory_order_relaxed);
}

inline constexpr bool kCounting = true;

#else

inline void countHandleCreated() noexcept {}
inline void countHandleReleased() noexcept {}
inline void countLentStoreMade() noexcept {}
inline void countCallIntoJavaScript() noexcept {}

inline constexpr bool kCounting = false;

#endif

}  // namespace loopwire::addon
