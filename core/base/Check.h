// LW_CHECK(condition): catches programmer errors inside the core.
//
// On in debug builds, sanitizer builds, fuzz builds and any build configured with LW_ENABLE_CHECKS; compiled
// out of plain Release builds. A failed check prints the condition and location to stderr and aborts. It is
// never used for input a peer controls: protocol errors are values (see HttpError), not checks.
#pragma once

namespace loopwire {
[[noreturn]] void checkFailed(const char* condition, const char* file, int line) noexcept;
}

#if defined(LW_ENABLE_CHECKS) || !defined(NDEBUG)
#define LW_CHECKS_ENABLED 1
#define LW_CHECK(condition) \
    ((condition) ? static_cast<void>(0) : ::loopwire::checkFailed(#condition, __FILE__, __LINE__))
#else
#define LW_CHECKS_ENABLED 0
#define LW_CHECK(condition) static_cast<void>(sizeof(static_cast<bool>(condition)))
#endif
