// One HTTP/2 server connection; see Http2Connection.h.
//
// Streams are found by a walk over the active ones, not a map: a connection has at most kMaxConcurrentStreams, and
// a client with many in flight (h2load -m10, a browser loading a page) has tens. Stream objects are kept for reuse
// once finished, so a warm connection allocates nothing per request.
//
// The state of a stream id not in active_ follows from lastStreamId_: above it, idle (never opened); at or below it,
// closed (finished, reset or refused). RFC 9113 section 5.1 decides each frame's fate from that.
#include "Http2Connection.h"

#include "Http2Server.h"
#include "RequestHeadBuilder.h"
#include "base/Check.h"
#include "http/HttpServer.h"

#include <algorithm>
#include <utility>
#include <cstring>

namespace loopwire::h2 {

namespace {

constexpr std::size_t kSettingBytes = 6;
constexpr std::size_t kWindowUpdateBytes = 4;
constexpr std::size_t kGoAwayBytes = 8;
constexpr std::size_t kPingBytes = 8;

char* writeUint32(char* out, std::uint32_t value) noexcept {
    out[0] = static_cast<char>(value >> 24);
    out[1] = static_cast<char>(value >> 16);
    out[2] = static_cast<char>(value >> 8);
    out[3] = static_cast<char>(value);
    return out + 4;
}

char* writeSetting(char* out, SettingId id, std::uint32_t value) noexcept {
    out[0] = static_cast<char>(static_cast<std::uint16_t>(id) >> 8);
    out[1] = static_cast<char>(static_cast<std::uint16_t>(id));
    return writeUint32(out + 2, value);
}

const unsigned char* bytesOf(std::string_view payload) noexcept {
    return reinterpret_cast<const unsigned char*>(payload.data());
}

}  // namespace

Http2Connection::Http2Connection(Http2Server& owner, Socket& predecessor) noexcept
    : Socket(predecessor, owner.connections()),
      owner_(owner),
      reader_(kMaxHeaderBlockBytes),
      decoder_(kDefaultHpackTableLimit, kMaxHeaderListBytes),
      inheritedCork_(isCorked()) {}

Http2Connection::~Http2Connection() = default;

HttpServer& Http2Connection::server() const noexcept { return owner_.http(); }

void Http2Connection::start() {
    const bool corkedHere = corkIfNeeded();
    char frame[kFrameHeaderBytes + 3 * kSettingBytes];
    char* at = writeFrameHeader(frame, 3 * kSettingBytes, FrameType::Settings, 0, 0);
    at = writeSetting(at, SettingId::MaxConcurrentStreams, kMaxConcurrentStreams);
    at = writeSetting(at, SettingId::MaxHeaderListSize, kMaxHeaderListBytes);
    at = writeSetting(at, SettingId::EnablePush, 0);
    write({frame, static_cast<std::size_t>(at - frame)});
    writeWindowUpdate(0, static_cast<std::uint32_t>(kConnectionReceiveWindow - kDefaultWindow));
    receiveWindow_ = kConnectionReceiveWindow;
    if (corkedHere) uncork();
    updateDeadline();
}

bool Http2Connection::corkIfNeeded() noexcept {
    if (isCorked()) return false;
    cork();
    return true;
}

// ---- reading ----

void Http2Connection::onData(char* data, std::size_t length) {
    const bool corkedHere = corkIfNeeded();
    if (pending_.empty()) {
        const std::size_t consumed = process(data, length);
        if (consumed < length && !isClosed()) pending_.append({data + consumed, length - consumed});
    } else {
        pending_.append({data, length});
        pending_.consume(process(pending_.data(), pending_.size()));
    }
    // A cork taken over from the HTTP/1.1 connection (prior knowledge, found inside its read) ends here too.
    if ((corkedHere || std::exchange(inheritedCork_, false)) && !isClosed()) uncork();
    if (!isClosed()) updateDeadline();
}

std::size_t Http2Connection::process(char* data, std::size_t length) {
    std::size_t at = 0;
    if (!prefaceReceived_) {
        const std::size_t compared = std::min(length, kConnectionPreface.size());
        if (std::string_view(data, compared) != kConnectionPreface.substr(0, compared)) {
            connectionError(ErrorCode::ProtocolError);
            return length;
        }
        if (compared < kConnectionPreface.size()) return 0;
        prefaceReceived_ = true;
        at = kConnectionPreface.size();
    }
    ++processingDepth_;
    while (at < length && !isClosed() && !isLingering()) {
        const FrameRead read = reader_.read(data + at, length - at);
        if (read.status == ReadStatus::NeedMore) break;
        if (read.status == ReadStatus::ConnectionError) {
            connectionError(read.error);
            at = length;
            break;
        }
        at += read.consumed;
        if (!settingsReceived_ && read.frame.header.frameType() != FrameType::Settings) {
            // RFC 9113 section 3.4: the client's preface ends with a SETTINGS frame.
            connectionError(ErrorCode::ProtocolError);
            at = length;
            break;
        }
        if (read.status == ReadStatus::StreamError) {
            streamError(read.frame.header.streamId, read.error);
            continue;
        }
        handleFrame(read.frame);
    }
    --processingDepth_;
    if (isLingering()) return length;
    closeIfDone();
    return at;
}

void Http2Connection::handleFrame(const Frame& frame) {
    if (frame.header.type > kLastKnownFrameType) {
        spendControlFrame();  // an extension's: ignored (RFC 9113 section 5.5), but not for free
        return;
    }
    switch (frame.header.frameType()) {
        case FrameType::Headers:
            onHeaders(frame);
            break;
        case FrameType::Data:
            onDataFrame(frame);
            break;
        case FrameType::Settings:
            onSettings(frame);
            break;
        case FrameType::Ping:
            onPing(frame);
            break;
        case FrameType::WindowUpdate:
            onWindowUpdate(frame);
            break;
        case FrameType::RstStream:
            onRstStream(frame);
            break;
        case FrameType::GoAway:
            onGoAway(frame);
            break;
        case FrameType::Priority:
            // Priorities are deprecated (RFC 9113 section 5.3.2) and ignored, but a stream may not depend on itself.
            if (!spendControlFrame()) return;
            if (frame.dependency == frame.header.streamId) streamError(frame.header.streamId, ErrorCode::ProtocolError);
            break;
        case FrameType::PushPromise:
        case FrameType::Continuation:
            break;  // FrameReader refuses them
    }
}

void Http2Connection::onSettings(const Frame& frame) {
    if (!spendControlFrame() || frame.header.has(flags::kAck)) return;
    settingsReceived_ = true;
    const unsigned char* at = bytesOf(frame.payload);
    for (std::size_t i = 0; i < frame.payload.size(); i += kSettingBytes) {
        const auto id = static_cast<SettingId>((at[i] << 8) | at[i + 1]);
        const std::uint32_t value = readUint32(at + i + 2);
        switch (id) {
            case SettingId::EnablePush:
                if (value > 1) return connectionError(ErrorCode::ProtocolError);
                break;
            case SettingId::InitialWindowSize: {
                if (value > kMaxWindow) return connectionError(ErrorCode::FlowControlError);
                const std::int64_t delta = std::int64_t{value} - peer_.initialWindowSize;
                for (Http2Stream* stream : active_) {
                    if (stream->sendWindow() + delta > kMaxWindow) return connectionError(ErrorCode::FlowControlError);
                    stream->sendWindow() += delta;
                }
                peer_.initialWindowSize = value;
                break;
            }
            case SettingId::MaxFrameSize:
                if (value < kDefaultMaxFrameSize || value > kLargestMaxFrameSize)
                    return connectionError(ErrorCode::ProtocolError);
                peer_.maxFrameSize = value;
                break;
            case SettingId::EnableConnectProtocol:
                if (value > 1) return connectionError(ErrorCode::ProtocolError);
                break;
            case SettingId::HeaderTableSize:
                encoderTable_.setPeerLimit(value);
                break;
            default:
                break;  // the rest is about streams a server does not open
        }
    }
    if (bufferedBytes() > kMaxOutputBacklogBytes) return connectionError(ErrorCode::EnhanceYourCalm);
    char ack[kFrameHeaderBytes];
    writeFrameHeader(ack, 0, FrameType::Settings, flags::kAck, 0);
    write({ack, sizeof ack});
    resumeStreams();  // a larger initial window may let waiting streams go on
}

void Http2Connection::onPing(const Frame& frame) {
    if (!spendControlFrame() || frame.header.has(flags::kAck)) return;
    // An answer the client does not read would pile up: a client that pings without reading is ended.
    if (bufferedBytes() > kMaxOutputBacklogBytes) return connectionError(ErrorCode::EnhanceYourCalm);
    char pong[kFrameHeaderBytes + kPingBytes];
    writeFrameHeader(pong, kPingBytes, FrameType::Ping, flags::kAck, 0);
    std::memcpy(pong + kFrameHeaderBytes, frame.payload.data(), kPingBytes);
    write({pong, sizeof pong});
}

void Http2Connection::onWindowUpdate(const Frame& frame) {
    const std::uint32_t increment = readUint32(bytesOf(frame.payload)) & 0x7fffffffu;
    const std::uint32_t id = frame.header.streamId;
    // An increment of 0 is an error whatever the stream's state (RFC 9113 section 6.9).
    if (increment == 0 && id != 0 && id <= lastStreamId_) return streamError(id, ErrorCode::ProtocolError);
    if (id == 0) {
        if (increment == 0) return connectionError(ErrorCode::ProtocolError);
        if (sendWindow_ + increment > kMaxWindow) return connectionError(ErrorCode::FlowControlError);
        sendWindow_ += increment;
        resumeStreams();
        return;
    }
    Http2Stream* stream = find(id);
    if (stream == nullptr) {
        if (id > lastStreamId_) connectionError(ErrorCode::ProtocolError);  // idle
        return;                                                             // closed: ignored
    }
    if (increment == 0) return streamError(id, ErrorCode::ProtocolError);
    if (stream->sendWindow() + increment > kMaxWindow) return streamError(id, ErrorCode::FlowControlError);
    stream->sendWindow() += increment;
    stream->resumeOutput();
    streamChanged(*stream);
}

void Http2Connection::onRstStream(const Frame& frame) {
    const std::uint32_t id = frame.header.streamId;
    Http2Stream* stream = find(id);
    if (stream == nullptr) {
        if (id > lastStreamId_) connectionError(ErrorCode::ProtocolError);  // idle
        return;
    }
    const bool early = !stream->responseComplete();
    stream->abort();
    removeStream(*stream);
    if (early) spendReset();  // rapid reset: a stream opened and reset before its answer
}

void Http2Connection::onGoAway(const Frame&) {
    // The client opens no more streams; those in flight finish, and the connection closes when they are done.
    peerGoingAway_ = true;
}

void Http2Connection::onHeaders(const Frame& frame) {
    const std::uint32_t id = frame.header.streamId;
    const bool endStream = frame.header.has(flags::kEndStream);
    if (Http2Stream* stream = find(id)) {
        // Trailers: they end the request's body, carry no pseudo-header, and are not delivered.
        bool malformed = false;
        if (!decodeDiscarding(frame.payload, true, malformed)) return;
        if (stream->requestEnded()) return streamError(id, ErrorCode::StreamClosed);
        if (!endStream || malformed) return streamError(id, ErrorCode::ProtocolError);
        if (!stream->countBody(0, true)) return streamError(id, ErrorCode::ProtocolError);
        stream->receiveBody({}, true);
        streamChanged(*stream);
        return;
    }
    if (id <= lastStreamId_ || (id & 1) == 0) {
        bool malformed = false;
        if (!decodeDiscarding(frame.payload, false, malformed)) return;
        // A closed stream (STREAM_CLOSED), or a stream id a client may not use (RFC 9113 section 5.1.1).
        return connectionError((id & 1) == 0 ? ErrorCode::ProtocolError : ErrorCode::StreamClosed);
    }
    lastStreamId_ = id;
    startStream(frame);
}

bool Http2Connection::decodeDiscarding(std::string_view block, bool trailers, bool& malformed) {
    decoder_.begin(block, owner_.decodeScratch());
    DecodedField field;
    HpackStatus status;
    while ((status = decoder_.next(field)) == HpackStatus::Field) {
        if (trailers && !field.name.empty() && field.name[0] == ':') malformed = true;
    }
    if (status != HpackStatus::End) {
        connectionError(ErrorCode::CompressionError);
        return false;
    }
    return true;
}

void Http2Connection::startStream(const Frame& frame) {
    const std::uint32_t id = frame.header.streamId;
    const bool endStream = frame.header.has(flags::kEndStream);
    HttpServer& http = server();
    RequestHead& head = http.beginProcessing();
    RequestHeadBuilder builder;
    builder.begin(head, owner_.cookieScratch(), Http2Server::kCookieScratchBytes, false);
    decoder_.begin(frame.payload, owner_.decodeScratch());
    DecodedField field;
    HpackStatus status;
    while ((status = decoder_.next(field)) == HpackStatus::Field)
        builder.add(field);
    if (status != HpackStatus::End) {
        http.endProcessing();
        return connectionError(ErrorCode::CompressionError);
    }
    const RequestFieldError error = builder.finish(!endStream);
    const bool tooLarge = decoder_.listTooLarge() || error == RequestFieldError::TooManyFields;
    if (frame.dependency == id || (!tooLarge && error != RequestFieldError::None)) {
        // Malformed (RFC 9113 section 8.1.1): a stream error, never a response.
        http.endProcessing();
        return streamError(id, ErrorCode::ProtocolError);
    }
    if (active_.size() >= kMaxConcurrentStreams || goAwaySent_) {
        http.endProcessing();
        writeReset(id, ErrorCode::RefusedStream);
        spendReset();
        return;
    }
    Http2Stream& stream = acquireStream();
    stream.begin(id, endStream, head.method == "HEAD", peer_.initialWindowSize);
    stream.expectBodyLength(builder.contentLength());
    if (endStream && !stream.countBody(0, true)) {
        http.endProcessing();
        stream.release();
        removeStream(stream);
        return streamError(id, ErrorCode::ProtocolError);
    }
    if (tooLarge) {
        http.endProcessing();
        stream.writeStatusLine("431 Request Header Fields Too Large");
        stream.endResponse({}, false);
        streamChanged(stream);
        return;
    }
    const bool handled = http.dispatch(stream, head);
    http.endProcessing();
    if (!stream.responseComplete()) {
        if (!handled) {
            if (!stream.hasWrittenStatus()) {
                stream.writeStatusLine("404 Not Found");
                stream.writeHeaderField("content-type", "text/plain");
                stream.endResponse("Not Found", false);
            } else {
                stream.endResponse({}, false);
            }
        } else if (!stream.onAborted_) {
            // As on HTTP/1.1: a handler that neither answered nor registered onAborted gets a 500 for it.
            http.reportUnansweredRequest();
            if (!stream.hasWrittenStatus()) {
                stream.writeStatusLine("500 Internal Server Error");
                stream.endResponse({}, false);
            } else {
                stream.closeNow();
            }
        }
    }
    if (endStream) stream.receiveBody({}, true);
    streamChanged(stream);
}

void Http2Connection::onDataFrame(const Frame& frame) {
    const std::uint32_t id = frame.header.streamId;
    if (frame.header.length == 0 && !frame.header.has(flags::kEndStream) && !spendControlFrame()) return;
    const std::int64_t length = frame.header.length;  // padding included: flow control counts it
    if (length > receiveWindow_) return connectionError(ErrorCode::FlowControlError);
    receiveWindow_ -= length;
    Http2Stream* stream = find(id);
    if (stream == nullptr) {
        if (id > lastStreamId_) return connectionError(ErrorCode::ProtocolError);  // idle
        connectionConsumed(length);  // the connection's window counts it all the same
        return streamError(id, ErrorCode::StreamClosed);
    }
    if (stream->requestEnded()) {
        connectionConsumed(length);
        return streamError(id, ErrorCode::StreamClosed);
    }
    if (length > stream->receiveWindow()) return streamError(id, ErrorCode::FlowControlError);
    stream->receiveWindow() -= length;
    const bool ended = frame.header.has(flags::kEndStream);
    if (!stream->countBody(frame.payload.size(), ended)) return streamError(id, ErrorCode::ProtocolError);
    // Padding is consumed at once; the data when the handler has taken it.
    const std::size_t padding = static_cast<std::size_t>(length) - frame.payload.size();
    if (padding != 0) bodyConsumed(*stream, padding);
    stream->receiveBody(frame.payload, ended);
    streamChanged(*stream);
}

void Http2Connection::bodyConsumed(Http2Stream& stream, std::size_t bytes) {
    if (bytes == 0) return;
    stream.receiveConsumed() += static_cast<std::int64_t>(bytes);
    // The stream's window opens again only for a handler still reading the body.
    if (!stream.requestEnded() && !stream.responseComplete() && stream.receiveConsumed() >= kStreamWindowUpdateBytes) {
        writeWindowUpdate(stream.id(), static_cast<std::uint32_t>(stream.receiveConsumed()));
        stream.receiveWindow() += stream.receiveConsumed();
        stream.receiveConsumed() = 0;
    }
    connectionConsumed(static_cast<std::int64_t>(bytes));
}

void Http2Connection::connectionConsumed(std::int64_t bytes) {
    receiveConsumed_ += bytes;
    if (receiveConsumed_ >= kConnectionWindowUpdateBytes) {
        writeWindowUpdate(0, static_cast<std::uint32_t>(receiveConsumed_));
        receiveWindow_ += receiveConsumed_;
        receiveConsumed_ = 0;
    }
}

// ---- writing ----

std::size_t Http2Connection::sendable(const Http2Stream& stream) const noexcept {
    if (isClosed() || bufferedBytes() > kMaxOutputBacklogBytes) return 0;
    const std::int64_t window = std::min(sendWindow_, stream.sendWindowLeft());
    return window > 0 ? static_cast<std::size_t>(window) : 0;
}

void Http2Connection::writeHeaders(std::uint32_t streamId, std::string_view block, bool endStream) {
    // A block larger than a frame continues in CONTINUATION frames, which must follow at once: they are written
    // together, inside one cork.
    const std::size_t maxFrame = peer_.maxFrameSize;
    std::uint8_t flagBits = endStream ? flags::kEndStream : 0;
    FrameType type = FrameType::Headers;
    do {
        const std::size_t size = std::min(block.size(), maxFrame);
        const bool last = size == block.size();
        char header[kFrameHeaderBytes];
        writeFrameHeader(header, static_cast<std::uint32_t>(size), type, flagBits | (last ? flags::kEndHeaders : 0),
                         streamId);
        writeParts(std::string_view(header, sizeof header), block.substr(0, size));
        block.remove_prefix(size);
        type = FrameType::Continuation;
        flagBits = 0;
    } while (!block.empty());
}

void Http2Connection::writeData(Http2Stream& stream, std::string_view data, bool endStream) {
    const std::size_t maxFrame = peer_.maxFrameSize;
    do {
        const std::size_t size = std::min(data.size(), maxFrame);
        const bool last = size == data.size();
        char header[kFrameHeaderBytes];
        writeFrameHeader(header, static_cast<std::uint32_t>(size), FrameType::Data,
                         last && endStream ? flags::kEndStream : 0, stream.id());
        writeParts(std::string_view(header, sizeof header), data.substr(0, size));
        data.remove_prefix(size);
        sendWindow_ -= static_cast<std::int64_t>(size);
        stream.sendWindow() -= static_cast<std::int64_t>(size);
    } while (!data.empty());
}

void Http2Connection::writeReset(std::uint32_t streamId, ErrorCode code) {
    char frame[kFrameHeaderBytes + 4];
    writeFrameHeader(frame, 4, FrameType::RstStream, 0, streamId);
    writeUint32(frame + kFrameHeaderBytes, static_cast<std::uint32_t>(code));
    write({frame, sizeof frame});
}

void Http2Connection::writeWindowUpdate(std::uint32_t streamId, std::uint32_t increment) {
    char frame[kFrameHeaderBytes + kWindowUpdateBytes];
    writeFrameHeader(frame, kWindowUpdateBytes, FrameType::WindowUpdate, 0, streamId);
    writeUint32(frame + kFrameHeaderBytes, increment);
    write({frame, sizeof frame});
}

void Http2Connection::writeGoAway(ErrorCode code) {
    char frame[kFrameHeaderBytes + kGoAwayBytes];
    writeFrameHeader(frame, kGoAwayBytes, FrameType::GoAway, 0, 0);
    writeUint32(writeUint32(frame + kFrameHeaderBytes, lastStreamId_), static_cast<std::uint32_t>(code));
    write({frame, sizeof frame});
    goAwaySent_ = true;
}

void Http2Connection::onWritable() {
    const bool corkedHere = corkIfNeeded();
    resumeStreams();
    if (corkedHere && !isClosed()) uncork();
    if (!isClosed()) updateDeadline();
}

void Http2Connection::resumeStreams() {
    // By index: a stream's onWritable may finish it (removed) or start nothing new (streams start only from reads).
    for (std::size_t i = 0; i < active_.size() && !isClosed();) {
        Http2Stream* stream = active_[i];
        if (stream->waitsForOutput()) {
            stream->resumeOutput();
            if (i < active_.size() && active_[i] == stream) streamChanged(*stream);
        }
        if (i < active_.size() && active_[i] == stream) ++i;
    }
}

// ---- streams ----

Http2Stream* Http2Connection::find(std::uint32_t streamId) noexcept {
    for (Http2Stream* stream : active_) {
        if (stream->id() == streamId) return stream;
    }
    return nullptr;
}

Http2Stream& Http2Connection::acquireStream() {
    std::unique_ptr<Http2Stream> stream;
    if (!idle_.empty()) {
        stream = std::move(idle_.back());
        idle_.pop_back();
    } else {
        stream = std::make_unique<Http2Stream>(*this);
    }
    Http2Stream* raw = stream.release();
    active_.push_back(raw);
    return *raw;
}

void Http2Connection::removeStream(Http2Stream& stream) noexcept {
    const auto at = std::find(active_.begin(), active_.end(), &stream);
    if (at == active_.end()) return;
    // Order does not matter among active streams: the last takes the place of the one that goes.
    *at = active_.back();
    active_.pop_back();
    stream.release();
    idle_.emplace_back(&stream);
}

void Http2Connection::streamChanged(Http2Stream& stream) {
    if (!stream.finished()) return;
    if (!stream.requestEnded() && !stream.isAborted()) {
        // The response is complete before the request's body (half-closed local). The stream stays while its window
        // lets the client send the rest, which is checked (content-length, flow control) and dropped; once the window
        // is spent, the client is told to stop (RST_STREAM NO_ERROR, RFC 9113 section 8.1).
        if (stream.receiveWindow() > 0) return;
        writeReset(stream.id(), ErrorCode::NoError);
    }
    removeStream(stream);
    if (processingDepth_ == 0) closeIfDone();
}

void Http2Connection::goAwayAfterStreams() noexcept {
    if (!goAwaySent_ && !isClosed()) writeGoAway(ErrorCode::NoError);
}

void Http2Connection::drain() noexcept {
    const bool corkedHere = corkIfNeeded();
    goAwayAfterStreams();
    if (corkedHere && !isClosed()) uncork();
    closeIfDone();
}

void Http2Connection::closeIfDone() {
    if (isClosed() || isLingering() || !active_.empty()) return;
    if (goAwaySent_ || peerGoingAway_) {
        // Every stream is done: what was written goes out, then FIN; the client's last frames are read and dropped.
        linger();
    }
}

// ---- errors and ends ----

void Http2Connection::linger() {
    // The GOAWAY in the cork (whoever corked) goes before the FIN.
    if (isCorked()) uncork();
    closeLingering();
}

void Http2Connection::connectionError(ErrorCode code) {
    if (isClosed() || isLingering()) return;
    const bool corkedHere = corkIfNeeded();
    goAwaySent_ = false;
    writeGoAway(code);
    if (corkedHere) uncork();
    abortAll();
    if (!isClosed()) linger();
    setDeadline(loop().timeoutClockMs() + server().options().lingerTimeoutMs);
}

void Http2Connection::streamError(std::uint32_t streamId, ErrorCode code) {
    writeReset(streamId, code);
    if (Http2Stream* stream = find(streamId)) {
        stream->abort();
        removeStream(*stream);
    }
    // Every reset the client provokes counts as one it sends (MadeYouReset).
    spendReset();
}

bool Http2Connection::spendControlFrame() {
    if (controlFrames_.spend(loop().timeoutClockMs())) return true;
    connectionError(ErrorCode::EnhanceYourCalm);
    return false;
}

bool Http2Connection::spendReset() {
    if (resets_.spend(loop().timeoutClockMs())) return true;
    connectionError(ErrorCode::EnhanceYourCalm);
    return false;
}

void Http2Connection::abortAll() {
    // A stream's onAborted may close the connection: take the list first.
    std::vector<Http2Stream*> streams;
    streams.swap(active_);
    for (Http2Stream* stream : streams) {
        stream->abort();
        stream->release();
        idle_.emplace_back(stream);
    }
}

void Http2Connection::onEnd() { close(); }

void Http2Connection::onClose() { abortAll(); }

void Http2Connection::onTimeout() {
    if (serviceWaitingIo()) {
        if (!isClosed()) updateDeadline();
        return;
    }
    if (isLingering()) {
        close();
        return;
    }
    const bool idle =
        std::all_of(active_.begin(), active_.end(), [](const Http2Stream* stream) { return stream->finished(); });
    if (idle) {
        // Idle: a graceful end.
        const bool corkedHere = corkIfNeeded();
        writeGoAway(ErrorCode::NoError);
        if (corkedHere) uncork();
        linger();
        setDeadline(loop().timeoutClockMs() + server().options().lingerTimeoutMs);
        return;
    }
    // The client stopped reading, or stopped opening its windows: as a non-reading HTTP/1.1 peer, it is ended.
    close();
}

void Http2Connection::updateDeadline() noexcept {
    if (isLingering()) return;
    const ServerOptions& options = server().options();
    const std::uint64_t now = loop().timeoutClockMs();
    bool responding = false;
    for (const Http2Stream* stream : active_) {
        if (stream->waitsForOutput() || (isWaitingForPeer() && !stream->finished())) {
            setDeadline(now + options.writeTimeoutMs);
            return;
        }
        responding = responding || !stream->finished();
    }
    // Streams whose responses are done and that wait only for the rest of a request body count as idle.
    setDeadline(responding ? 0 : now + options.idleTimeoutMs);
}

}  // namespace loopwire::h2
