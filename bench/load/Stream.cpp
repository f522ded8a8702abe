#include "Stream.h"

#include "Socket.h"

#include <sys/epoll.h>
#include <sys/socket.h>

namespace loopwire::lwload {

SendResult sendSome(int fd, TlsSession& tls, const std::uint8_t* data, std::size_t length,
                    std::size_t& offset) noexcept {
    while (offset < length) {
        if (tls.active()) {
            std::size_t written = 0;
            const TlsStatus status = tls.write(data + offset, length - offset, written);
            if (status == TlsStatus::Done) {
                offset += written;
                continue;
            }
            return status == TlsStatus::WantWrite || status == TlsStatus::WantRead ? SendResult::Blocked
                                                                                   : SendResult::Failed;
        }
        const ssize_t n = send(fd, data + offset, length - offset, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            offset += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return SendResult::Blocked;
        return SendResult::Failed;
    }
    return SendResult::Done;
}

OpenStep advanceOpen(int fd, const TlsContext* context, TlsSession& tls, std::uint32_t events,
                     RunStats& stats) noexcept {
    if (!tls.active()) {
        // The TCP connect: this event reports its outcome.
        if (takeSocketError(fd) != 0 || (events & (EPOLLERR | EPOLLHUP)) != 0) return OpenStep::ConnectFailed;
        if (context == nullptr) return OpenStep::Ready;
        if (!tls.start(*context, fd)) return OpenStep::TlsFailed;
    }
    switch (tls.handshake()) {
        case TlsStatus::Done:
            ++stats.tlsHandshakes;
            if (tls.resumed()) ++stats.tlsResumed;
            return OpenStep::Ready;
        case TlsStatus::WantRead:
            return OpenStep::WantRead;
        case TlsStatus::WantWrite:
            return OpenStep::WantWrite;
        default:
            return OpenStep::TlsFailed;
    }
}

void closeStream(int& fd, TlsSession& tls) noexcept {
    tls.close();
    if (fd >= 0) close(fd);
    fd = -1;
}

}  // namespace loopwire::lwload
