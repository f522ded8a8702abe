// DirectSystemCalls: the system calls of every request and loop iteration (recv, send and sendmsg on a socket,
// epoll_wait) made directly, with the architecture's system-call instruction inline, not through glibc's
// wrappers of the same name.
//
// glibc makes these cancellation points (pthread_cancel may end a thread inside one): in a process with more than
// one thread, which every Node process is and a core with App threads is, each wrapper brackets the system call
// with __pthread_enable_asynccancel and __pthread_disable_asynccancel, two atomic read-modify-writes of the
// thread's cancellation state (about 30 instructions per call, and the locked instructions' cycles; a request makes
// three such calls). loopwire never cancels a thread, nor does Node, and the kernel does the same work either way.
// Made inline, the calls also cost a single-threaded process less than the wrappers do (through syscall(3), a
// function, a C++ hello-world cost 26 instructions a request more; inline, 15 fewer); errno is set as the
// wrappers set it. On other architectures the calls go through syscall(3); elsewhere than Linux they are the
// ordinary calls.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#if defined(__linux__)
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#endif

#include <cstddef>

namespace loopwire::direct {

#if defined(__linux__)
namespace detail {

// A system call with up to six arguments; the kernel's result as it gives it (a negative errno on failure).
inline long systemCall(long number, long a, long b, long c, long d, long e, long f) noexcept {
#if defined(__x86_64__)
    long result;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall"
                     : "=a"(result)
                     : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return result;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = number;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    register long x5 __asm__("x5") = f;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory", "cc");
    return x0;
#else
    const long result = ::syscall(number, a, b, c, d, e, f);
    return result == -1 ? -errno : result;
#endif
}

// The wrappers' convention: -1 and errno on failure.
inline long withErrno(long result) noexcept {
    if (result < 0 && result > -4096) {
        errno = static_cast<int>(-result);
        return -1;
    }
    return result;
}

inline long argument(const void* pointer) noexcept { return reinterpret_cast<long>(pointer); }

}  // namespace detail
#endif

inline ssize_t recv(int descriptor, void* buffer, std::size_t length, int flags) noexcept {
#if defined(__linux__)
    return detail::withErrno(
        detail::systemCall(SYS_recvfrom, descriptor, detail::argument(buffer), static_cast<long>(length), flags, 0, 0));
#else
    return ::recv(descriptor, buffer, length, flags);
#endif
}

inline ssize_t send(int descriptor, const void* bytes, std::size_t length, int flags) noexcept {
#if defined(__linux__)
    return detail::withErrno(
        detail::systemCall(SYS_sendto, descriptor, detail::argument(bytes), static_cast<long>(length), flags, 0, 0));
#else
    return ::send(descriptor, bytes, length, flags);
#endif
}

inline ssize_t sendmsg(int descriptor, const msghdr* message, int flags) noexcept {
#if defined(__linux__)
    return detail::withErrno(detail::systemCall(SYS_sendmsg, descriptor, detail::argument(message), flags, 0, 0, 0));
#else
    return ::sendmsg(descriptor, message, flags);
#endif
}

#if defined(__linux__)
// epoll_wait(2), made as epoll_pwait with no signal mask (the same call; the one every architecture has).
inline int epollWait(int epoll, epoll_event* events, int maxEvents, int timeoutMs) noexcept {
    return static_cast<int>(detail::withErrno(
        detail::systemCall(SYS_epoll_pwait, epoll, detail::argument(events), maxEvents, timeoutMs, 0, 0)));
}
#endif

}  // namespace loopwire::direct
