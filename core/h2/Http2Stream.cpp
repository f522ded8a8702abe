// One HTTP/2 stream's request and response; see Http2Stream.h.
//
// The response's head is HPACK-coded into headBlock_ as the handler writes it, and leaves as one HEADERS frame when
// the body starts or the response ends: frames of other streams may go out between two writeHeader calls (a handler
// that awaits), and a header block may not be interleaved with anything.
#include "Http2Stream.h"

#include "HpackEncoder.h"
#include "HpackEncoderTable.h"
#include "HpackStaticTable.h"
#include "Http2Connection.h"
#include "base/DecimalText.h"
#include "http/HttpServer.h"
#include "http/HttpSyntax.h"

#include <algorithm>
#include <cstring>

namespace loopwire::h2 {

namespace {

using http_syntax::equalsLowerCase;

constexpr unsigned kDefaultStatus = 200;
// What a header block holds before its fields: table size updates and :status.
constexpr std::size_t kHeadRoomBytes = HpackEncoderTable::kMaxBlockStartBytes + kMaxStatusBytes;

// The status code at the start of a status line ("404 Not Found"), or 0 when it does not start with three digits.
unsigned statusCodeOf(std::string_view status) noexcept {
    if (status.size() < 3) return 0;
    unsigned code = 0;
    for (std::size_t i = 0; i < 3; ++i) {
        if (status[i] < '0' || status[i] > '9') return 0;
        code = code * 10 + static_cast<unsigned>(status[i] - '0');
    }
    if (status.size() > 3 && status[3] != ' ') return 0;
    return code >= 100 ? code : 0;
}

// A status whose response has no content (RFC 9110 section 6.4.1).
bool forbidsBody(unsigned status) noexcept { return status < 200 || status == 204 || status == 304; }

// Fields of HTTP/1.1's connection management, which HTTP/2 forbids (RFC 9113 section 8.2.2): dropped.
bool isConnectionSpecific(std::string_view name) noexcept {
    switch (name.size()) {
        case 7:
            return equalsLowerCase(name, "upgrade");
        case 10:
            return equalsLowerCase(name, "keep-alive");
        case 16:
            return equalsLowerCase(name, "proxy-connection");
        case 17:
            return equalsLowerCase(name, "transfer-encoding");
        default:
            return false;
    }
}

// Corks the connection for the length of a response call made outside its callbacks, so that the call's frames
// leave together.
class CorkScope {
public:
    explicit CorkScope(Http2Connection& connection) noexcept
        : connection_(connection), corkedHere_(connection.corkIfNeeded()) {}
    ~CorkScope() {
        if (corkedHere_ && !connection_.isClosed()) connection_.uncork();
    }
    CorkScope(const CorkScope&) = delete;
    CorkScope& operator=(const CorkScope&) = delete;

private:
    Http2Connection& connection_;
    bool corkedHere_;
};

}  // namespace

void Http2Stream::begin(std::uint32_t id, bool requestEnded, bool answersHead, std::int64_t sendWindow) noexcept {
    id_ = id;
    requestEnded_ = requestEnded;
    answersHead_ = answersHead;
    sendWindow_ = sendWindow;
    receiveWindow_ = kDefaultWindow;
    receiveConsumed_ = 0;
    receivedBytes_ = 0;
    writeOffset_ = 0;
    callbackDepth_ = 0;
    status_ = 0;
    declaredLength_.reset();
    expectedLength_.reset();
    headEnded_ = complete_ = aborted_ = refused_ = false;
    outputEnds_ = endStreamSent_ = wantsWritable_ = paused_ = pausedInputEnds_ = false;
    bodyless_ = answersHead;
    headBlock_.clear();
    // Room for the block's start (a table size update) and :status, which is known last and goes first.
    headBlock_.prepare(kHeadRoomBytes);
    headBlock_.commit(kHeadRoomBytes);
    output_.clear();
    pausedInput_.clear();
    releaseCodingStream();
    coding_ = {};
}

void Http2Stream::release() noexcept {
    onAborted_ = nullptr;
    onData_ = nullptr;
    onDataV2_ = nullptr;
    onWritable_ = nullptr;
    headBlock_.clear();
    output_.clear();
    pausedInput_.clear();
    releaseCodingStream();
}

Socket& Http2Stream::socket() const noexcept { return connection_; }

HttpServer& Http2Stream::server() const noexcept { return connection_.server(); }

// ---- the head ----

bool Http2Stream::writeStatusLine(std::string_view status) {
    const unsigned code = statusCodeOf(status);
    if (code == 0 || !HttpResponse::isValidHeaderValue(status)) {
        refused_ = true;
        return false;
    }
    if (responseComplete()) return true;
    if (status_ != 0) {
        server().reportIgnoredWrite(HttpServer::IgnoredWrite::LateStatus);
        return true;
    }
    status_ = static_cast<std::uint16_t>(code);
    if (forbidsBody(code)) bodyless_ = true;
    // A part of a representation is never coded: its ranges count the plain bytes.
    if (code == 206) coding_.declined = true;
    return true;
}

std::optional<std::uint64_t> Http2Stream::announcedLength(std::optional<std::uint64_t> length) {
    ensureStatus();
    return forbidsBody(status_) ? std::nullopt : length;
}

void Http2Stream::ensureStatus() {
    if (status_ == 0) status_ = kDefaultStatus;
}

bool Http2Stream::writeHeaderField(std::string_view key, std::string_view value) {
    if (!HttpResponse::isValidHeaderName(key) || !HttpResponse::isValidHeaderValue(value)) {
        refused_ = true;
        return false;
    }
    if (responseComplete()) return true;
    if (headEnded_) {
        server().reportIgnoredWrite(HttpServer::IgnoredWrite::LateHeader);
        return true;
    }
    ensureStatus();
    if (coding_.matched()) [[unlikely]] {
        if (!noteFieldForCoding(key, value)) return true;
    }
    if (equalsLowerCase(key, "content-length")) {
        const std::optional<std::uint64_t> length = http_syntax::parseContentLength(value);
        if (!length) {
            refused_ = true;
            return true;
        }
        declaredLength_ = length;
        return true;
    }
    if (equalsLowerCase(key, "connection")) {
        if (http_syntax::listsClose(value)) connection_.goAwayAfterStreams();
        return true;
    }
    if (isConnectionSpecific(key)) return true;
    appendField(key, value);
    return true;
}

void Http2Stream::appendField(std::string_view key, std::string_view value, std::string_view valuePrefix) {
    char* out = headBlock_.prepare(fieldBytes(key.size(), valuePrefix.size() + value.size()));
    headBlock_.commit(static_cast<std::size_t>(h2::writeHeaderField(out, key, valuePrefix, value) - out));
}

void Http2Stream::endHead(std::optional<std::uint64_t> contentLength, bool endStream) {
    ensureStatus();
    HpackEncoderTable& table = connection_.encoderTable();
    const std::string_view date = connection_.loop().date();
    char* out = headBlock_.prepare(fieldBytes(14, 20) + HpackEncoderTable::dateFieldBytes(date.size()));
    char* at = out;
    if (contentLength) {
        char digits[20];
        at = writeStaticNameField(at, static_cast<std::uint32_t>(StaticName::ContentLength),
                                  formatDecimal(*contentLength, digits));
    }
    at = table.writeDate(at, date);
    headBlock_.commit(static_cast<std::size_t>(at - out));
    // The block's start and :status go first (a table size update precedes every field, and pseudo-headers the
    // regular ones), at the end of the room begin() kept for them.
    char start[kHeadRoomBytes];
    char* startEnd = writeStatusField(table.writeBlockStart(start), status_);
    const auto startBytes = static_cast<std::size_t>(startEnd - start);
    char* blockAt = headBlock_.data() + (kHeadRoomBytes - startBytes);
    std::memcpy(blockAt, start, startBytes);
    connection_.writeHeaders(id_, std::string_view(blockAt, headBlock_.size() - (kHeadRoomBytes - startBytes)),
                             endStream);
    headBlock_.clear();
    headEnded_ = true;
    if (endStream) endStreamSent_ = true;
}

// ---- the body ----

std::size_t Http2Stream::sendNow(std::string_view data, bool ends) {
    const std::size_t taken = std::min(data.size(), connection_.sendable(*this));
    const bool last = ends && taken == data.size();
    if (taken != 0 || last) connection_.writeData(*this, data.substr(0, taken), last);
    if (last) endStreamSent_ = true;
    return taken;
}

void Http2Stream::complete(bool closeConnection) {
    complete_ = true;
    if (closeConnection) connection_.goAwayAfterStreams();
    connection_.streamChanged(*this);
}

void Http2Stream::endResponse(std::string_view body, bool closeConnection) {
    if (responseComplete() || connection_.isClosed()) return;
    CorkScope cork(connection_);
    if (coding_.matched()) [[unlikely]]
        return endCoded(body, closeConnection);
    if (bodyless_) body = {};
    if (!headEnded_) {
        // The body's own length, or for HEAD the declared one (RFC 9110 section 9.3.2).
        endHead(announcedLength(answersHead_ ? declaredLength_ : body.size()), body.empty());
        if (body.empty()) return complete(closeConnection);
    }
    writeOffset_ += body.size();
    finishBody(body, closeConnection);
}

void Http2Stream::finishBody(std::string_view bytes, bool closeConnection) {
    if (output_.empty() && !endStreamSent_) {
        const std::size_t taken = sendNow(bytes, true);
        bytes.remove_prefix(taken);
        if (!bytes.empty()) output_.append(bytes);
    } else {
        output_.append(bytes);
    }
    outputEnds_ = !endStreamSent_;
    complete(closeConnection);
}

void Http2Stream::endWithoutBody(std::optional<std::uint64_t> reportedLength, bool closeConnection) {
    if (responseComplete() || connection_.isClosed()) return;
    CorkScope cork(connection_);
    if (coding_.matched()) [[unlikely]] {
        if (codingStream_ != nullptr) return endCoded({}, closeConnection);
        if (!headEnded_) writeCodingFields(false);
    }
    if (!headEnded_) {
        endHead(announcedLength(reportedLength || answersHead_ ? reportedLength : 0), true);
    } else if (output_.empty() && !endStreamSent_) {
        sendNow({}, true);
    } else {
        outputEnds_ = !endStreamSent_;
    }
    complete(closeConnection);
}

bool Http2Stream::writeChunk(std::string_view chunk) {
    if (responseComplete() || connection_.isClosed()) return false;
    CorkScope cork(connection_);
    if (coding_.matched()) [[unlikely]]
        return writeCodedChunk(chunk);
    if (!headEnded_) endHead(std::nullopt, false);
    if (chunk.empty() || bodyless_) return output_.empty();
    writeOffset_ += chunk.size();
    return sendBody(chunk);
}

bool Http2Stream::sendBody(std::string_view bytes) {
    if (output_.empty()) bytes.remove_prefix(sendNow(bytes, false));
    if (!bytes.empty()) output_.append(bytes);
    if (!output_.empty()) wantsWritable_ = true;
    return output_.empty() && connection_.bufferedBytes() <= Http2Connection::kMaxOutputBacklogBytes;
}

std::pair<bool, bool> Http2Stream::tryEnd(std::string_view data, std::uint64_t totalSize, bool closeConnection) {
    if (responseComplete() || connection_.isClosed()) return {true, true};
    CorkScope cork(connection_);
    if (coding_.matched()) [[unlikely]]
        return tryEndCoded(data, totalSize, closeConnection);
    if (!headEnded_) {
        const bool nothingFollows = bodyless_ || totalSize == 0;
        endHead(announcedLength(totalSize), nothingFollows);
        if (nothingFollows) {
            complete(closeConnection);
            return {true, true};
        }
    }
    // Bytes past totalSize are never sent.
    const std::uint64_t left = totalSize - std::min(totalSize, writeOffset_);
    if (data.size() > left) data = data.substr(0, static_cast<std::size_t>(left));
    if (!output_.empty()) {
        wantsWritable_ = true;
        return {false, false};
    }
    const bool lastPiece = writeOffset_ + data.size() == totalSize;
    const std::size_t taken = sendNow(data, lastPiece);
    writeOffset_ += taken;
    const bool done = writeOffset_ == totalSize;
    if (done) {
        wantsWritable_ = false;
        complete(closeConnection);
        return {true, true};
    }
    const bool ok = taken == data.size();
    if (!ok) wantsWritable_ = true;
    return {ok, false};
}

void Http2Stream::resumeOutput() {
    if (!output_.empty()) {
        const std::size_t taken = sendNow(output_.view(), outputEnds_);
        output_.consume(taken);
        if (!output_.empty()) return;
    } else if (outputEnds_ && !endStreamSent_) {
        sendNow({}, true);
    }
    if (!wantsWritable_ || responseComplete() || !onWritable_) {
        wantsWritable_ = wantsWritable_ && !responseComplete();
        return;
    }
    wantsWritable_ = false;
    ++callbackDepth_;
    const bool done = onWritable_(writeOffset_);
    --callbackDepth_;
    if (!done && !responseComplete()) wantsWritable_ = true;
}

// ---- App::compress ----
// The same decisions as HttpConnection's (docs/compression.md says why each): only the framing differs, a coded body
// of unknown length being DATA frames as any other.

bool Http2Stream::noteFieldForCoding(std::string_view key, std::string_view value) {
    if (!coding_.noteField(*server().extension<ResponseCoder>(), key, value)) return true;
    appendField(key, value, "W/");
    return false;
}

bool Http2Stream::codable(std::uint64_t bodyBytes) const noexcept {
    return coding_.applies() && !bodyless_ && !declaredLength_ &&
           bodyBytes >= server().extension<ResponseCoder>()->minBytes(coding_);
}

void Http2Stream::writeCodingFields(bool coded) {
    ensureStatus();
    if (coding_.compressibleType && !coding_.varyWritten) appendField("vary", "accept-encoding");
    if (coded) appendField("content-encoding", server().extension<ResponseCoder>()->token(coding_));
    if (codingStream_ == nullptr) coding_ = {};
}

void Http2Stream::endCoded(std::string_view body, bool closeConnection) {
    if (codingStream_ != nullptr) {
        std::optional<std::string_view> coded =
            server().extension<ResponseCoder>()->encodeStream(*codingStream_, body, StreamFlush::Finish);
        releaseCodingStream();
        coding_ = {};
        if (!coded) return closeNow();
        writeOffset_ += body.size();
        return finishBody(*coded, closeConnection);
    }
    if (!headEnded_) {
        std::optional<std::string_view> coded;
        if (codable(body.size())) coded = server().extension<ResponseCoder>()->encodeWhole(coding_, body);
        writeCodingFields(coded.has_value());
        if (coded) body = *coded;
    }
    coding_ = {};
    endResponse(body, closeConnection);
}

bool Http2Stream::beginCodedStream(std::uint64_t bodyBytes) {
    if (codable(bodyBytes)) codingStream_ = server().extension<ResponseCoder>()->beginStream(coding_);
    writeCodingFields(codingStream_ != nullptr);
    if (codingStream_ == nullptr) return false;
    endHead(std::nullopt, false);
    return true;
}

bool Http2Stream::writeCodedChunk(std::string_view chunk) {
    if (!headEnded_ && !beginCodedStream(UINT64_MAX)) return writeChunk(chunk);
    if (chunk.empty()) return output_.empty();
    std::optional<std::string_view> coded =
        server().extension<ResponseCoder>()->encodeStream(*codingStream_, chunk, StreamFlush::Sync);
    if (!coded) {
        // The body cannot go on coded, nor switch to plain bytes midway: the client sees the stream reset.
        closeNow();
        return false;
    }
    writeOffset_ += chunk.size();
    return sendBody(*coded);
}

std::pair<bool, bool> Http2Stream::tryEndCoded(std::string_view data, std::uint64_t totalSize, bool closeConnection) {
    if (!headEnded_ && !beginCodedStream(totalSize)) return tryEnd(data, totalSize, closeConnection);
    const std::uint64_t left = totalSize - std::min(totalSize, writeOffset_);
    if (data.size() > left) data = data.substr(0, static_cast<std::size_t>(left));
    if (writeOffset_ + data.size() >= totalSize) {
        endCoded(data, closeConnection);
        return {output_.empty(), true};
    }
    // Not flushed: a sized body is usually given in large pieces, and the coder's own blocks compress better.
    std::optional<std::string_view> coded =
        server().extension<ResponseCoder>()->encodeStream(*codingStream_, data, StreamFlush::Keep);
    if (!coded) {
        closeNow();
        return {false, true};
    }
    writeOffset_ += data.size();
    // Everything given was taken (into the coder); backpressure is what waits for the windows.
    return {sendBody(*coded), false};
}

void Http2Stream::releaseCodingStream() noexcept {
    if (codingStream_ == nullptr) return;
    server().extension<ResponseCoder>()->endStream(*codingStream_);
    codingStream_ = nullptr;
}

// ---- the request ----

bool Http2Stream::countBody(std::size_t bytes, bool ended) noexcept {
    receivedBytes_ += bytes;
    if (!expectedLength_) return true;
    if (receivedBytes_ > *expectedLength_) return false;
    return !ended || receivedBytes_ == *expectedLength_;
}

void Http2Stream::receiveBody(std::string_view chunk, bool ended) {
    if (ended) requestEnded_ = true;
    if (paused_) {
        pausedInput_.append(chunk);
        pausedInputEnds_ = pausedInputEnds_ || ended;
        return;
    }
    if (!responseComplete() && (onData_ || onDataV2_)) {
        ++callbackDepth_;
        if (onData_) onData_(chunk, ended);
        if (onDataV2_ && !responseComplete()) {
            const std::uint64_t left =
                expectedLength_ ? *expectedLength_ - std::min(*expectedLength_, receivedBytes_) : 1;
            onDataV2_(chunk, ended ? 0 : std::max<std::uint64_t>(left, 1));
        }
        --callbackDepth_;
    }
    connection_.bodyConsumed(*this, chunk.size());
}

void Http2Stream::pauseRequest() { paused_ = true; }

void Http2Stream::resumeRequest() {
    if (!paused_) return;
    paused_ = false;
    if (pausedInput_.empty() && !pausedInputEnds_) return;
    CorkScope cork(connection_);
    // Delivered from a buffer of its own: the handler may pause again, which appends to pausedInput_.
    ByteBuffer held = std::move(pausedInput_);
    const bool ends = pausedInputEnds_;
    pausedInputEnds_ = false;
    receiveBody(held.view(), ends);
    held.clear();
    if (pausedInput_.empty()) pausedInput_ = std::move(held);  // its capacity, for the next pause
    connection_.streamChanged(*this);
}

// ---- ends ----

void Http2Stream::closeNow() {
    if (connection_.isClosed()) return;
    CorkScope cork(connection_);
    if (!endStreamSent_) connection_.writeReset(id_, ErrorCode::Cancel);
    endStreamSent_ = true;
    output_.clear();
    requestEnded_ = true;
    abort();
    connection_.streamChanged(*this);
}

void Http2Stream::abort() {
    if (aborted_) return;
    const bool wasComplete = complete_;
    aborted_ = true;
    complete_ = true;
    endStreamSent_ = true;
    output_.clear();
    wantsWritable_ = false;
    if (!wasComplete && onAborted_) {
        ++callbackDepth_;
        onAborted_();
        --callbackDepth_;
    }
}

}  // namespace loopwire::h2
