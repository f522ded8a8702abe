// MemoryStream: a connected pair of in-memory byte streams that a Socket runs on in place of a kernel socket, so
// that the layers above it (an HTTP connection, a WebSocket, TLS) are tested at their own sources' level without
// opening a socket (Beast's test::stream is the model).
//
// Two ends. The server end is what a Socket is made on, by its descriptor (HttpServer::adopt(descriptor())): the
// Socket calls receive(), send(), hasInput(), shutdownSending() and closeServerEnd() where it would make system
// calls (Socket.cpp says how it knows). The client end is the test's:
// write() gives the server bytes to read, read() takes what the server wrote, endWriting() is the client's FIN and
// reset() its vanishing. The server end closed with input unread resets the stream as a kernel socket does: the
// client loses what it had not read.
//
// Readiness goes through the loop as a kernel socket's does, so the server runs its real read and write paths in the
// loop's real batches: the server end's descriptor is an eventfd, which the client end signals whenever it does
// something the server may be waiting for (bytes or end of stream to read, room to write into). Input is handed out
// at most readChunk bytes per receive (as TCP may cut it anywhere), and the server may write at most room bytes that
// the client has not read (the kernel's send buffer), so that backpressure has a bound to meet.
//
// Faults: the Nth receive or the Nth send of the server end fails with an error number (ECONNRESET, EPIPE...), as
// those calls fail on a connection the peer reset; the ones after it fail the same way.
//
// Thread: one, the loop's, which makes the stream too. The stream must outlive the socket made on it; while a socket
// is made on it, the descriptor is the socket's to watch, and closeServerEnd() closes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace loopwire {

class MemoryStream {
public:
    static constexpr std::size_t kUnlimited = std::numeric_limits<std::size_t>::max();
    // What the server may write that the client has not read, unless set otherwise: a loopback socket's send
    // buffer, roughly.
    static constexpr std::size_t kDefaultRoomBytes = 256 * 1024;

    MemoryStream();
    ~MemoryStream();
    MemoryStream(const MemoryStream&) = delete;
    MemoryStream& operator=(const MemoryStream&) = delete;

    // The stream whose server end descriptor is, made on this thread; null for any other descriptor (a kernel
    // socket's). Costs one load when no stream exists.
    static MemoryStream* serving(int descriptor) noexcept { return streams_ == nullptr ? nullptr : find(descriptor); }

    // ---- the client end (the test) ----

    // Bytes for the server to read, after those it has not read yet.
    void write(std::string_view bytes);
    // What the server wrote and the client has not read yet, all of it or at most maxBytes; reading makes room.
    std::string read(std::size_t maxBytes = kUnlimited);
    // The client's FIN: once it has read what came before, the server's receive() returns 0.
    void endWriting();
    // The client vanishes as a reset connection does: the server's receives and sends fail with ECONNRESET.
    void reset();
    void setReadChunk(std::size_t bytes) noexcept { readChunk_ = bytes == 0 ? 1 : bytes; }
    void setRoom(std::size_t bytes);
    // The Nth (from 1) receive or send of the server end from now on, and every one after it, fails with error.
    void failReceive(std::size_t nth, int error) noexcept;
    void failSend(std::size_t nth, int error) noexcept;

    bool serverEndedWriting() const noexcept { return serverEndedWriting_; }
    bool serverClosed() const noexcept { return serverClosed_; }
    // The server end closed with input unread, which a kernel answers with a reset: what the client had not read
    // of the server's output was lost.
    bool serverReset() const noexcept { return serverReset_; }
    std::size_t unreadByServer() const noexcept { return toServer_.size() - toServerRead_; }
    std::size_t unreadByClient() const noexcept { return toClient_.size(); }
    // Calls the server end has had (those that said EAGAIN included): a test that walks its faults counts them in a
    // run without any, then fails each in turn.
    std::size_t receives() const noexcept { return receives_; }
    std::size_t sends() const noexcept { return sends_; }

    // ---- the server end (a Socket) ----

    int descriptor() const noexcept { return descriptor_; }
    // As recv(2): bytes (at most readChunk), 0 at the end of the stream, -1 with errno set (EAGAIN when nothing
    // waits).
    ssize_t receive(char* into, std::size_t room) noexcept;
    // As sendmsg(2) of head then tail: bytes taken (up to the room left), -1 with errno set (EAGAIN when no room).
    ssize_t send(std::string_view head, std::string_view tail) noexcept;
    // Whether receive() would not block, and send() would take a byte (poll(2)'s POLLIN and POLLOUT).
    bool hasInput() const noexcept;
    bool hasRoom() const noexcept;
    // shutdown(SHUT_WR) and close(2) of the server end.
    void shutdownSending() noexcept;
    void closeServerEnd() noexcept;

private:
    static MemoryStream* find(int descriptor) noexcept;
    // Tells the loop that the server end may be ready for something new.
    void signal() noexcept;
    // The error the Nth call fails with (0 for none), from the fault set for it.
    static int faultFor(std::size_t call, std::size_t failFrom, int error) noexcept;

    static thread_local MemoryStream* streams_;  // the streams made on this thread, linked by next_
    MemoryStream* next_ = nullptr;
    int descriptor_ = -1;
    std::string toServer_;
    std::size_t toServerRead_ = 0;
    std::string toClient_;
    std::size_t readChunk_ = kUnlimited;
    std::size_t room_ = kDefaultRoomBytes;
    std::size_t receives_ = 0;
    std::size_t sends_ = 0;
    std::size_t failReceiveFrom_ = 0;
    std::size_t failSendFrom_ = 0;
    int receiveError_ = 0;
    int sendError_ = 0;
    bool clientEndedWriting_ = false;
    bool clientReset_ = false;
    bool serverEndedWriting_ = false;
    bool serverClosed_ = false;
    bool serverReset_ = false;
};

}  // namespace loopwire
