#include "WebSocketConnection.h"

#include "base/Check.h"
#include "base/Limits.h"
#include "ws/ClosePayload.h"
#include "ws/Deflater.h"
#include "ws/Inflater.h"
#include "ws/ServerFrameHeader.h"
#include "ws/WebSocketContext.h"
#include "ws/WebSocketServer.h"

#include <algorithm>
#include <new>
#include <utility>

namespace loopwire {

namespace {

// After end() (or a close frame that had to wait for backpressure), how long the peer has to answer before the
// connection is closed anyway.
constexpr std::uint64_t kClosingTimeoutMs = 4000;
// A message buffer that grew past this is freed after its message; smaller ones are kept for reuse.
constexpr std::size_t kMaxRetainedMessageBytes = 64 * 1024;

// A compressed message may be slightly longer than its inflated form (stored deflate blocks cost 5 bytes per 64
// KiB, plus the flush): the parser bounds the compressed bytes with this much slack, and the inflater bounds the
// message itself exactly.
std::uint64_t wireLimitFor(std::uint64_t maxPayloadLength, bool compressed) noexcept {
    return compressed ? maxPayloadLength + maxPayloadLength / 1024 + 64 : maxPayloadLength;
}

// The user data starts after the object, at the alignment every allocation has.
constexpr std::size_t kUserDataOffset = (sizeof(WebSocketConnection) + __STDCPP_DEFAULT_NEW_ALIGNMENT__ - 1) /
                                        __STDCPP_DEFAULT_NEW_ALIGNMENT__ * __STDCPP_DEFAULT_NEW_ALIGNMENT__;

// How long before the idle timeout an automatic ping goes out (uWebSockets' margins: a few sweeps, more for a
// longer timeout).
std::uint64_t pingMarginMs(std::uint32_t idleTimeoutSeconds) noexcept {
    if (idleTimeoutSeconds < 16) return 4000;
    if (idleTimeoutSeconds < 32) return 8000;
    return 16000;
}

}  // namespace

WebSocketConnection* WebSocketConnection::create(Socket& predecessor, WebSocketContext& context,
                                                 const ws::DeflateAgreement& agreement) {
    WebSocketEvents& events = context.events();
    LW_CHECK(events.userDataAlignment() <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
    void* memory = ::operator new(kUserDataOffset + events.userDataBytes());
    return new (memory) WebSocketConnection(predecessor, context, agreement);
}

WebSocketConnection::WebSocketConnection(Socket& predecessor, WebSocketContext& context,
                                         const ws::DeflateAgreement& agreement)
    : Socket(predecessor, context.server().sockets()),
      context_(context),
      parser_(wireLimitFor(context.settings().maxPayloadLength, agreement.accepted), agreement.accepted),
      agreement_(agreement) {
    if (std::uint32_t minutes = context.settings().maxLifetime; minutes != 0) {
        lifetimeDeadlineMs_ = loop().timeoutClockMs() + std::uint64_t{minutes} * 60 * 1000;
    }
    restartIdleTimeout();
    armDeadline();
}

WebSocketConnection::~WebSocketConnection() {
    if (userDataConstructed_) context_.events().destroyUserData(userDataStorage());
}

WebSocketServer& WebSocketConnection::server() const noexcept { return context_.server(); }

WebSocketConnection::Extras& WebSocketConnection::extras() {
    if (!extras_) extras_ = std::make_unique<Extras>();
    return *extras_;
}

void* WebSocketConnection::userDataStorage() noexcept { return reinterpret_cast<char*>(this) + kUserDataOffset; }

void WebSocketConnection::open() {
    // The HTTP side may have stopped reading (pipelined bytes it held back, or a paused request): a WebSocket
    // reads.
    if (isReadingPaused()) resumeReading();
    // Still corked with the 101 response: what the open handler sends goes out with it.
    context_.events().open(this);
    if (isCorked()) uncork();
}

// ---- reading ----

void WebSocketConnection::onData(char* data, std::size_t length) {
    bool corkedHere = beginCork();
    pingOutstanding_ = false;
    restartIdleTimeout();
    ws::FrameError error = parser_.parse(data, length, *this);
    if (error != ws::FrameError::None && !isClosed()) fail(ws::closeCode(error), ws::describe(error));
    endCork(corkedHere);
    if (!isClosed()) holdReadingWhileBacklogged();
    armDeadline();
}

std::size_t WebSocketConnection::backlogLimit() const noexcept {
    std::uint32_t limit = context_.settings().maxBackpressure;
    return limit != 0 ? limit : limits::kMaxOutputBacklogBytes;
}

void WebSocketConnection::holdReadingWhileBacklogged() noexcept {
    // One read makes at most about as many bytes of answers as it brought (a pong is never longer than its ping),
    // so the backlog stays within the limit plus one read, however fast the peer sends and however little it reads.
    if (bufferedBytes() <= backlogLimit() || isReadingPaused()) return;
    if (context_.settings().closeOnBackpressureLimit && status_ == Status::Open) {
        changeStatus(Status::Dropping);
        return;
    }
    pauseReading();
}

bool WebSocketConnection::onFrame(const ws::FrameHeader& header) {
    if (isClosed()) return false;
    frameOpcode_ = header.opcode;
    if (ws::isControl(header.opcode)) {
        if (extras_) extras_->control.clear();
        return true;
    }
    frameFin_ = header.fin;
    if (header.opcode != ws::Opcode::Continuation) {
        fragments_ = 1;
        utf8_.reset();
        wholeMessageFrame_ = header.fin && !parser_.messageCompressed();
        return true;
    }
    wholeMessageFrame_ = false;
    if (++fragments_ > limits::kMaxWebSocketFragments) {
        fail(ws::kCloseMessageTooBig, "too many fragments");
        return false;
    }
    return true;
}

bool WebSocketConnection::onPayload(std::string_view payload, bool endsFrame) {
    if (isClosed()) return false;
    if (ws::isControl(frameOpcode_)) {
        if (!endsFrame) {
            extras().control.append(payload);
            return true;
        }
        if (extras_ == nullptr || extras_->control.empty()) return handleControl(payload);
        extras_->control.append(payload);
        return handleControl(extras_->control.view());
    }
    // After our close frame (or while dropping), the peer's data frames are read, its close frame may follow, but
    // they are not delivered.
    if (status_ != Status::Open) return true;
    const bool text = parser_.messageOpcode() == ws::Opcode::Text;
    if (wholeMessageFrame_ && endsFrame && !gatheringMessage()) {
        // The common case: the whole message in this read, delivered where it lies.
        if (text && !Utf8Validator::isValid(payload)) {
            fail(ws::kCloseInvalidPayload, "invalid UTF-8");
            return false;
        }
        return deliverMessage(payload);
    }
    const bool compressed = parser_.messageCompressed();
    if (text && !compressed && !utf8_.feed(payload)) {
        // Fails at the first invalid byte, whatever the fragment or read it lies in.
        fail(ws::kCloseInvalidPayload, "invalid UTF-8");
        return false;
    }
    ByteBuffer& message = extras().message;
    message.append(payload);
    if (!endsFrame || !frameFin_) return true;
    if (!compressed) {
        if (text && !utf8_.isComplete()) {
            fail(ws::kCloseInvalidPayload, "invalid UTF-8");
            return false;
        }
        bool goOn = deliverMessage(message.view());
        message.clear();
        if (message.capacity() > kMaxRetainedMessageBytes) message.release();
        return goOn;
    }
    ws::Inflater* decompressor = inflater();
    ByteBuffer& inflated = server().inflateScratch();
    inflated.clear();
    const std::size_t limit = context_.settings().maxPayloadLength;
    ws::Inflater::Result result = ws::Inflater::Result::Corrupt;
    if (decompressor != nullptr) {
        result = decompressor->add(message.view(), inflated, limit);
        // finish() also readies the inflater for the next message after an error (a shared one serves others).
        ws::Inflater::Result finished = decompressor->finish(inflated, limit);
        if (result == ws::Inflater::Result::Ok) result = finished;
    }
    message.clear();
    if (message.capacity() > kMaxRetainedMessageBytes) message.release();
    if (result == ws::Inflater::Result::TooBig) {
        fail(ws::kCloseMessageTooBig, "message too big");
        return false;
    }
    if (result != ws::Inflater::Result::Ok) {
        fail(ws::kCloseInvalidPayload, "invalid compressed data");
        return false;
    }
    if (text && !Utf8Validator::isValid(inflated.view())) {
        fail(ws::kCloseInvalidPayload, "invalid UTF-8");
        return false;
    }
    bool goOn = deliverMessage(inflated.view());
    server().trimScratch();
    return goOn;
}

bool WebSocketConnection::deliverMessage(std::string_view message) {
    context_.events().message(this, message, parser_.messageOpcode());
    return !isClosed();
}

bool WebSocketConnection::handleControl(std::string_view payload) {
    switch (frameOpcode_) {
        case ws::Opcode::Ping:
            if (status_ != Status::Open) return true;
            writeFrame(ws::Opcode::Pong, payload, true, false);
            context_.events().ping(this, payload);
            return !isClosed();
        case ws::Opcode::Pong:
            if (status_ != Status::Open) return true;
            context_.events().pong(this, payload);
            return !isClosed();
        case ws::Opcode::Close: {
            ws::ClosePayload received = ws::ClosePayload::read(payload);
            if (received.failCode != 0) {
                fail(received.failCode, received.failCode == ws::kCloseInvalidPayload ? "invalid UTF-8 in close reason"
                                                                                      : "invalid close code");
                return false;
            }
            if (status_ == Status::Open) {
                // The echo carries the peer's code and reason (nothing for a close frame without a code), as
                // RFC 6455 section 5.5.1 suggests; then the server closes the TCP connection first.
                sendCloseFrame(received.code, received.reason, received.code);
            } else if (status_ == Status::Dropping) {
                // Nothing more is written to a peer that has not read what waits: the close handler, and the end.
                changeStatus(Status::Closed, received.code, received.reason);
                close();
            }
            if (isClosed()) return false;
            if (isCorked()) uncork();
            if (bufferedBytes() == 0) {
                close();
            } else {
                shutdownWrite();
                closingDeadlineMs_ = loop().timeoutClockMs() + kClosingTimeoutMs;
            }
            return false;
        }
        default:
            return true;
    }
}

void WebSocketConnection::fail(std::uint16_t code, std::string_view reason) {
    if (isClosed() || isLingering()) return;
    if (status_ == Status::Dropping) {
        // Nothing more is written to a peer that has not read what waits: the close handler, and the end.
        changeStatus(Status::Closed, code, reason);
        close();
        return;
    }
    if (status_ == Status::Open) sendCloseFrame(code, reason, code);
    // The peer is likely still sending (it broke the protocol mid-stream): closing now would reset the connection
    // and destroy the close frame before the peer reads it. It ends when the peer's FIN comes, when the linger's
    // byte bound is passed, or at the closing deadline.
    closeLingering();
    if (isClosed()) return;
    closingDeadlineMs_ = loop().timeoutClockMs() + kClosingTimeoutMs;
    armDeadline();
}

void WebSocketConnection::sendCloseFrame(std::uint16_t code, std::string_view reason, int handlerCode) {
    LW_CHECK(status_ == Status::Open || status_ == Status::Dropping);
    char payload[2 + ws::kMaxCloseReasonBytes];
    // A code that may not travel (0, 1005, 1006, 1015, or one no endpoint may send) becomes a close frame without
    // a code, which the peer reads as 1005: a frame the peer would fail the connection for is never sent.
    std::uint16_t wireCode = ws::ClosePayload::isWritableCode(code) ? code : 0;
    std::size_t bytes = ws::ClosePayload::write(wireCode, reason, payload);
    writeFrame(ws::Opcode::Close, {payload, bytes}, true, false);
    changeStatus(Status::Closing, handlerCode, reason);
}

void WebSocketConnection::onEnd() {
    // The peer's FIN: it will send nothing more, and a WebSocket has no use for half a connection.
    close();
}

// ---- writing ----

bool WebSocketConnection::beginCork() {
    if (isClosed() || isCorked()) return false;
    cork();
    return true;
}

void WebSocketConnection::endCork(bool corkedHere) {
    if (corkedHere) uncork();
}

void WebSocketConnection::writeFrame(ws::Opcode opcode, std::string_view payload, bool fin, bool compressed) {
    char header[ws::kMaxServerHeaderBytes];
    std::size_t headerBytes = ws::writeServerHeader(header, opcode, payload.size(), fin, compressed);
    // Header and payload leave together: corked, they join the batch; otherwise they are corked for the pair.
    bool corkedHere = beginCork();
    write({header, headerBytes});
    write(payload);
    endCork(corkedHere);
}

SendStatus WebSocketConnection::statusAfterWrite() const noexcept {
    if (isClosed()) return SendStatus::Dropped;
    return bufferedBytes() > 0 ? SendStatus::Backpressure : SendStatus::Success;
}

bool WebSocketConnection::admit(std::string_view message, OpCode opCode) {
    if (status_ == Status::Open) {
        const std::uint32_t limit = context_.settings().maxBackpressure;
        std::size_t held = extras_ != nullptr ? extras_->held.size() : 0;
        if (limit == 0 || bufferedUserBytes() + held <= limit) return true;
    } else if (status_ != Status::Dropping) {
        return false;
    }
    // As in uWebSockets, every message dropped for backpressure is reported, also while the connection waits to be
    // closed for it.
    context_.events().dropped(this, message, opCode);
    if (context_.settings().closeOnBackpressureLimit && status_ == Status::Open) changeStatus(Status::Dropping);
    return false;
}

SendStatus WebSocketConnection::sendMessage(std::string_view message, OpCode opCode, bool compress) {
    if (closedForApplication()) return SendStatus::Dropped;
    if (opCode == OpCode::Ping) return sendPing(message);
    OpCode opcode = opCode;
    if (opCode != OpCode::Text && opCode != OpCode::Binary && opCode != OpCode::Pong) opcode = OpCode::Binary;
    // A whole message inside a fragmented one would end it for the peer: refused (a programmer error).
    if (sendingFragments_ && opcode != OpCode::Pong) return SendStatus::Dropped;
    // What was published before this send reaches the peer before it.
    server().drainTopics();
    if (!admit(message, opCode)) return SendStatus::Dropped;
    std::string_view payload = message;
    bool compressed = false;
    if (compress && agreement_.accepted && !message.empty() && opcode != ws::Opcode::Pong) {
        ByteBuffer& out = server().deflateScratch();
        out.clear();
        if (ws::Deflater* compressor = deflater(); compressor != nullptr && compressor->compress(message, out)) {
            payload = out.view();
            compressed = true;
        }
    }
    if (opcode == ws::Opcode::Pong && payload.size() > ws::kMaxControlPayloadBytes) {
        payload = payload.substr(0, ws::kMaxControlPayloadBytes);
    }
    writeFrame(opcode, payload, true, compressed);
    if (compressed) server().trimScratch();
    if (context_.settings().resetIdleTimeoutOnSend) {
        restartIdleTimeout();
        armDeadline();
    }
    return statusAfterWrite();
}

SendStatus WebSocketConnection::sendFragment(std::string_view fragment, OpCode opCode, bool first, bool last) {
    if (closedForApplication()) return SendStatus::Dropped;
    // Fragments out of order would put a frame sequence on the wire that the peer must fail: a first fragment
    // inside a message, or a later one outside any. Refused (programmer errors), the message left as it was.
    if (first == sendingFragments_) return SendStatus::Dropped;
    if (first) server().drainTopics();
    if (!admit(fragment, opCode)) return SendStatus::Dropped;
    ws::Opcode opcode = ws::Opcode::Continuation;
    if (first) opcode = opCode == OpCode::Text ? ws::Opcode::Text : ws::Opcode::Binary;
    sendingFragments_ = !last;
    writeFrame(opcode, fragment, last, false);
    if (last && extras_ != nullptr && !extras_->held.empty()) {
        // What was published while the message was being sent follows it.
        write(extras_->held.view());
        extras_->held.clear();
        if (extras_->held.capacity() > kMaxRetainedMessageBytes) extras_->held.release();
    }
    if (context_.settings().resetIdleTimeoutOnSend) {
        restartIdleTimeout();
        armDeadline();
    }
    return statusAfterWrite();
}

SendStatus WebSocketConnection::sendPing(std::string_view message) {
    if (!admit(message, OpCode::Ping)) return SendStatus::Dropped;
    if (message.size() > ws::kMaxControlPayloadBytes) message = message.substr(0, ws::kMaxControlPayloadBytes);
    writeFrame(ws::Opcode::Ping, message, true, false);
    return statusAfterWrite();
}

bool WebSocketConnection::deliverPublished(std::string_view frames, std::string_view payload, OpCode opCode) {
    if (!admit(payload, opCode)) return false;
    if (sendingFragments_) {
        // Inside the fragmented message the frames would corrupt it: they wait for its last fragment (a copy, on
        // this rare path only).
        extras().held.append(frames);
        return true;
    }
    write(frames);
    return true;
}

void WebSocketConnection::closeIfDropping() noexcept {
    if (status_ == Status::Dropping && !isClosed()) close();
}

bool WebSocketConnection::takesSharedCompressedFrames() const noexcept {
    return agreement_.accepted && agreement_.serverNoContextTakeover &&
           agreement_.serverMaxWindowBits >= WebSocketServer::kPublishWindowBits;
}

void WebSocketConnection::onWritable() {
    if (status_ != Status::Open) return;
    // The peer has read what waited for it: its frames are read again.
    if (isReadingPaused()) resumeReading();
    bool corkedHere = beginCork();
    context_.events().drain(this);
    endCork(corkedHere);
}

// ---- closing ----

void WebSocketConnection::end(int code, std::string_view reason) {
    if (closedForApplication()) return;
    if (status_ == Status::Dropping) {
        // A close frame would wait behind what the peer has not read: the close handler, and the end, now.
        changeStatus(Status::Closed, code, reason);
        close();
        return;
    }
    server().drainTopics();
    // The close handler gets the code as given, 0 included, as in uWebSockets; the frame carries it only when it
    // may travel (see sendCloseFrame).
    auto wireCode = static_cast<std::uint16_t>(code >= 0 && code <= 0xFFFF ? code : 0);
    sendCloseFrame(wireCode, reason, code);
    if (isClosed()) return;
    closingDeadlineMs_ = loop().timeoutClockMs() + kClosingTimeoutMs;
    armDeadline();
}

void WebSocketConnection::changeStatus(Status next, int code, std::string_view reason) {
    LW_CHECK(next > status_);
    const Status previous = std::exchange(status_, next);
    if (next == Status::Dropping) {
        // Nothing more is read from a peer that does not read: the connection ends after the current batch.
        if (!isReadingPaused()) pauseReading();
        server().closeAfterBatch(*this);
        return;
    }
    if (previous == Status::Open || previous == Status::Dropping) runCloseHandler(code, reason);
}

void WebSocketConnection::runCloseHandler(int code, std::string_view reason) {
    WebSocketEvents& events = context_.events();
    // As uWebSockets does: the subscriptions end (with their events) before the close handler runs.
    server().topics().remove(this, [this](std::string_view topic, TopicTree<WebSocketConnection>::Change change) {
        reportSubscription(topic, change);
    });
    events.close(this, code, reason);
    if (userDataConstructed_) {
        userDataConstructed_ = false;
        events.destroyUserData(userDataStorage());
    }
}

void WebSocketConnection::onClose() {
    if (status_ != Status::Closed) changeStatus(Status::Closed, ws::kCloseAbnormal);
}

// ---- timeouts ----

void WebSocketConnection::restartIdleTimeout() noexcept {
    const WebSocketSettings& settings = context_.settings();
    if (settings.idleTimeout == 0) return;
    std::uint64_t timeoutMs = std::uint64_t{settings.idleTimeout} * 1000;
    // With automatic pings, the ping goes out a margin before the timeout, and the pong has the margin to come.
    if (settings.sendPingsAutomatically) timeoutMs -= pingMarginMs(settings.idleTimeout);
    idleDeadlineMs_ = loop().timeoutClockMs() + timeoutMs;
}

void WebSocketConnection::armDeadline() noexcept {
    if (isClosed()) return;
    std::uint64_t deadline = 0;
    for (std::uint64_t candidate : {idleDeadlineMs_, lifetimeDeadlineMs_, closingDeadlineMs_}) {
        if (candidate != 0 && (deadline == 0 || candidate < deadline)) deadline = candidate;
    }
    setDeadline(deadline);
}

void WebSocketConnection::onTimeout() {
    // Input the loop has not read yet (the sweep may come first after the loop was blocked) is not idleness.
    if (serviceWaitingIo()) {
        if (!isClosed()) armDeadline();
        if (isClosed() || deadline() > loop().timeoutClockMs()) return;
    }
    const std::uint64_t now = loop().timeoutClockMs();
    if (closingDeadlineMs_ != 0 && closingDeadlineMs_ <= now) {
        close();
        return;
    }
    if (lifetimeDeadlineMs_ != 0 && lifetimeDeadlineMs_ <= now) {
        lifetimeDeadlineMs_ = 0;
        end(ws::kCloseNormal, "please reconnect");
        return;
    }
    if (idleDeadlineMs_ != 0 && idleDeadlineMs_ <= now) {
        const WebSocketSettings& settings = context_.settings();
        if (settings.sendPingsAutomatically && !pingOutstanding_ && status_ == Status::Open) {
            pingOutstanding_ = true;
            writeFrame(ws::Opcode::Ping, {}, true, false);
            idleDeadlineMs_ = now + pingMarginMs(settings.idleTimeout);
            armDeadline();
            return;
        }
        // Silent for the whole idle timeout: the peer is gone.
        if (!closedForApplication()) {
            changeStatus(Status::Closed, ws::kCloseAbnormal, "WebSocket timed out from inactivity");
        }
        close();
        return;
    }
    armDeadline();
}

// ---- pub/sub ----

bool WebSocketConnection::subscribe(std::string_view topic) {
    if (closedForApplication()) return false;
    return reportSubscription(topic, server().topics().subscribe(this, topic));
}

bool WebSocketConnection::unsubscribe(std::string_view topic) {
    if (closedForApplication()) return false;
    return reportSubscription(topic, server().topics().unsubscribe(this, topic));
}

bool WebSocketConnection::reportSubscription(std::string_view topic, TopicTree<WebSocketConnection>::Change change) {
    server().subscriptionChanged(topic, change);
    if (change.changed && context_.events().wantsSubscriptionEvents()) {
        context_.events().subscription(this, topic, static_cast<int>(change.newCount),
                                       static_cast<int>(change.oldCount));
    }
    return change.changed;
}

// ---- compression ----

ws::Deflater* WebSocketConnection::deflater() {
    // A dedicated compressor keeps its context unless the client asked it not to; without one (shared, or none
    // configured) the loop's shared compressor serves, which keeps none.
    if (!context_.hasDedicatedCompressor()) return server().sharedDeflater(agreement_.serverMaxWindowBits);
    std::unique_ptr<ws::Deflater>& deflater = extras().deflater;
    if (!deflater) {
        deflater =
            std::make_unique<ws::Deflater>(agreement_.serverMaxWindowBits, context_.dedicatedCompressorMemLevel(),
                                           !agreement_.serverNoContextTakeover);
    }
    return deflater->ready() ? deflater.get() : nullptr;
}

ws::Inflater* WebSocketConnection::inflater() {
    // Without a dedicated decompressor the client agreed to keep no context, so the loop's one inflater (with the
    // widest window, which decodes any narrower one) serves every connection: a message is inflated whole.
    if (!context_.hasDedicatedDecompressor()) return server().sharedInflater();
    std::unique_ptr<ws::Inflater>& inflater = extras().inflater;
    if (!inflater) {
        inflater = std::make_unique<ws::Inflater>(agreement_.clientMaxWindowBits, !agreement_.clientNoContextTakeover);
    }
    return inflater->ready() ? inflater.get() : nullptr;
}

std::string_view WebSocketConnection::remoteAddressText() const noexcept {
    // Formatted on demand rather than kept: 46 bytes in every idle connection for a call most never get.
    thread_local char text[SocketAddress::kMaxTextLength];
    return remoteAddress().toText(text);
}

}  // namespace loopwire
