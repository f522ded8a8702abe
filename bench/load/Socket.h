// Socket: the few system calls the load workers share: a non-blocking TCP connect and an epoll instance.
//
// Thin wrappers: errors come back as errno values, never as exceptions.
#pragma once

#include "Target.h"

#include <cstdint>

namespace loopwire::lwload {

struct ConnectResult {
    int fd;           // -1 when the connect failed at once
    bool inProgress;  // wait for EPOLLOUT, then takeSocketError()
    int error;        // errno when fd == -1
};

// A non-blocking, close-on-exec TCP socket with TCP_NODELAY, connecting to target.
ConnectResult startConnect(const ResolvedTarget& target) noexcept;

// The pending error of a socket (SO_ERROR), 0 when none: the outcome of a non-blocking connect.
int takeSocketError(int fd) noexcept;

// An epoll instance (level-triggered) owned by one worker thread.
class Epoll {
public:
    Epoll() noexcept;
    ~Epoll();
    Epoll(const Epoll&) = delete;
    Epoll& operator=(const Epoll&) = delete;

    bool valid() const noexcept { return fd_ >= 0; }
    int fd() const noexcept { return fd_; }
    bool add(int fd, std::uint32_t events, void* data) noexcept;
    bool modify(int fd, std::uint32_t events, void* data) noexcept;

private:
    int fd_;
};

// A small, fast, non-cryptographic generator for WebSocket keys and masks (xorshift64*).
class Random {
public:
    explicit Random(std::uint64_t seed) noexcept : state_(seed ? seed : 0x9E3779B97F4A7C15ull) {}
    std::uint64_t next() noexcept {
        state_ ^= state_ >> 12;
        state_ ^= state_ << 25;
        state_ ^= state_ >> 27;
        return state_ * 0x2545F4914F6CDD1Dull;
    }

private:
    std::uint64_t state_;
};

}  // namespace loopwire::lwload
