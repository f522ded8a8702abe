// WsClientState: the client side of one WebSocket connection, as both WebSocket workers (WsWorker's echoes,
// FanoutWorker's subscribers and publisher) keep it: the upgrade request being sent and the response head being
// read, the one control frame waiting to go (a pong, a close), the frame parser and the connection's mask.
//
// The workers own the socket, the epoll registration, the stats and what a message means; this type owns the
// byte-level steps they share. Nothing here allocates per message: the handshake strings are per connection.
#pragma once

#include "LoadLimits.h"
#include "RunStats.h"
#include "Socket.h"
#include "WsFrameParser.h"
#include "WsFrameWriter.h"
#include "WsHandshake.h"

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <unistd.h>

namespace loopwire::lwload {

// What a non-blocking send loop ended with.
enum class SendResult : std::uint8_t { Done, Blocked, Failed };

// Sends data[offset, length) on fd until it is all gone (Done), the socket is full (Blocked) or broken (Failed);
// offset advances by what was sent.
SendResult sendSome(int fd, const std::uint8_t* data, std::size_t length, std::size_t& offset) noexcept;

// Counts an upgrade the server refused (a status other than 101: non2xx) or got wrong (a protocol error), and
// keeps the name of the first such error.
void countRefusedHandshake(HandshakeError error, RunStats& stats, const char*& firstProtocolError) noexcept;

// Reads fd until it has nothing more, handing each read's bytes to onBytes(std::string_view), which returns false
// to stop (the connection was reopened or must not be read further). Counts the bytes. Returns false when the
// peer ended the connection or it broke: the caller counts a read error and reopens.
template <typename OnBytes>
bool readAvailable(int fd, char* buffer, RunStats& stats, OnBytes&& onBytes) {
    for (;;) {
        const ssize_t n = read(fd, buffer, limits::kRecvBufferBytes);
        if (n > 0) {
            stats.bytesRead += static_cast<std::uint64_t>(n);
            if (!onBytes(std::string_view(buffer, static_cast<std::size_t>(n)))) return true;
            if (static_cast<std::size_t>(n) < limits::kRecvBufferBytes) return true;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
        // The end of the connection without a close frame, or a reset: either way the server dropped it.
        return false;
    }
}

struct WsClientState {
    // What readHandshake() found.
    struct HeadRead {
        enum class Status : std::uint8_t { NeedMore, TooLarge, Complete } status = Status::NeedMore;
        HandshakeResult result;  // when Complete
        std::string rest;        // when Complete: bytes after the head (frames the server sent at once)
    };

    std::uint8_t mask[4] = {};
    std::size_t controlOffset = 0;
    std::size_t controlLength = 0;
    std::uint8_t control[kMaxControlFrameBytes] = {};
    std::string handshakeOut;
    std::size_t handshakeOffset = 0;
    std::string handshakeIn;
    std::string expectedAccept;
    WsFrameParser parser;

    // The connection closed: nothing waits to be sent or read any more.
    void reset() noexcept;
    // Builds the upgrade request for path with a fresh key (from random) and what its answer must accept.
    void startHandshake(Random& random, std::string_view path, std::string_view authority,
                        std::string_view extraHeaders);
    // Appends bytes of the response head and, once it is complete, checks it.
    HeadRead readHandshake(std::string_view data);

    // A control frame is partly sent (the message frame must not start before it ends).
    bool controlStarted() const noexcept { return controlOffset > 0 && controlOffset < controlLength; }
    bool controlWaiting() const noexcept { return controlOffset < controlLength; }
    // Queues a control frame. One waits at a time; a newer one replaces an unsent one (RFC 6455 section 5.5.3
    // allows answering only the latest ping), but one already begun is finished.
    void queueControl(WsOpcode op, std::string_view payload) noexcept;

    // Sends what waits on fd: the upgrade request while handshaking; once open, the waiting control frame and the
    // message frame [frame, frame + frameSize) from frameOffset while frameWriting (cleared when it is all sent),
    // never interleaving the two.
    SendResult flush(int fd, bool handshaking, const std::uint8_t* frame, std::size_t frameSize,
                     std::size_t& frameOffset, bool& frameWriting) noexcept;

    // Answers a server's close frame with payload's code, unless a frame is partly sent (frameBusy, or a control
    // frame): a best-effort, non-blocking send before the connection is dropped.
    void replyToClose(int fd, std::string_view payload, bool frameBusy) const noexcept;
};

}  // namespace loopwire::lwload
