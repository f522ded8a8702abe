// Stream: a connection's bytes, in the clear or through its TlsSession, and the steps that open it (the TCP
// connect, then the TLS handshake). Every worker reads, writes and opens through these functions, so that one code
// path serves http:// and https://, ws:// and wss://: a connection whose TlsSession is active speaks TLS.
#pragma once

#include "LoadLimits.h"
#include "RunStats.h"
#include "Socket.h"
#include "Tls.h"

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <sys/epoll.h>
#include <unistd.h>

namespace loopwire::lwload {

// What a non-blocking send loop ended with.
enum class SendResult : std::uint8_t { Done, Blocked, Failed };

// Sends data[offset, length) on fd (through tls when it is active) until it is all gone (Done), the socket is full
// (Blocked) or broken (Failed); offset advances by what was sent. With TLS, a Blocked send must be resumed with
// the same bytes before any other is sent: OpenSSL has already sealed them in a record.
SendResult sendSome(int fd, TlsSession& tls, const std::uint8_t* data, std::size_t length,
                    std::size_t& offset) noexcept;

// How readAvailable() ended.
enum class ReadEnd : std::uint8_t {
    Drained,    // nothing more to read for now, or onBytes asked to stop
    Closed,     // the server ended the connection (the end of the TCP stream, or TLS close_notify)
    Failed,     // the socket broke (a reset)
    TlsFailed,  // TLS failed: an alert, or a record that does not decrypt
};

// Reads fd (through tls when it is active) until it has nothing more, handing each read's bytes to
// onBytes(std::string_view), which returns false to stop (the connection was reopened or must not be read
// further). Counts the bytes (with TLS, the decrypted ones).
//
// Without TLS a read that does not fill the buffer ends the loop: the socket is then almost certainly empty, and
// epoll (level-triggered) reports it again if not, which saves the read() that would only return EAGAIN. With
// TLS the same rule is "OpenSSL holds no bytes it has not returned": bytes in its buffer would never wake epoll.
template <typename OnBytes>
ReadEnd readAvailable(int fd, TlsSession& tls, char* buffer, RunStats& stats, OnBytes&& onBytes) {
    for (;;) {
        std::size_t got = 0;
        bool more = false;
        if (tls.active()) {
            switch (tls.read(buffer, limits::kRecvBufferBytes, got)) {
                case TlsStatus::Done:
                    more = tls.hasBuffered();
                    break;
                case TlsStatus::WantRead:
                case TlsStatus::WantWrite:
                    return ReadEnd::Drained;
                case TlsStatus::Closed:
                    return ReadEnd::Closed;
                case TlsStatus::Failed:
                    return ReadEnd::Failed;
                case TlsStatus::TlsError:
                    return ReadEnd::TlsFailed;
            }
        } else {
            const ssize_t n = read(fd, buffer, limits::kRecvBufferBytes);
            if (n == 0) return ReadEnd::Closed;
            if (n < 0) {
                if (errno == EINTR) continue;
                if (errno == EAGAIN || errno == EWOULDBLOCK) return ReadEnd::Drained;
                return ReadEnd::Failed;
            }
            got = static_cast<std::size_t>(n);
            more = got == limits::kRecvBufferBytes;
        }
        stats.bytesRead += got;
        if (!onBytes(std::string_view(buffer, got))) return ReadEnd::Drained;
        if (!more) return ReadEnd::Drained;
    }
}

// One step in opening a connection whose TCP connect was started.
enum class OpenStep : std::uint8_t {
    Ready,          // open: the TCP connect completed and, with TLS, so did the handshake
    WantRead,       // the TLS handshake waits for the socket to be readable
    WantWrite,      // the TCP connect, or the TLS handshake, waits for the socket to be writable
    ConnectFailed,  // the TCP connect failed
    TlsFailed,      // the TLS handshake failed (the reason is in tls.lastError())
};

// Advances the opening of the connection on fd: call it on every epoll event while it is opening (events: what
// epoll reported; 0 right after a connect() that completed at once). Checks the outcome of the TCP connect; with a
// context (https://, wss://), then starts the TLS handshake and continues it. Counts each completed handshake, and
// each resumed one, in stats.
OpenStep advanceOpen(int fd, const TlsContext* context, TlsSession& tls, std::uint32_t events,
                     RunStats& stats) noexcept;

// Counts a failed TLS session: one more TLS error, and its reason kept in firstTlsError while that is null.
inline void countTlsFailure(const TlsSession& tls, RunStats& stats, const char*& firstTlsError) noexcept {
    ++stats.errors.tls;
    if (firstTlsError == nullptr) firstTlsError = tls.lastError();
}

// Advances the opening of connection c (advanceOpen) and acts on the step the same way for every worker: each
// worker's continueOpen() calls it on every epoll event while c is opening. It never allocates.
//   - Still opening, or open: c's epoll interest follows what the handshake waits for (EPOLLOUT and c.wantWrite
//     set for WantWrite, EPOLLIN otherwise). If epoll refuses the change, counts a connect error and calls
//     reopenLater(), which must close c, and stops there. Once open, calls onOpen().
//   - ConnectFailed or TlsFailed: counts a connect or a TLS error (the first TLS reason goes to firstTlsError while
//     it is null), calls closeSocket() and sets c.retryAtNs to now + kReconnectBackoffNs.
// Connection has int fd, TlsSession tls, bool wantWrite and std::int64_t retryAtNs, and &c is the data it was
// registered with in epoll. context: nullptr for http:// and ws://.
template <typename Connection, typename OnOpen, typename ReopenLater, typename CloseSocket>
void driveOpen(Connection& c, std::uint32_t events, std::int64_t now, const TlsContext* context, Epoll& epoll,
               RunStats& stats, const char*& firstTlsError, OnOpen&& onOpen, ReopenLater&& reopenLater,
               CloseSocket&& closeSocket) {
    const OpenStep step = advanceOpen(c.fd, context, c.tls, events, stats);
    switch (step) {
        case OpenStep::Ready:
        case OpenStep::WantRead:
        case OpenStep::WantWrite: {
            const bool want = step == OpenStep::WantWrite;
            if (want != c.wantWrite && !epoll.modify(c.fd, want ? EPOLLOUT : EPOLLIN, &c)) {
                ++stats.errors.connect;
                reopenLater();
                return;
            }
            c.wantWrite = want;
            if (step == OpenStep::Ready) onOpen();
            return;
        }
        case OpenStep::ConnectFailed:
            ++stats.errors.connect;
            break;
        case OpenStep::TlsFailed:
            countTlsFailure(c.tls, stats, firstTlsError);
            break;
    }
    closeSocket();
    c.retryAtNs = now + limits::kReconnectBackoffNs;
}

// Ends the connection: TLS first (close_notify, see TlsSession::close), then the socket (which also removes it from
// the epoll set). fd becomes -1.
void closeStream(int& fd, TlsSession& tls) noexcept;

}  // namespace loopwire::lwload
