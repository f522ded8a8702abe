// ListenSocket: a listening TCP (IPv4, IPv6, dual-stack) or Unix stream socket on a Loop.
//
// It accepts in batches of up to kAcceptBatch per readiness event and hands each new descriptor (non-blocking,
// close-on-exec, TCP_NODELAY) with its peer address to the accept callback, which takes ownership of it.
// Created by listenTcp()/listenUnix(), which return null and set `error` (an errno value) on failure.
// close() stops listening; the destructor closes too. Loop thread only.
#pragma once

#include "SocketAddress.h"
#include "loop/Loop.h"
#include "loop/Timer.h"

#include <loopwire/InlineFunction.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace loopwire {

struct ListenOptions {
    static constexpr int kDefaultBacklog = 512;

    // Empty for every address (dual-stack IPv6 when available, else IPv4); a literal IPv4 or IPv6 address, or
    // "localhost".
    std::string_view host;
    // 0 for any free port; the bound port is ListenSocket::port().
    std::uint16_t port = 0;
    // SO_REUSEPORT is set by default so several processes or threads can share a port; exclusivePort leaves
    // it off (uWebSockets' LIBUS_LISTEN_EXCLUSIVE_PORT).
    bool exclusivePort = false;
    int backlog = kDefaultBacklog;
};

class ListenSocket final : public IoWatcher {
public:
    // New connections per readiness event, at most; the rest wait for the next iteration (fairness).
    static constexpr int kAcceptBatch = 64;
    // After accept fails for lack of descriptors or memory, accepting pauses this long (the connections wait
    // in the kernel's queue) instead of spinning on a listener that stays readable.
    static constexpr std::uint64_t kAcceptRetryDelayMs = 100;

    using AcceptCallback = InlineFunction<void(int fd, const SocketAddress& remote), 16>;

    static std::unique_ptr<ListenSocket> listenTcp(Loop& loop, const ListenOptions& options, AcceptCallback onAccept,
                                                   int& error);
    static std::unique_ptr<ListenSocket> listenUnix(Loop& loop, std::string_view path, AcceptCallback onAccept,
                                                    int& error);

    ~ListenSocket();
    ListenSocket(const ListenSocket&) = delete;
    ListenSocket& operator=(const ListenSocket&) = delete;

    // The bound TCP port (0 for a Unix socket).
    std::uint16_t port() const noexcept { return port_; }
    const std::string& unixPath() const noexcept { return unixPath_; }
    bool isOpen() const noexcept { return isWatched(); }
    void close() noexcept;

private:
    ListenSocket(Loop& loop, int fd, std::uint16_t port, AcceptCallback onAccept) noexcept;
    void onIo(std::uint32_t events) override;

    Loop& loop_;
    std::uint16_t port_;
    bool isUnix_ = false;
    std::string unixPath_;
    AcceptCallback onAccept_;
    Timer resumeAccepting_;
};

}  // namespace loopwire
