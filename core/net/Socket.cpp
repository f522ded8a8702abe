#include "Socket.h"

#include "MemoryStream.h"
#include "TlsContext.h"
#include "TlsSession.h"
#include "base/Check.h"
#include "base/DirectSystemCalls.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <csignal>
#include <poll.h>
#include <pthread.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

namespace loopwire {

namespace {

// A backpressure buffer that grew past this is freed once drained; smaller ones are kept for reuse.
constexpr std::size_t kMaxRetainedBackpressureBytes = 64 * 1024;

// A TLS socket reads its ciphertext into the upper half of the loop's receive buffer and has it decrypted into
// the lower half, where onData() finds the plaintext as it finds plain TCP data (followed by writable padding:
// the ciphertext after it has been consumed). A read leaves room for one record kept from the previous read,
// whose plaintext comes out with this read's.
constexpr std::size_t kTlsPlaintextBytes = Loop::kReceiveBufferBytes / 2;
constexpr std::size_t kTlsCiphertextBytes = Loop::kReceiveBufferBytes / 2 - TlsSession::kMaxRecordBytes;
static_assert(Loop::kCorkBufferBytes <= 16384, "a corked batch must fit in one TLS record");
// What a TLS socket's tryWrite() seals and sends at a time (see tryWriteEncrypted): two full records. Four (64 KiB and
// their framing) passed the record buffer's retained size, so it was freed and grown again for every group, and
// sends of 64 KiB cost this kernel's TCP stack more per byte: streaming 1 MiB files over TLS took 719 µs of CPU per
// MiB with four, 537 with two (issue 44's static/1mb-tls, docs/benchmarks.md).
constexpr std::size_t kTlsTryWriteGroupBytes = 2 * 16384;
static_assert(Loop::kCorkBufferBytes < kTlsTryWriteGroupBytes, "the corked bytes go with the first group");

// Where a TLS socket's session writes the records of one call, on their way to the kernel: the loop's shared
// record buffer, which is empty between two calls; or, when another socket's records are in it (a handler that
// runs inside that socket's handshake, the missing-server-name one, and writes to or closes this connection), a
// buffer of its own for this call. Whoever used it has emptied it when it goes out of scope.
class RecordBuffer {
public:
    explicit RecordBuffer(Loop& loop) noexcept
        : shared_(loop.recordBuffer()), records_(shared_.empty() ? shared_ : own_.emplace()) {}
    ~RecordBuffer() {
        LW_CHECK(records_.empty());
        // The buffer is shared by every TLS socket of the loop: one large response must not pin its size.
        if (shared_.capacity() > kMaxRetainedBackpressureBytes) shared_.release();
    }
    RecordBuffer(const RecordBuffer&) = delete;
    RecordBuffer& operator=(const RecordBuffer&) = delete;
    ByteBuffer& get() noexcept { return records_; }

private:
    std::optional<ByteBuffer> own_;  // made only when needed: its destructor is a call
    ByteBuffer& shared_;
    ByteBuffer& records_;
};

// The part of whole that share is of total (share <= total): the plaintext behind share bytes of records that
// sealed whole bytes of it in total bytes. Exact for every size a buffer reaches (below 2^53).
std::size_t shareOf(std::size_t whole, std::size_t share, std::size_t total) noexcept {
    if (share >= total) return whole;
    return static_cast<std::size_t>(static_cast<double>(whole) * static_cast<double>(share) /
                                    static_cast<double>(total));
}

}  // namespace

Socket::Socket(Loop& loop, SocketGroup& group, int fd, const SocketAddress& remote, TlsContext* tls,
               const ProxyPolicy* proxy) noexcept
    : loop_(loop),
      group_(&group),
      remoteAddress_(remote),
      proxy_(proxy),
      inMemory_(MemoryStream::serving(fd) != nullptr) {
    loop_.watch(*this, fd, io::kReadable | io::kEdgeTriggered);
    group_->add(*this);
    if (tls != nullptr) {
        // The one deadline of the socket is the handshake's until it has finished.
        if (tls_.start(*tls)) {
            deadlineMs_ = loop_.timeoutClockMs() + tls->handshakeTimeoutMs();
        } else {
            // Without a session the connection cannot go on; the next readiness callback closes it.
            markBroken();
        }
    }
}

Socket::Socket(Socket& predecessor, SocketGroup& group) noexcept
    : loop_(predecessor.loop_),
      group_(&group),
      backpressure_(std::move(predecessor.backpressure_)),
      backpressurePlaintext_(predecessor.backpressurePlaintext_),
      remoteAddress_(predecessor.remoteAddress_),
      proxiedAddress_(predecessor.proxiedAddress_),
      proxy_(nullptr),
      tls_(std::move(predecessor.tls_)),
      broken_(predecessor.broken_),
      receivedEnd_(predecessor.receivedEnd_),
      readingPaused_(predecessor.readingPaused_),
      wantWritable_(predecessor.wantWritable_),
      inMemory_(predecessor.inMemory_) {
    LW_CHECK(!predecessor.closed_ && !predecessor.shutdownPending_ && !predecessor.shutdownSent_);
    loop_.transferWatch(predecessor, *this);
    if (loop_.corkOwner() == &predecessor) loop_.setCorkOwner(this);
    predecessor.closed_ = true;
    predecessor.successor_ = this;
    predecessor.group_->remove(predecessor);
    loop_.deferDelete(&predecessor);
    group_->add(*this);
}

Socket::~Socket() { LW_CHECK(closed_); }

// A socket on a MemoryStream (tests) calls these once recv(2) or send(2) has refused the stream's descriptor (an
// eventfd: ENOTSOCK). Out of line, and tested for after every other outcome of the call, so that a kernel socket's
// reads and sends hardly pay for them: counted on hello-world, 1 instruction a request (a register saved in
// readOnce), where testing the flag before each call cost 4, and handling the stream's result inline 4 too.
[[gnu::noinline, gnu::cold]] ssize_t Socket::receiveFromMemoryStream(char* buffer, std::size_t room) noexcept {
    return MemoryStream::serving(fd())->receive(buffer, room);
}

[[gnu::noinline, gnu::cold]] long Socket::sendToMemoryStream(std::string_view head, std::string_view tail) noexcept {
    const ssize_t sent = MemoryStream::serving(fd())->send(head, tail);
    if (sent >= 0) return static_cast<long>(sent);
    if (errno == EAGAIN) return 0;
    markBroken();
    return -1;
}

bool Socket::writeSlowly(std::string_view data) {
    if (closed_ || broken_) return false;
    if (data.empty()) return backpressure_.empty();
    if (!backpressure_.empty()) {
        appendBackpressure(data);
        return false;
    }
    std::string_view corked;
    if (isCorked()) {
        std::size_t& used = loop_.corkedBytes();
        if (used + data.size() <= Loop::kCorkBufferBytes) {
            std::memcpy(loop_.corkBuffer() + used, data.data(), data.size());
            used += data.size();
            return true;
        }
        // The cork buffer cannot take it: what it holds and the new bytes leave together, in one syscall.
        corked = {loop_.corkBuffer(), used};
        used = 0;
    }
    long sent = corked.empty() ? sendTwo(data, {}) : sendTwo(corked, data);
    if (sent < 0) return false;
    auto taken = static_cast<std::size_t>(sent);
    if (taken < corked.size()) {
        backpressure_.append(corked.substr(taken));
        backpressure_.append(data);
    } else if (taken - corked.size() < data.size()) {
        backpressure_.append(data.substr(taken - corked.size()));
    }
    if (!backpressure_.empty()) updateWatch();
    return backpressure_.empty();
}

std::size_t Socket::tryWrite(std::string_view data) {
    if (closed_ || broken_ || !backpressure_.empty() || data.empty()) return 0;
    std::string_view corked;
    if (isCorked()) {
        std::size_t& used = loop_.corkedBytes();
        if (used + data.size() <= Loop::kCorkBufferBytes) {
            std::memcpy(loop_.corkBuffer() + used, data.data(), data.size());
            used += data.size();
            return data.size();
        }
        corked = {loop_.corkBuffer(), used};
        used = 0;
    }
    if (tls_.isActive()) return tryWriteEncrypted(corked, data);
    long sent = corked.empty() ? sendRaw(data, {}) : sendRaw(corked, data);
    if (sent < 0) return 0;
    auto taken = static_cast<std::size_t>(sent);
    if (taken < corked.size()) {
        // Bytes already accepted into the cork buffer cannot be taken back: they become backpressure.
        backpressure_.append(corked.substr(taken));
        updateWatch();
        return 0;
    }
    return taken - corked.size();
}

std::size_t Socket::trySendFile(int fileFd, std::uint64_t fileOffset, std::size_t count) {
    LW_CHECK(canSendFile());
    if (closed_ || broken_ || !backpressure_.empty() || count == 0) return 0;
    if (isCorked() && loop_.corkedBytes() > 0) {
        // The response head (or a multipart part's header) must go before the file's bytes: sent now, with
        // MSG_MORE so that it shares a segment with the first of them rather than leaving as a small one.
        const std::string_view corked(loop_.corkBuffer(), loop_.corkedBytes());
        loop_.corkedBytes() = 0;
        ssize_t sent;
        do {
            loop_.countSendCall();
            sent = ::send(fd(), corked.data(), corked.size(), MSG_NOSIGNAL | MSG_MORE);
        } while (sent < 0 && errno == EINTR);
        if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            markBroken();
            return 0;
        }
        const std::size_t taken = sent < 0 ? 0 : static_cast<std::size_t>(sent);
        if (taken < corked.size()) {
            backpressure_.append(corked.substr(taken));
            updateWatch();
            return 0;
        }
    }
    // sendfile(2) moves at most 0x7ffff000 bytes a call.
    constexpr std::size_t kMaxSendFileBytes = 0x7ffff000;
    off_t offset = static_cast<off_t>(fileOffset);
    ssize_t sent;
    {
        // sendfile(2) has no MSG_NOSIGNAL: a peer that reset the connection would raise SIGPIPE, whose default
        // action ends the process (Node ignores it; a C++ program need not). Blocked around the call, and a SIGPIPE
        // this call raised is taken off the thread before the mask is restored.
        sigset_t pipe;
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        sigset_t previous;
        pthread_sigmask(SIG_BLOCK, &pipe, &previous);
        do {
            loop_.countSendCall();
            sent = ::sendfile(fd(), fileFd, &offset, std::min(count, kMaxSendFileBytes));
        } while (sent < 0 && errno == EINTR);
        const int sendError = errno;
        // Not only on EPIPE: a connection reset during a call that sent part of its bytes raises it too. When the
        // thread did not block SIGPIPE before, none was pending then, so one pending now is this call's.
        sigset_t pending;
        if (!sigismember(&previous, SIGPIPE) && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE)) {
            const timespec now{};
            while (sigtimedwait(&pipe, nullptr, &now) == SIGPIPE) {
            }
        }
        pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        errno = sendError;
    }
    if (sent >= 0) return static_cast<std::size_t>(sent);
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    // EINVAL, EIO...: the file's side failed, not the connection; the caller ends the response.
    if (errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN) markBroken();
    return 0;
}

// Records once sealed cannot be taken back (each carries the next sequence number), so a TLS socket that must take
// only what the kernel takes seals a group at a time, sends it, and stops after the first group the kernel did not
// take whole: what waits as backpressure is at most one group's records, not all of data's.
std::size_t Socket::tryWriteEncrypted(std::string_view corked, std::string_view data) noexcept {
    std::size_t taken = 0;
    for (;;) {
        // The corked bytes, accepted already, go first, with the first group.
        const std::string_view group = data.substr(taken, kTlsTryWriteGroupBytes - corked.size());
        {
            RecordBuffer records(loop_);
            if (!tls_.encrypt(corked, records.get()) || !tls_.encrypt(group, records.get())) {
                records.get().clear();
                markBroken();
                return 0;
            }
            if (!sendRecords(records.get(), corked.size() + group.size())) return 0;
        }
        corked = {};
        taken += group.size();
        if (!backpressure_.empty() || taken == data.size()) return taken;
    }
}

void Socket::cork() noexcept {
    if (closed_) return;
    void* owner = loop_.corkOwner();
    if (owner == this) return;
    if (owner != nullptr) static_cast<Socket*>(owner)->uncork();
    loop_.setCorkOwner(this);
    loop_.corkedBytes() = 0;
}

void Socket::uncork() noexcept {
    if (!isCorked()) return;
    std::string_view corked(loop_.corkBuffer(), loop_.corkedBytes());
    loop_.setCorkOwner(nullptr);
    loop_.corkedBytes() = 0;
    if (corked.empty() || closed_ || broken_) return;
    if (!backpressure_.empty()) {
        appendBackpressure(corked);
        return;
    }
    long sent = sendTwo(corked, {});
    if (sent < 0) return;
    if (static_cast<std::size_t>(sent) < corked.size()) {
        backpressure_.append(corked.substr(static_cast<std::size_t>(sent)));
        updateWatch();
    }
    if (shutdownPending_ && backpressure_.empty()) shutdownWrite();
}

long Socket::sendRaw(std::string_view head, std::string_view tail) noexcept {
    for (;;) {
        loop_.countSendCall();
        ssize_t sent;
        if (tail.empty()) {
            sent = direct::send(fd(), head.data(), head.size(), MSG_NOSIGNAL);
        } else {
            iovec parts[2] = {{const_cast<char*>(head.data()), head.size()},
                              {const_cast<char*>(tail.data()), tail.size()}};
            msghdr message{};
            message.msg_iov = parts;
            message.msg_iovlen = 2;
            sent = direct::sendmsg(fd(), &message, MSG_NOSIGNAL);
        }
        if (sent >= 0) return static_cast<long>(sent);
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
        if (errno == ENOTSOCK && inMemory_) [[unlikely]]
            return sendToMemoryStream(head, tail);
        markBroken();
        return -1;
    }
}

long Socket::sendEncrypted(std::string_view head, std::string_view tail) noexcept {
    if (broken_) return -1;
    RecordBuffer records(loop_);
    if (!tls_.encrypt(head, records.get()) || (!tail.empty() && !tls_.encrypt(tail, records.get()))) {
        records.get().clear();
        markBroken();
        return -1;
    }
    if (!sendRecords(records.get(), head.size() + tail.size())) return -1;
    return static_cast<long>(head.size() + tail.size());
}

void Socket::appendBackpressure(std::string_view bytes) {
    if (!tls_.isActive()) {
        backpressure_.append(bytes);
        return;
    }
    // Sealed where they wait: the records go behind those already queued, with no copy on the way.
    if (!tls_.encrypt(bytes, backpressure_)) {
        markBroken();
        return;
    }
    backpressurePlaintext_ += bytes.size();
}

bool Socket::sendRecords(ByteBuffer& records, std::size_t plaintextBytes) noexcept {
    if (records.empty()) return !broken_;
    bool sentAll = true;
    if (broken_ || closed_) {
        sentAll = false;
    } else if (!backpressure_.empty()) {
        backpressure_.append(records.view());
        backpressurePlaintext_ += plaintextBytes;
    } else {
        long sent = sendRaw(records.view(), {});
        if (sent < 0) {
            sentAll = false;
        } else if (static_cast<std::size_t>(sent) < records.size()) {
            const std::size_t unsent = records.size() - static_cast<std::size_t>(sent);
            backpressure_.append(records.view().substr(static_cast<std::size_t>(sent)));
            backpressurePlaintext_ += shareOf(plaintextBytes, unsent, records.size());
            updateWatch();
        }
    }
    records.clear();
    return sentAll;
}

bool Socket::sendCloseNotify() noexcept {
    if (!tls_.isEstablished()) return true;
    RecordBuffer records(loop_);
    if (!tls_.closeNotify(records.get())) return true;
    sendRecords(records.get(), 0);
    return backpressure_.empty();
}

// A failed send must not close the socket from inside the write (the caller may be a handler holding the
// response); the broken socket is closed by the next readiness callback, which epoll and libuv both deliver at
// once for a socket in error.
void Socket::markBroken() noexcept {
    broken_ = true;
    backpressure_.clear();
    backpressurePlaintext_ = 0;
    updateWatch();
    // Edge-triggered, and the events may not have changed (already waiting for room): ask to be reported again,
    // since the kernel may have nothing new to say about a socket whose error it already reported.
    if (!closed_) loop_.rearmWatch(*this);
}

void Socket::requestWritable() noexcept {
    if (closed_ || wantWritable_) return;
    wantWritable_ = true;
    updateWatch();
}

void Socket::pauseReading() noexcept {
    // A lingering socket reads until it closes: input left unread is what would make the kernel send a reset.
    if (readingPaused_ || lingering_) return;
    readingPaused_ = true;
    updateWatch();
}

void Socket::resumeReading() noexcept {
    if (!readingPaused_) return;
    readingPaused_ = false;
    updateWatch();
}

void Socket::updateWatch() noexcept {
    if (closed_) return;
    std::uint32_t events = io::kEdgeTriggered;
    if (!readingPaused_ && !receivedEnd_) events |= io::kReadable;
    if (!backpressure_.empty() || broken_ || wantWritable_) events |= io::kWritable;
    loop_.setWatchedEvents(*this, events);
}

void Socket::shutdownWrite() noexcept {
    if (closed_ || shutdownSent_) return;
    if (isCorked()) uncork();
    if (!backpressure_.empty()) {
        shutdownPending_ = true;
        return;
    }
    if (!sendCloseNotify() && !broken_) {
        // The FIN goes once close_notify has gone too.
        shutdownPending_ = true;
        return;
    }
    shutdownPending_ = false;
    shutdownSent_ = true;
    if (inMemory_) [[unlikely]] {
        MemoryStream::serving(fd())->shutdownSending();
    } else {
        ::shutdown(fd(), SHUT_WR);
    }
    // Both directions are done: nothing is left to wait for.
    if (receivedEnd_) close();
}

void Socket::closeLingering() noexcept {
    if (closed_) return;
    lingering_ = true;
    resumeReading();
    shutdownWrite();
}

void Socket::discardLingering(std::size_t length) noexcept {
    lingerBytes_ += static_cast<std::uint32_t>(std::min(length, kMaxLingerBytes));
    if (lingerBytes_ > kMaxLingerBytes) close();
}

void Socket::close() noexcept {
    if (closed_) return;
    if (isCorked()) {
        std::string_view corked(loop_.corkBuffer(), loop_.corkedBytes());
        loop_.setCorkOwner(nullptr);
        loop_.corkedBytes() = 0;
        if (!broken_ && backpressure_.empty() && !corked.empty()) sendTwo(corked, {});
    }
    // Best effort: a peer that cannot take it now will see the connection end anyway.
    if (!broken_ && backpressure_.empty()) sendCloseNotify();
    closed_ = true;
    int descriptor = fd();
    loop_.unwatch(*this);
    if (inMemory_) [[unlikely]] {
        MemoryStream::serving(descriptor)->closeServerEnd();
    } else {
        ::close(descriptor);
    }
    group_->remove(*this);
    backpressure_.release();
    backpressurePlaintext_ = 0;
    // The TLS session is freed with the socket, after the loop's callbacks: close() may run inside one of its
    // OpenSSL calls (a missing-server-name handler that closes the App during the handshake).
    onClose();
    loop_.deferDelete(this);
}

void Socket::onIo(std::uint32_t events) {
    if (broken_ || (events & io::kError)) {
        close();
        return;
    }
    if (events & io::kWritable) {
        if (!backpressure_.empty()) {
            drainBackpressure();
        } else if (wantWritable_) {
            wantWritable_ = false;
            updateWatch();
            onWritable();
        }
        if (closed_) return;
    }
    if (events & io::kReadable) {
        if (!readingPaused_ && !receivedEnd_) {
            readOnce((events & io::kPeerEnded) != 0);
        } else if (events & io::kHangup) {
            close();
        }
    }
}

// A MemoryStream's descriptor is an eventfd, on which recv(2) fails with ENOTSOCK: a socket on one learns it there
// (see receiveFromMemoryStream). Inlined: as a call, it cost 26 instructions a request.
[[gnu::always_inline]] inline ssize_t Socket::receiveInto(char* buffer, std::size_t room) noexcept {
    for (;;) {
        const ssize_t received = direct::recv(fd(), buffer, room, 0);
        if (received >= 0) [[likely]]
            return received;
        if (errno == EINTR) continue;
        if (errno == ENOTSOCK && inMemory_) [[unlikely]]
            return receiveFromMemoryStream(buffer, room);
        return received;
    }
}

bool Socket::inputWaits() noexcept {
    if (inMemory_) [[unlikely]] {
        return MemoryStream::serving(fd())->hasInput();
    }
    char byte;
    // A peeked byte, or the end of the stream (0), is input the loop has not dispatched yet.
    return ::recv(fd(), &byte, 1, MSG_PEEK | MSG_DONTWAIT) >= 0;
}

void Socket::readOnce(bool peerEnded) {
    if (tls_.isActive()) {
        readEncrypted(peerEnded);
        return;
    }
    // Apart from the fast path, so that a connection past its PROXY header (or without one to wait for) pays one
    // test for it per read and nothing else.
    if (proxy_.awaiting()) [[unlikely]] {
        readBehindProxyHeader(peerEnded);
        return;
    }
    char* buffer = loop_.receiveBuffer();
    const ssize_t received = receiveInto(buffer, Loop::kReceiveBufferBytes);
    if (received > 0) {
        handOver(buffer, static_cast<std::size_t>(received));
        if (!closed_ && (peerEnded || static_cast<std::size_t>(received) == Loop::kReceiveBufferBytes)) {
            readAgainLater();
        }
        return;
    }
    endOfRead(received);
}

void Socket::readBehindProxyHeader(bool peerEnded) {
    char* buffer = loop_.receiveBuffer();
    const std::size_t carried = proxy_.restoreCarried(buffer, Loop::kReceiveBufferBytes);
    const std::size_t room = Loop::kReceiveBufferBytes - carried;
    const ssize_t received = receiveInto(buffer + carried, room);
    if (received > 0) {
        char* data = buffer;
        std::size_t length = carried + static_cast<std::size_t>(received);
        if (readProxyHeader(data, length)) handOver(data, length);
        if (!closed_ && (peerEnded || static_cast<std::size_t>(received) == room)) readAgainLater();
        return;
    }
    endOfRead(received);
}

void Socket::endOfRead(ssize_t received) {
    if (received == 0) {
        endOfStream();
        return;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) return;
    close();
}

void Socket::readEncrypted(bool peerEnded) {
    char* plaintext = loop_.receiveBuffer();
    char* ciphertext = plaintext + kTlsPlaintextBytes;
    const std::size_t carried = proxy_.awaiting() ? proxy_.restoreCarried(ciphertext, kTlsCiphertextBytes) : 0;
    const std::size_t room = kTlsCiphertextBytes - carried;
    const ssize_t received = receiveInto(ciphertext + carried, room);
    if (received == 0) {
        endOfStream();
        return;
    }
    if (received < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK) close();
        return;
    }
    if (lingering_) [[unlikely]] {
        // Discarded unread: the peer's FIN ends a lingering connection, not its close_notify.
        discardLingering(static_cast<std::size_t>(received));
        if (peerEnded || static_cast<std::size_t>(received) == room) readAgainLater();
        return;
    }
    // The PROXY header comes before the handshake: it is read from the ciphertext, and the records follow it.
    std::size_t encrypted = carried + static_cast<std::size_t>(received);
    if (proxy_.awaiting()) {
        const bool forwarded = readProxyHeader(ciphertext, encrypted);
        // A header that came in pieces had the socket's deadline to itself; the handshake's runs from its end.
        if (!closed_ && !proxy_.awaiting()) deadlineMs_ = loop_.timeoutClockMs() + tls_.context()->handshakeTimeoutMs();
        if (!forwarded) {
            if (!closed_ && (peerEnded || static_cast<std::size_t>(received) == room)) readAgainLater();
            return;
        }
    }
    std::size_t plaintextLength = 0;
    const bool wasHandshaking = tls_.isHandshaking();
    TlsSession::ReadResult result;
    {
        RecordBuffer records(loop_);
        result = tls_.decrypt({ciphertext, encrypted}, {plaintext, kTlsPlaintextBytes}, plaintextLength, records.get());
        // Handshake messages, session tickets and alerts the session wrote while reading.
        sendRecords(records.get(), 0);
    }
    if (closed_) return;
    if (result == TlsSession::ReadResult::Failed) {
        close();
        return;
    }
    if (wasHandshaking && tls_.isEstablished()) {
        // The handshake's deadline is over; the layer above sets its own.
        deadlineMs_ = 0;
        onTransportReady();
        if (closed_) {
            // Taken over by the layer's successor (HTTP/2, chosen by ALPN): what this read decrypted is its input.
            if (successor_ != nullptr) {
                Socket& successor = *successor_;
                if (plaintextLength > 0) successor.receive(plaintext, plaintextLength);
                if (successor.closed_) return;
                if (result == TlsSession::ReadResult::PeerClosed) {
                    successor.endOfStream();
                    return;
                }
                if (peerEnded || static_cast<std::size_t>(received) == room) successor.readAgainLater();
            }
            return;
        }
    }
    if (plaintextLength > 0) {
        onData(plaintext, plaintextLength);
        if (closed_) return;
    }
    if (result == TlsSession::ReadResult::PeerClosed) {
        endOfStream();
        return;
    }
    if (peerEnded || static_cast<std::size_t>(received) == room) readAgainLater();
}

bool Socket::readProxyHeader(char*& data, std::size_t& length) {
    std::size_t consumed = 0;
    switch (proxy_.take({data, length}, remoteAddress_, consumed, proxiedAddress_)) {
        case ProxyIntake::Verdict::Wait: {
            // The header must end within the policy's time from the connection's start; the layer above arms its
            // own deadline again once its bytes come.
            const std::uint64_t limit = loop_.timeoutClockMs() + proxy_.policy()->headerTimeoutMs();
            if (deadlineMs_ == 0 || limit < deadlineMs_) deadlineMs_ = limit;
            return false;
        }
        case ProxyIntake::Verdict::Reject:
            close();
            return false;
        case ProxyIntake::Verdict::Pass:
            break;
    }
    data += consumed;
    length -= consumed;
    return length > 0;
}

// The socket is edge-triggered (epoll reports each arrival once instead of polling every ready socket twice per
// wait, once to report it and once to find it drained: 8 % of a hello-world server's CPU went there). One read
// per report is then enough unless something is left that no new arrival will announce: bytes beyond a read
// that filled the buffer, or the end of the stream behind the bytes read (the peer's FIN came with them; recv
// returns the bytes now and 0 only on the next call). Then the socket asks to be reported again. A paused
// socket need not: resuming re-registers it, which polls it too.
void Socket::readAgainLater() noexcept {
    if (!closed_ && !readingPaused_ && !receivedEnd_) loop_.rearmWatch(*this);
}

void Socket::endOfStream() {
    receivedEnd_ = true;
    updateWatch();
    if (shutdownSent_) {
        close();
    } else if (!lingering_) {
        onEnd();
    }
    // A lingering socket's last bytes are still on their way: shutdownWrite() closes it once they and its FIN have
    // gone.
}

bool Socket::drainBackpressure() {
    long sent = sendRaw(backpressure_.view(), {});
    if (sent < 0) {
        close();
        return true;
    }
    if (tls_.isActive()) {
        backpressurePlaintext_ = shareOf(backpressurePlaintext_, backpressure_.size() - static_cast<std::size_t>(sent),
                                         backpressure_.size());
    }
    backpressure_.consume(static_cast<std::size_t>(sent));
    if (!backpressure_.empty()) {
        if (sent > 0) onDrainProgress();
        return sent > 0;
    }
    wantWritable_ = false;
    if (backpressure_.capacity() > kMaxRetainedBackpressureBytes) backpressure_.release();
    updateWatch();
    if (shutdownPending_) {
        shutdownWrite();
        if (closed_) return true;
    }
    onWritable();
    return true;
}

bool Socket::serviceWaitingIo() {
    if (closed_ || broken_) return false;
    bool progressed = false;
    if (!backpressure_.empty()) {
        progressed = drainBackpressure();
    } else if (wantWritable_) {
        pollfd writable{fd(), POLLOUT, 0};
        if (::poll(&writable, 1, 0) == 1 && (writable.revents & POLLOUT) != 0) {
            wantWritable_ = false;
            updateWatch();
            onWritable();
            progressed = true;
        }
    }
    if (closed_) return true;
    if (!readingPaused_ && !receivedEnd_) {
        if (inputWaits()) {
            // Whether the FIN is behind the bytes is not known here: assume it is (one extra poll at most).
            readOnce(true);
            progressed = true;
        }
    }
    return progressed;
}

SocketGroup::SocketGroup(Loop& loop) noexcept : loop_(loop) { loop_.addSweepListener(*this); }

SocketGroup::~SocketGroup() {
    closeAll();
    loop_.removeSweepListener(*this);
}

void SocketGroup::add(Socket& socket) noexcept {
    socket.previousInGroup_ = nullptr;
    socket.nextInGroup_ = head_;
    if (head_ != nullptr) head_->previousInGroup_ = &socket;
    head_ = &socket;
    ++size_;
}

void SocketGroup::remove(Socket& socket) noexcept {
    if (nextToVisit_ == &socket) nextToVisit_ = socket.nextInGroup_;
    if (socket.previousInGroup_ != nullptr) {
        socket.previousInGroup_->nextInGroup_ = socket.nextInGroup_;
    } else {
        head_ = socket.nextInGroup_;
    }
    if (socket.nextInGroup_ != nullptr) socket.nextInGroup_->previousInGroup_ = socket.previousInGroup_;
    socket.previousInGroup_ = socket.nextInGroup_ = nullptr;
    --size_;
}

void SocketGroup::closeAll() noexcept {
    while (head_ != nullptr)
        head_->close();
}

void SocketGroup::onSweep(std::uint64_t timeoutClockMs) {
    for (Socket* socket = head_; socket != nullptr; socket = nextToVisit_) {
        nextToVisit_ = socket->nextInGroup_;
        if (socket->deadlineMs_ != 0 && socket->deadlineMs_ <= timeoutClockMs) {
            socket->deadlineMs_ = 0;
            // A handshake that has not finished in time is the socket's to end: the layer above has not started.
            if (socket->tls_.isHandshaking()) {
                socket->close();
            } else {
                socket->onTimeout();
            }
        }
    }
    nextToVisit_ = nullptr;
}

}  // namespace loopwire
