#include "Socket.h"

#include <cerrno>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <unistd.h>

namespace loopwire::lwload {

ConnectResult startConnect(const ResolvedTarget& target) noexcept {
    const int fd = socket(target.address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
    if (fd < 0) return {-1, false, errno};
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, reinterpret_cast<const sockaddr*>(&target.address), target.length) == 0) {
        return {fd, false, 0};
    }
    if (errno == EINPROGRESS) return {fd, true, 0};
    const int error = errno;
    close(fd);
    return {-1, false, error};
}

int takeSocketError(int fd) noexcept {
    int error = 0;
    socklen_t length = sizeof error;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) return errno;
    return error;
}

Epoll::Epoll() noexcept : fd_(epoll_create1(EPOLL_CLOEXEC)) {}

Epoll::~Epoll() {
    if (fd_ >= 0) close(fd_);
}

bool Epoll::add(int fd, std::uint32_t events, void* data) noexcept {
    epoll_event event{};
    event.events = events;
    event.data.ptr = data;
    return epoll_ctl(fd_, EPOLL_CTL_ADD, fd, &event) == 0;
}

bool Epoll::modify(int fd, std::uint32_t events, void* data) noexcept {
    epoll_event event{};
    event.events = events;
    event.data.ptr = data;
    return epoll_ctl(fd_, EPOLL_CTL_MOD, fd, &event) == 0;
}

}  // namespace loopwire::lwload
