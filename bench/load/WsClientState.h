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
#include "Stream.h"
#include "Tls.h"
#include "WsFrameParser.h"
#include "WsFrameWriter.h"
#include "WsHandshake.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace loopwire::lwload {

// Counts an upgrade the server refused (a status other than 101: non2xx) or got wrong (a protocol error), and
// keeps the name of the first such error.
void countRefusedHandshake(HandshakeError error, RunStats& stats, const char*& firstProtocolError) noexcept;

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
    // A send of the control frame was tried and did not finish. With TLS that commits it even when no byte was
    // reported sent (OpenSSL sealed it in a record that must go out before anything else).
    bool controlTried = false;
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

    // A control frame is partly sent, or its send was tried and blocked: the message frame must not start (or
    // resume) before it ends, and it may no longer be replaced.
    bool controlStarted() const noexcept {
        return controlOffset < controlLength && (controlOffset > 0 || controlTried);
    }
    bool controlWaiting() const noexcept { return controlOffset < controlLength; }
    // Queues a control frame. One waits at a time; a newer one replaces an unsent one (RFC 6455 section 5.5.3
    // allows answering only the latest ping), but one already begun is finished.
    void queueControl(WsOpcode op, std::string_view payload) noexcept;

    // Sends what waits on fd (through tls when it is active): the upgrade request while handshaking; once open, the
    // waiting control frame and the message frame [frame, frame + frameSize) from frameOffset while frameWriting
    // (cleared when it is all sent), never interleaving the two.
    SendResult flush(int fd, TlsSession& tls, bool handshaking, const std::uint8_t* frame, std::size_t frameSize,
                     std::size_t& frameOffset, bool& frameWriting) noexcept;

    // Answers a server's close frame with payload's code, unless a frame is partly sent (frameBusy, or a control
    // frame): a best-effort, non-blocking send before the connection is dropped.
    void replyToClose(int fd, TlsSession& tls, std::string_view payload, bool frameBusy) const noexcept;
};

}  // namespace loopwire::lwload
