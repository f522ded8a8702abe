#include "ListenSocket.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace loopwire {

namespace {

int openListening(const sockaddr* address, socklen_t length, const ListenOptions& options, bool dualStack, int& error) {
    int fd = ::socket(address->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        error = errno;
        return -1;
    }
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (!options.exclusivePort) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on);
    if (address->sa_family == AF_INET6) {
        int v6Only = dualStack ? 0 : 1;
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6Only, sizeof v6Only);
    }
    if (::bind(fd, address, length) != 0 || ::listen(fd, options.backlog) != 0) {
        error = errno;
        ::close(fd);
        return -1;
    }
    return fd;
}

std::uint16_t boundPort(int fd) noexcept {
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0) return 0;
    return SocketAddress::fromSockaddr(reinterpret_cast<sockaddr*>(&bound)).port();
}

}  // namespace

ListenSocket::ListenSocket(Loop& loop, int fd, std::uint16_t port, AcceptCallback onAccept) noexcept
    : loop_(loop), port_(port), onAccept_(std::move(onAccept)), resumeAccepting_(loop, [this] {
          if (isWatched()) loop_.setWatchedEvents(*this, io::kReadable);
      }) {
    resumeAccepting_.setKeepsLoopAlive(false);
    loop_.watch(*this, fd, io::kReadable);
}

ListenSocket::~ListenSocket() { close(); }

std::unique_ptr<ListenSocket> ListenSocket::listenTcp(Loop& loop, const ListenOptions& options, AcceptCallback onAccept,
                                                      int& error) {
    error = 0;
    int fd = -1;
    std::string host(options.host);
    if (host.empty()) {
        // Every address: one dual-stack IPv6 socket where the host has IPv6, else IPv4.
        sockaddr_in6 any6{};
        any6.sin6_family = AF_INET6;
        any6.sin6_addr = in6addr_any;
        any6.sin6_port = htons(options.port);
        fd = openListening(reinterpret_cast<sockaddr*>(&any6), sizeof any6, options, true, error);
        if (fd < 0) {
            sockaddr_in any4{};
            any4.sin_family = AF_INET;
            any4.sin_addr.s_addr = htonl(INADDR_ANY);
            any4.sin_port = htons(options.port);
            fd = openListening(reinterpret_cast<sockaddr*>(&any4), sizeof any4, options, false, error);
        }
    } else {
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
        addrinfo* results = nullptr;
        std::string service = std::to_string(options.port);
        int lookup = getaddrinfo(host.c_str(), service.c_str(), &hints, &results);
        if (lookup != 0) {
            error = EADDRNOTAVAIL;
            return nullptr;
        }
        for (addrinfo* candidate = results; candidate != nullptr && fd < 0; candidate = candidate->ai_next) {
            fd = openListening(candidate->ai_addr, candidate->ai_addrlen, options, false, error);
        }
        freeaddrinfo(results);
    }
    if (fd < 0) return nullptr;
    error = 0;
    return std::unique_ptr<ListenSocket>(new ListenSocket(loop, fd, boundPort(fd), std::move(onAccept)));
}

std::unique_ptr<ListenSocket> ListenSocket::listenUnix(Loop& loop, std::string_view path, AcceptCallback onAccept,
                                                       int& error) {
    error = 0;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof address.sun_path) {
        error = ENAMETOOLONG;
        return nullptr;
    }
    std::memcpy(address.sun_path, path.data(), path.size());
    // A socket file left by an earlier process would make bind fail; anything that is not a socket is kept. (statx
    // rather than lstat: glibc 2.33 made lstat a symbol of its own, and the Node addon's prebuilt binaries load
    // on an older glibc.)
    struct statx existing {};
    if (::statx(AT_FDCWD, address.sun_path, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &existing) == 0 &&
        S_ISSOCK(existing.stx_mode)) {
        ::unlink(address.sun_path);
    }
    ListenOptions options;
    options.exclusivePort = true;
    int fd = openListening(reinterpret_cast<sockaddr*>(&address), sizeof address, options, false, error);
    if (fd < 0) return nullptr;
    auto socket = std::unique_ptr<ListenSocket>(new ListenSocket(loop, fd, 0, std::move(onAccept)));
    socket->isUnix_ = true;
    socket->unixPath_ = std::string(path);
    return socket;
}

void ListenSocket::close() noexcept {
    resumeAccepting_.stop();
    if (!isWatched()) return;
    int fd = this->fd();
    loop_.unwatch(*this);
    ::close(fd);
    if (isUnix_) ::unlink(unixPath_.c_str());
}

void ListenSocket::onIo(std::uint32_t) {
    for (int accepted = 0; accepted < kAcceptBatch && isWatched(); ++accepted) {
        sockaddr_storage peer{};
        socklen_t length = sizeof peer;
        int fd = ::accept4(this->fd(), reinterpret_cast<sockaddr*>(&peer), &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                loop_.setWatchedEvents(*this, 0);
                resumeAccepting_.start(kAcceptRetryDelayMs);
            }
            // Otherwise EAGAIN (the queue is empty) or an error of that one connection (ECONNABORTED).
            return;
        }
        if (!isUnix_) {
            int on = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        }
        onAccept_(fd, SocketAddress::fromSockaddr(reinterpret_cast<sockaddr*>(&peer)));
    }
}

}  // namespace loopwire
