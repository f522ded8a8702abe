// Socket: one accepted TCP or Unix stream connection on a Loop, with corked writes and backpressure.
//
// The layer above derives from it (HttpConnection) and implements the protected callbacks. The loop thread
// calls them; each may write, cork, close, or change deadlines.
//
// Reading: every read lands in the loop's shared receive buffer and is handed to onData() in place (the bytes
//   are writable and followed by Loop::kReceiveBufferPadding writable bytes); they are valid only during the
//   call. After the peer's FIN, onEnd() runs once and reading stops. The descriptor is watched edge-triggered:
//   one read per readiness report, and a read that fills the buffer asks to be reported again.
// Writing: write() sends at once, or, while the socket is corked, gathers in the loop's cork buffer, which
//   uncork() sends in one syscall. What the kernel does not take goes to this socket's backpressure buffer,
//   sent when the socket becomes writable; onWritable() runs when that buffer has drained. Only one socket per
//   loop is corked at a time: corking another one first uncorks the current one.
// Closing: close() closes at once and calls onClose() (the last callback); the object is freed after the
//   loop's current callbacks return (Loop::deferDelete), so `this` stays valid until then. shutdownWrite() sends
//   FIN once the backpressure has drained (half-close); the peer may go on sending. closeLingering() ends a
//   connection whose peer may still be sending without the reset that would destroy the last bytes written.
// Timeouts: setDeadline(ms) arms one coarse deadline on the loop's timeout clock (Loop::timeoutClockMs), checked
//   by the SocketGroup on each loop sweep; onTimeout() runs once it has passed (then the deadline is cleared).
//   Because the sweep may run before the loop has polled the sockets (after the loop was blocked, timers come
//   first), onTimeout() implementations call serviceWaitingIo() first: input that waits unread, or room the
//   peer made for buffered output, is progress and not a timeout.
// PROXY protocol: a socket made with a ProxyPolicy reads the header a load balancer may send before anything else
//   (ProxyIntake), below TLS as below the layers above: they never see it; proxiedAddress() is what it named. A
//   malformed or untrusted header, or none where one is required, closes the socket; so does one that has not ended
//   within the policy's timeout.
// TLS: a socket made with a TlsContext speaks TLS (see TlsSession) below all of the above, which the layers
//   above do not see: onData() gets plaintext (in the receive buffer too), write() takes plaintext, and a
//   corked batch leaves as one TLS record (the cork buffer holds one record's worth) in one syscall. The session
//   is a member (TlsSession, inactive on a plain socket); the records it makes go through the loop's record buffer
//   to the kernel, or straight into the backpressure buffer behind bytes already waiting. The handshake runs as
//   its bytes arrive, under the socket's one deadline, which starts as the context's handshake timeout: a peer
//   that has not finished by then is closed (onTimeout() does not run). The layer above arms no deadline of its
//   own before onTransportReady(), which runs once the handshake has finished, before the first onData().
//   shutdownWrite() and close() send close_notify first; the peer's close_notify is an end of stream.
// In memory: a socket made on a MemoryStream's server end (its descriptor) runs on that stream where it would make
//   system calls, with everything else the same; tests run the layers above on it without a kernel socket.
// Allocation: the object itself at accept (and OpenSSL's session); the backpressure buffer only when the kernel
//   refuses bytes, and it keeps its capacity afterwards.
#pragma once

#include "ProxyIntake.h"
#include "SocketAddress.h"
#include "TlsSession.h"
#include "base/ByteBuffer.h"
#include "loop/Loop.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <sys/types.h>

namespace loopwire {

class SocketGroup;
class TlsContext;

class Socket : public IoWatcher, public DeferredDeletable {
public:
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;

    Loop& loop() const noexcept { return loop_; }
    const SocketAddress& remoteAddress() const noexcept { return remoteAddress_; }
    // The client a PROXY header named; empty (no bytes, port 0) when none came or it named none.
    const SocketAddress& proxiedAddress() const noexcept { return proxiedAddress_; }

    // Writes or buffers all of data. Returns true when nothing waits in the backpressure buffer afterwards.
    // On a closed socket, or one whose connection broke, the bytes are dropped and false is returned.
    // Inline for the common case, a corked socket with room in the cork buffer: a response head is a dozen
    // small writes, and with constant sizes each becomes a few moves.
    bool write(std::string_view data) {
        std::size_t& corked = loop_.corkedBytes();
        if (loop_.corkOwner() == this && backpressure_.empty() && data.size() <= Loop::kCorkBufferBytes - corked) {
            // An empty view may have a null pointer, which memcpy must not be given even for zero bytes.
            if (!data.empty()) std::memcpy(loop_.corkBuffer() + corked, data.data(), data.size());
            corked += data.size();
            return true;
        }
        return writeSlowly(data);
    }
    // Writes each of parts (string views, or string literals) in turn, as that many write() calls would, with one
    // check of the cork buffer's room for them all: a header line is four parts (name, ": ", value, CRLF), and a
    // literal's copy has a constant size, so it becomes a store or two.
    template <typename... Parts>
    bool writeParts(const Parts&... parts) {
        const std::size_t total = (partSize(parts) + ...);
        std::size_t& corked = loop_.corkedBytes();
        if (loop_.corkOwner() == this && backpressure_.empty() && total <= Loop::kCorkBufferBytes - corked) {
            char* out = loop_.corkBuffer() + corked;
            ((out = copyPart(out, parts)), ...);
            corked += total;
            return true;
        }
        bool drained = true;
        ((drained = write(std::string_view(parts))), ...);
        return drained;
    }
    // Writes what can go now (into the cork buffer, or to the kernel) and buffers nothing; returns the bytes
    // taken. Takes nothing while backpressure is pending. A TLS socket seals and sends 64 KiB at a time and stops
    // after the first group the kernel does not take whole: that group counts as taken, and the rest of its records
    // waits as backpressure (check bufferedBytes() afterwards).
    std::size_t tryWrite(std::string_view data);
    // Whether trySendFile() can send on this socket: plain TCP (or a Unix socket) on a kernel descriptor; not TLS,
    // whose records are made in user space, nor a MemoryStream.
    bool canSendFile() const noexcept { return !tls_.isActive() && !inMemory_; }
    // tryWrite() for count bytes of the file fileFd from fileOffset, which the kernel sends from the page cache
    // (sendfile(2)) with no copy through user space. The corked bytes go first; when the kernel does not take them
    // whole, they wait as backpressure and nothing of the file is taken. Returns the file's bytes taken (0 while
    // backpressure is pending, or when the socket's buffer is full). A file that cannot be read (it shrank below
    // fileOffset + count) takes what the kernel could read, possibly 0: the caller tells by the file's own state.
    // canSendFile() must be true.
    std::size_t trySendFile(int fileFd, std::uint64_t fileOffset, std::size_t count);
    std::size_t bufferedBytes() const noexcept { return backpressure_.size(); }
    // What the layer above wrote that waits in the backpressure buffer: its size on plain TCP; over TLS the
    // plaintext of the records waiting there (of a record partly sent, the same share of its plaintext), not the
    // records' own bytes, which carry 22 or more bytes of framing each.
    std::size_t bufferedUserBytes() const noexcept {
        return tls_.isActive() ? backpressurePlaintext_ : backpressure_.size();
    }
    // Asks for onWritable() at the next writable event even though nothing is buffered (after a partial
    // tryWrite()).
    void requestWritable() noexcept;
    // True while output waits for the peer: bytes in the backpressure buffer, or a requestWritable() pending.
    bool isWaitingForPeer() const noexcept { return !backpressure_.empty() || wantWritable_; }

    void cork() noexcept;
    void uncork() noexcept;
    bool isCorked() const noexcept { return loop_.corkOwner() == this; }

    // Does nothing on a lingering socket (closeLingering()).
    void pauseReading() noexcept;
    void resumeReading() noexcept;
    bool isReadingPaused() const noexcept { return readingPaused_; }

    // Hands bytes read for this connection by its predecessor (read past the end of the predecessor's protocol,
    // as a client's first frames can follow its upgrade request) to onData(). They are mutable but carry no
    // padding. Nothing happens on a closed socket.
    void receive(char* data, std::size_t length) {
        if (!closed_ && length > 0) handOver(data, length);
    }

    // Sends FIN once everything buffered has been sent.
    void shutdownWrite() noexcept;
    void close() noexcept;
    // Ends the connection without destroying what was written last, for an answer that ends it while the peer may
    // still be sending (an error response, a close frame after a protocol error): sends what is buffered and then
    // FIN (shutdownWrite()), and from then on reads and discards the peer's input, never handing it to onData()
    // nor pausing for it, until the peer's FIN comes (the socket closes once its own FIN has gone too), or until
    // kMaxLingerBytes more have come (it closes then). The time it may take is the layer above's to bound with its
    // deadline: onTimeout() still runs. Closing at once instead would make the kernel answer the unread input with
    // a reset, and a reset makes the peer's kernel discard what it received from us but the peer has not read yet:
    // the error response or close frame it was meant to read (nginx's lingering_close does the same).
    void closeLingering() noexcept;
    bool isLingering() const noexcept { return lingering_; }
    // The input a lingering socket discards before it closes anyway: a peer that sends this much after our last
    // bytes is not reading them.
    static constexpr std::size_t kMaxLingerBytes = 1024 * 1024;
    bool isClosed() const noexcept { return closed_; }
    bool hasReceivedEnd() const noexcept { return receivedEnd_; }

    // The TLS session of a socket that speaks TLS (null for plain TCP).
    const TlsSession* tlsSession() const noexcept { return tls_.isActive() ? &tls_ : nullptr; }
    // False while a TLS handshake runs (the layer above hears onTransportReady() when it has finished).
    bool isTransportReady() const noexcept { return !tls_.isHandshaking(); }

    // Absolute time in Loop::timeoutClockMs() terms, 0 for none.
    void setDeadline(std::uint64_t atMs) noexcept { deadlineMs_ = atMs; }
    std::uint64_t deadline() const noexcept { return deadlineMs_; }

protected:
    // Takes ownership of fd (non-blocking), watches it for reading and joins group. With tls, the connection
    // speaks TLS with that context's material (a server's handshake; tls must outlive the socket). With proxy,
    // the connection may (or must) start with a PROXY header (the policy must outlive the socket).
    Socket(Loop& loop, SocketGroup& group, int fd, const SocketAddress& remote, TlsContext* tls = nullptr,
           const ProxyPolicy* proxy = nullptr) noexcept;
    // Takes over predecessor's connection, for a change of protocol (an upgrade): its descriptor and watch, the
    // peer's address, its TLS session, its unsent output and the cork if it holds it; then joins group. predecessor
    // ends as if closed, except that the descriptor stays open and its onClose() is not called; the loop frees it after
    // the current callbacks.
    Socket(Socket& predecessor, SocketGroup& group) noexcept;
    ~Socket() override;

    // The TLS handshake has finished (never called for plain TCP): the layer above may arm its deadlines.
    virtual void onTransportReady() {}
    virtual void onData(char* data, std::size_t length) = 0;
    virtual void onWritable() = 0;
    // Some, not all, of the backpressure was sent.
    virtual void onDrainProgress() {}
    virtual void onEnd() = 0;
    virtual void onTimeout() = 0;
    virtual void onClose() = 0;

    // Does the I/O that is ready but that the loop has not dispatched yet: sends buffered output if the peer made
    // room (onWritable() runs once it has all gone, or at once after requestWritable() if the socket is
    // writable), and reads input that waits unread, or the peer's FIN (onData() or onEnd() runs). Returns true
    // when any of it happened, or the socket closed meanwhile. For onTimeout(), before it gives up on the peer;
    // costs a system call or two, so not for the hot path.
    bool serviceWaitingIo();

private:
    friend class SocketGroup;

    void onIo(std::uint32_t events) override;
    bool writeSlowly(std::string_view data);
    static std::size_t partSize(std::string_view part) noexcept { return part.size(); }
    template <std::size_t N>
    static constexpr std::size_t partSize(const char (&)[N]) noexcept {
        return N - 1;
    }
    static char* copyPart(char* out, std::string_view part) noexcept {
        // An empty view may have a null pointer, which memcpy must not be given even for zero bytes.
        if (!part.empty()) std::memcpy(out, part.data(), part.size());
        return out + part.size();
    }
    template <std::size_t N>
    static char* copyPart(char* out, const char (&literal)[N]) noexcept {
        std::memcpy(out, literal, N - 1);
        return out + (N - 1);
    }
    // peerEnded: the readiness report said the peer's FIN had arrived (see readAgainLater).
    void readOnce(bool peerEnded);
    // readOnce while a PROXY header may still come (the carried bytes of an earlier read go in front).
    void readBehindProxyHeader(bool peerEnded);
    // A plain read that brought nothing: the peer's FIN (0), nothing yet (EAGAIN), or an error, which closes.
    void endOfRead(ssize_t received);
    void readEncrypted(bool peerEnded);
    // While a PROXY header may still come: decides on the bytes of a read (the carried ones in front), moving data
    // past the header; false when nothing goes on to the protocol now (the header waits for more, or the socket
    // closed).
    bool readProxyHeader(char*& data, std::size_t& length);
    // After a read that may have left input unannounced: the loop reports the socket again if any is left.
    void readAgainLater() noexcept;
    // Hands bytes read to onData(), or discards them while lingering.
    void handOver(char* data, std::size_t length) {
        if (lingering_) [[unlikely]] {
            discardLingering(length);
            return;
        }
        onData(data, length);
    }
    // Counts input discarded while lingering, and closes once it passes kMaxLingerBytes.
    void discardLingering(std::size_t length) noexcept;
    // The peer's FIN (or close_notify) arrived.
    void endOfStream();
    // Returns true when some bytes were sent (or the socket closed).
    bool drainBackpressure();
    // Sends head then tail (encrypted first on a TLS socket), with one syscall; returns the bytes of head and
    // tail taken (possibly 0), or -1 when the connection broke. A TLS socket takes them all: the records the
    // kernel refuses become backpressure.
    long sendTwo(std::string_view head, std::string_view tail) noexcept {
        return tls_.isActive() ? sendEncrypted(head, tail) : sendRaw(head, tail);
    }
    long sendRaw(std::string_view head, std::string_view tail) noexcept;
    // recv(2) of up to room bytes (retried on EINTR), and whether input or the end of the stream waits unread: on
    // the descriptor, or on the MemoryStream that stands in for it.
    ssize_t receiveInto(char* buffer, std::size_t room) noexcept;
    bool inputWaits() noexcept;
    // sendRaw() and receiveInto() on a MemoryStream.
    ssize_t receiveFromMemoryStream(char* buffer, std::size_t room) noexcept;
    long sendToMemoryStream(std::string_view head, std::string_view tail) noexcept;
    // tryWrite() on a TLS socket, with the cork buffer's bytes (accepted already) to go first.
    std::size_t tryWriteEncrypted(std::string_view corked, std::string_view data) noexcept;
    long sendEncrypted(std::string_view head, std::string_view tail) noexcept;
    // Adds bytes behind the backpressure already waiting (encrypted first on a TLS socket).
    void appendBackpressure(std::string_view bytes);
    // Sends (or queues behind the backpressure) the records the TLS session just wrote, sealing plaintextBytes
    // of the layer above, and empties records; false when the connection broke.
    bool sendRecords(ByteBuffer& records, std::size_t plaintextBytes) noexcept;
    // Sends close_notify on a TLS socket whose handshake finished; returns false when part of it had to be
    // queued as backpressure.
    bool sendCloseNotify() noexcept;
    void markBroken() noexcept;
    void updateWatch() noexcept;

    Loop& loop_;
    SocketGroup* group_;
    Socket* previousInGroup_ = nullptr;
    Socket* nextInGroup_ = nullptr;
    ByteBuffer backpressure_;
    std::size_t backpressurePlaintext_ = 0;  // TLS: see bufferedUserBytes()
    std::uint64_t deadlineMs_ = 0;
    SocketAddress remoteAddress_;
    SocketAddress proxiedAddress_;
    ProxyIntake proxy_;
    TlsSession tls_;
    bool closed_ = false;
    bool broken_ = false;
    bool receivedEnd_ = false;
    bool readingPaused_ = false;
    bool shutdownPending_ = false;
    bool shutdownSent_ = false;
    bool wantWritable_ = false;
    bool inMemory_ = false;  // the descriptor is a MemoryStream's server end (tests)
    bool lingering_ = false;
    std::uint32_t lingerBytes_ = 0;  // discarded while lingering
    Socket* successor_ = nullptr;    // the socket that took this one over, while this one waits to be freed
};

// SocketGroup: the sockets of one server, for the sweep (deadlines) and for closing them all at once.
class SocketGroup : public SweepListener {
public:
    explicit SocketGroup(Loop& loop) noexcept;
    ~SocketGroup();
    SocketGroup(const SocketGroup&) = delete;
    SocketGroup& operator=(const SocketGroup&) = delete;

    Loop& loop() const noexcept { return loop_; }
    std::size_t size() const noexcept { return size_; }
    // Closes every socket of the group (each gets onClose).
    void closeAll() noexcept;
    // Calls visit(socket) for every socket of the group; visit may close the socket it is given, or others.
    template <typename Visit>
    void forEach(Visit&& visit) {
        Socket* const outer = nextToVisit_;  // a walk this one runs inside of (a sweep's callback)
        for (Socket* socket = head_; socket != nullptr; socket = nextToVisit_) {
            nextToVisit_ = socket->nextInGroup_;
            visit(*socket);
        }
        nextToVisit_ = outer;
    }

private:
    friend class Socket;
    void add(Socket& socket) noexcept;
    void remove(Socket& socket) noexcept;
    void onSweep(std::uint64_t timeoutClockMs) override;

    Loop& loop_;
    Socket* head_ = nullptr;
    Socket* nextToVisit_ = nullptr;  // lets a callback close the next socket while the group is walked
    std::size_t size_ = 0;
};

}  // namespace loopwire
