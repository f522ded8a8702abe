#include "HttpConnection.h"

#include "HttpServer.h"
#include "Http2Handoff.h"
#include "HttpSyntax.h"
#include "base/Check.h"
#include "base/DecimalText.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>

namespace loopwire {

namespace {

// The status line of a response whose handler wrote none. An array, so that Socket::writeParts copies it with a
// constant size.
constexpr char kDefaultStatusLine[] = "HTTP/1.1 200 OK\r\n";
constexpr std::string_view k100Continue = "HTTP/1.1 100 Continue\r\n\r\n";
constexpr std::string_view k408 =
    "HTTP/1.1 408 Request Timeout\r\nContent-Length: 15\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\n"
    "Request Timeout";
constexpr std::string_view k500 =
    "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 21\r\nConnection: close\r\n"
    "Content-Type: text/plain\r\n\r\nInternal Server Error";

// Bytes of later pipelined requests kept while a response is pending; past it, reading pauses.
constexpr std::size_t kMaxPipelinedBytes = limits::kMaxHeaderSectionBytes;
static_assert(kMaxPipelinedBytes <= Loop::kReceiveBufferBytes);
// A pending-bytes buffer that grew past this is freed once empty.
constexpr std::size_t kMaxRetainedPendingBytes = 2 * limits::kMaxHeaderSectionBytes;

std::string_view formatHex(std::uint64_t value, char (&out)[20]) noexcept {
    static constexpr char kDigits[] = "0123456789abcdef";
    char* end = out + sizeof out;
    char* at = end;
    do {
        *--at = kDigits[value & 0xf];
        value >>= 4;
    } while (value != 0);
    return {at, static_cast<std::size_t>(end - at)};
}

}  // namespace

HttpConnection::HttpConnection(HttpServer& server, int fd, const SocketAddress& remote) noexcept
    : Socket(server.loop(), server.connections(), fd, remote, server.tlsContext(), &server.proxyPolicy()),
      server_(server) {
    // Over TLS the handshake's deadline runs first (Socket), and ours from onTransportReady().
    if (isTransportReady()) armDeadline();
}

HttpConnection::~HttpConnection() = default;

// ---- reading ----

void HttpConnection::onTransportReady() {
    // ALPN chose HTTP/2 (offered only where the server speaks it): the socket moves to an HTTP/2 connection, which
    // gets the bytes this read decrypts after the handshake (Socket).
    if (Http2Handoff* http2 = server_.extension<Http2Handoff>()) [[unlikely]] {
        if (tlsSession()->alpnProtocol() == "h2") {
            http2->takeOver(*this);
            return;
        }
    }
    armDeadline();
}

void HttpConnection::onData(char* data, std::size_t length) {
    bool corkedHere = beginCork();
    if (pending_.empty()) {
        std::size_t consumed = process(data, length);
        if (consumed < length && !isClosed() && phase_ != Phase::Closing) {
            pending_.append({data + consumed, length - consumed});
        }
    } else {
        pending_.append({data, length});
        pending_.consume(process(pending_.data(), pending_.size()));
    }
    uncorkIfCorkedHere(corkedHere);
    updateReading();
    armDeadline();
}

void HttpConnection::processPending() {
    if (isClosed()) return;
    if (!pending_.empty()) {
        bool corkedHere = beginCork();
        pending_.consume(process(pending_.data(), pending_.size()));
        if (pending_.empty() && pending_.capacity() > kMaxRetainedPendingBytes) pending_.release();
        uncorkIfCorkedHere(corkedHere);
    }
    updateReading();
}

// One rule for when to read, whatever changed last (a request arrived, a response completed now or later, the
// queue drained, the output backlog drained, the handler paused): read unless the handler paused the request,
// or the connection holds as much as it may, in later requests queued behind a pending response or in
// responses the peer has not read. Deciding it in one place is what keeps a connection from staying paused
// with nothing left that would resume it.
void HttpConnection::updateReading() noexcept {
    if (isClosed() || phase_ == Phase::Closing) return;
    // Only pipelined bytes (behind a pending response) are held back: an unfinished head is bounded by the
    // parser's own limit, and holding it at exactly that many bytes would wait forever for its end.
    bool hold = paused_ || (http11Pending() && pending_.size() >= kMaxPipelinedBytes) || outputBacklogged();
    if (hold != isReadingPaused()) [[unlikely]]
        setReading(!hold);
}

// Out of line, so that the common case above (nothing changes) stays a few compares.
[[gnu::noinline]] void HttpConnection::setReading(bool reading) noexcept {
    if (reading) {
        resumeReading();
    } else {
        pauseReading();
    }
}

std::size_t HttpConnection::process(char* data, std::size_t length) {
    LW_CHECK(!processing_);
    processing_ = true;
    RequestHead& head = server_.beginProcessing();
    std::size_t consumed = 0;
    while (consumed < length && !isClosed()) {
        if (phase_ == Phase::Closing) {
            consumed = length;
            break;
        }
        if (phase_ == Phase::Body) {
            consumed += readBody(data + consumed, length - consumed);
            continue;
        }
        // A later pipelined request waits until the response to the current one is complete, and until the
        // peer has read enough of the earlier responses.
        if (http11Pending() || outputBacklogged()) break;
        ParseResult result = parser_.parse(data + consumed, length - consumed, head);
        if (result.status == ParseStatus::NeedMore) {
            if (headDeadlineMs_ == 0) headDeadlineMs_ = loop().timeoutClockMs() + server_.options().headerTimeoutMs;
            break;
        }
        if (result.status == ParseStatus::Error) {
            if (result.error == HttpError::UnsupportedVersion && startsHttp2(data + consumed, length - consumed))
                [[unlikely]] {
                // Prior knowledge: the bytes from here are HTTP/2's preface, for the connection that takes over.
                server_.extension<Http2Handoff>()->takeOver(*this);
                break;
            }
            refuse(result.error);
            consumed = length;
            break;
        }
        consumed += result.consumed;
        headDeadlineMs_ = 0;
        bool hasBody = head.framing == BodyFraming::Chunked ||
                       (head.framing == BodyFraming::ContentLength && head.contentLength > 0);
        if (hasBody) {
            phase_ = Phase::Body;
            chunkedBody_ = head.framing == BodyFraming::Chunked;
            bodyRemaining_ = chunkedBody_ ? 0 : head.contentLength;
            if (chunkedBody_) chunked_.reset();
            bodyDeadlineMs_ = loop().timeoutClockMs() + server_.options().bodyTimeoutMs;
        }
        beginRequest(head, hasBody);
        if (!hasBody && !isClosed()) deliverBody({}, true, 0);
    }
    processing_ = false;
    server_.endProcessing();
    if (successor_ != nullptr) [[unlikely]] {
        // Upgraded by the handler: what follows the head is the new protocol's.
        Socket* successor = std::exchange(successor_, nullptr);
        successor->receive(data + consumed, length - consumed);
        consumed = length;
    }
    return consumed;
}

bool HttpConnection::startsHttp2(const char* data, std::size_t length) const noexcept {
    constexpr std::string_view kPrefaceLine = "PRI * HTTP/2.0\r\n";
    return server_.extension<Http2Handoff>() != nullptr && length >= kPrefaceLine.size() &&
           std::string_view(data, kPrefaceLine.size()) == kPrefaceLine;
}

void HttpConnection::handOver(Socket& successor) noexcept {
    setHttp11Pending(false);
    releaseCallbacksIfDone();
    if (processing_) {
        successor_ = &successor;
    } else if (!pending_.empty()) {
        successor.receive(pending_.data(), pending_.size());
        pending_.clear();
    }
}

void HttpConnection::beginRequest(RequestHead& head, bool hasBody) {
    setHttp11Pending(true);
    head_.begin(head.method == "HEAD");
    coding_ = {};
    writeOffset_ = 0;
    keepAlive_ = head.keepAlive;
    http10_ = head.httpMinor == 0;
    // The bytes after a CONNECT head belong to a tunnel loopwire does not provide. closeAfterResponse_ is otherwise
    // false here (a response that set it ended the connection), unless a drain set it while the head arrived.
    if (head.method == "CONNECT") [[unlikely]]
        closeAfterResponse_ = true;
    if (closeAfterResponse_) [[unlikely]]
        keepAlive_ = false;
    // The previous response's callbacks were released when it completed (releaseCallbacksIfDone), and none can be
    // set on a complete response (HttpResponse's setters): nothing to clear.
    LW_CHECK(!onAborted_ && !onData_ && !onDataV2_ && !onWritable_);
    if (head.expectContinue && hasBody && !http10_) write(k100Continue);

    bool handled = server_.dispatch(*this, head);
    if (isClosed() || !http11Pending()) {
        releaseCallbacksIfDone();
        return;
    }
    if (!handled) {
        if (!head_.statusWritten()) {
            writeStatusLine("404 Not Found");
            writeHeaderField("Content-Type", "text/plain");
            endResponse("Not Found", false);
        } else {
            endResponse({}, true);
        }
        return;
    }
    if (!onAborted_) {
        // Answering for the handler keeps the process alive where uWebSockets would terminate it.
        server_.reportUnansweredRequest();
        answerUnhandled(k500);
    }
}

void HttpConnection::answerUnhandled(std::string_view cannedResponse) {
    if (!head_.statusWritten()) {
        write(cannedResponse);
        setHttp11Pending(false);
        startLingeringClose();
    } else {
        closeNow();
    }
}

std::size_t HttpConnection::readBody(char* data, std::size_t length) {
    std::size_t consumed;
    std::size_t payload;
    if (!chunkedBody_) {
        consumed = static_cast<std::size_t>(std::min<std::uint64_t>(length, bodyRemaining_));
        payload = consumed;
        bodyRemaining_ -= consumed;
        bool last = bodyRemaining_ == 0;
        if (last) phase_ = Phase::Head;
        deliverBody({data, consumed}, last, bodyRemaining_);
    } else {
        ChunkedResult result = chunked_.decode({data, length});
        consumed = result.consumed;
        payload = result.data.size();
        if (result.status == ParseStatus::Error) {
            refuse(result.error);
            return length;
        }
        bool last = result.status == ParseStatus::Complete;
        if (last) phase_ = Phase::Head;
        if (!result.data.empty()) deliverBody(result.data, false, chunked_.remainingInChunk() + 1);
        if (last && !isClosed()) deliverBody({}, true, 0);
    }
    // The minimum body rate: every byte buys 1/minRate seconds, never more than bodyTimeoutMs ahead. Only a body
    // still arriving has a deadline (armDeadline); most bodies end in the read that brings them.
    if (phase_ != Phase::Body) return consumed;
    const std::uint32_t minRate = server_.options().minBodyBytesPerSecond;
    const std::uint64_t limit = loop().timeoutClockMs() + server_.options().bodyTimeoutMs;
    if (minRate == 0) {
        bodyDeadlineMs_ = limit;
    } else {
        bodyDeadlineMs_ = std::min(limit, bodyDeadlineMs_ + payload * 1000 / minRate);
    }
    return consumed;
}

void HttpConnection::deliverBody(std::string_view chunk, bool isLast, std::uint64_t remaining) {
    if (!http11Pending() || isClosed()) return;
    if (!onData_ && !onDataV2_) return;
    ++callbackDepth_;
    if (onData_) onData_(chunk, isLast);
    if (onDataV2_ && http11Pending() && !isClosed()) onDataV2_(chunk, isLast ? 0 : remaining);
    --callbackDepth_;
    releaseCallbacksIfDone();
}

void HttpConnection::onEnd() {
    // The peer sent FIN. Like uWebSockets, loopwire takes it as the peer leaving: a pending response is aborted
    // (onAborted runs), which is what long polls and streams need to stop. Responses written before the FIN was
    // read, such as every synchronous answer, have already gone out.
    close();
}

void HttpConnection::refuse(HttpError error) {
    if (http11Pending() && head_.statusWritten()) {
        closeNow();
        return;
    }
    if (!http11Pending() && phase_ == Phase::Body) {
        // The request was answered before its body turned out malformed: an error response now would be read
        // as the answer to a next request, so the connection just ends.
        startLingeringClose();
        return;
    }
    write(cannedResponseFor(error));
    bool wasPending = http11Pending();
    setHttp11Pending(false);
    if (wasPending) {
        // The handler is still waiting for this body: tell it, as if the peer had gone.
        ++callbackDepth_;
        AbortedHandler aborted = std::move(onAborted_);
        if (aborted) aborted();
        --callbackDepth_;
    }
    startLingeringClose();
}

// ---- writing ----

// isCorked() first: inside the connection's callbacks, where handlers write, it is true, and a closed socket is
// never corked, so the common case pays one test.
bool HttpConnection::beginCork() {
    if (isCorked() || isClosed()) return false;
    cork();
    return true;
}

void HttpConnection::uncorkIfCorkedHere(bool corkedHere) {
    if (corkedHere || autoCorked_) {
        autoCorked_ = false;
        uncork();
    }
}

void HttpConnection::endCork(bool corkedHere) {
    uncorkIfCorkedHere(corkedHere);
    // A response written from outside the connection's callbacks (a timer) that left output waiting for the
    // peer starts the write timeout here; inside them, the callback re-arms the deadline when it ends.
    if (!processing_ && callbackDepth_ == 0 && isWaitingForPeer()) [[unlikely]]
        armDeadlineOutOfLine();
}

void HttpConnection::corkForHeaders() {
    if (isCorked() || isClosed()) return;
    cork();
    autoCorked_ = true;
}

// Inlined: every header field and body call begins with it, and the check is all they usually pay.
[[gnu::always_inline]] inline void HttpConnection::ensureStatus() {
    // The default status is a constant: one write, and none of the checks a handler's status needs.
    if (head_.statusWritten()) return;
    write(kDefaultStatusLine);
    head_.writeDefaultStatus();
}

namespace {

using http_syntax::equalsLowerCase;

// A Content-Length value: 1 to 19 decimal digits, optionally surrounded by spaces or tabs.
}  // namespace

bool HttpConnection::writeStatusLine(std::string_view status) {
    // Checked first, so that a malformed status is refused (and reported) whatever the state.
    if (status.size() < 3 || !HttpResponse::isValidHeaderValue(status)) {
        head_.refuseWrite();
        return false;
    }
    if (!http11Pending() || isClosed()) return true;
    if (head_.statusWritten()) [[unlikely]] {
        server_.reportIgnoredWrite(HttpServer::IgnoredWrite::LateStatus);
        return true;
    }
    head_.writeStatus(status);
    // A part of a representation is never coded: its ranges count the plain bytes.
    if (coding_.matched() && status.substr(0, 3) == "206") [[unlikely]]
        coding_.declined = true;
    write("HTTP/1.1 ");
    write(status);
    write("\r\n");
    return true;
}

bool HttpConnection::writeHeaderField(std::string_view key, std::string_view value) {
    // Checked first, so that a malformed field is refused (and reported) whatever the state.
    if (!HttpResponse::isValidHeaderName(key) || !HttpResponse::isValidHeaderValue(value)) {
        head_.refuseWrite();
        return false;
    }
    if (!http11Pending() || isClosed()) return true;
    if (head_.ended()) [[unlikely]] {
        server_.reportIgnoredWrite(HttpServer::IgnoredWrite::LateHeader);
        return true;
    }
    ensureStatus();
    if (coding_.matched()) [[unlikely]] {
        if (!noteFieldForCoding(key, value)) return true;
    }
    if (equalsLowerCase(key, "content-length")) {
        // Held back: the call that ends the head knows the body, and writes one Content-Length (see
        // writeContentLength). A value that is not a length is refused.
        std::optional<std::uint64_t> length = http_syntax::parseContentLength(value);
        if (!length) {
            head_.refuseWrite();
            return true;
        }
        head_.declareLength(*length);
        return true;
    }
    if (equalsLowerCase(key, "connection")) {
        // The handler's own Connection field replaces the one loopwire would add; `close` in it is obeyed.
        head_.noteConnectionField();
        if (http_syntax::listsClose(value)) closeAfterResponse_ = true;
    }
    writeParts(key, ": ", value, "\r\n");
    return true;
}

void HttpConnection::writeHeadEnd(ResponseHead::Framing framing) {
    // A Connection field written by the handler stands alone; otherwise loopwire says what HTTP/1.1 does not
    // imply.
    std::string_view dateEnd = "\r\n";
    if (!head_.connectionFieldWritten() && !keepAlive_) {
        dateEnd = "\r\nConnection: close\r\n";
    } else if (!head_.connectionFieldWritten() && http10_) {
        dateEnd = "\r\nConnection: keep-alive\r\n";
    }
    std::string_view framingField = framing == ResponseHead::Framing::Chunked ? "Transfer-Encoding: chunked\r\n" : "";
    writeParts("Date: ", loop().date(), dateEnd, framingField, "\r\n");
    head_.end(framing);
}

bool HttpConnection::writeChunk(std::string_view chunk) {
    if (!http11Pending() || isClosed()) return false;
    if (coding_.matched()) [[unlikely]]
        return writeCodedChunk(chunk);
    if (!head_.ended()) beginChunkedBody();
    if (chunk.empty() || head_.omitsBody()) return bufferedBytes() == 0;
    writeOffset_ += chunk.size();
    return writeChunkFraming(chunk);
}

void HttpConnection::beginChunkedBody() {
    ensureStatus();
    if (http10_) {
        // HTTP/1.0 has no chunked coding: the body runs until the connection closes.
        keepAlive_ = false;
        writeHeadEnd(ResponseHead::Framing::UntilClose);
    } else {
        writeHeadEnd(ResponseHead::Framing::Chunked);
    }
}

bool HttpConnection::writeChunkFraming(std::string_view bytes) {
    if (bytes.empty()) return bufferedBytes() == 0;
    if (!head_.chunked()) return write(bytes);
    char digits[20];
    write(formatHex(bytes.size(), digits));
    write("\r\n");
    write(bytes);
    return write("\r\n");
}

void HttpConnection::endResponse(std::string_view body, bool closeConnection) {
    if (!http11Pending() || isClosed()) return;
    if (coding_.matched()) [[unlikely]]
        return endCoded(body, closeConnection);
    if (closeConnection && !head_.ended()) keepAlive_ = false;
    if (!head_.ended()) {
        if (!head_.omitsBody() && !head_.hasDeclaredLength() && keepAlive_ && !http10_ &&
            !head_.connectionFieldWritten()) {
            // The common answer (a body with its length, on a keep-alive HTTP/1.1 connection) in one write: what
            // ensureStatus, writeContentLength, writeHeadEnd and the body's write would write one after another.
            char digits[20];
            const auto writeHeadAndBody = [&](const auto&... statusLine) {
                writeParts(statusLine..., "Content-Length: ", formatDecimal(body.size(), digits),
                           "\r\nDate: ", loop().date(), "\r\n\r\n", body);
            };
            if (head_.statusWritten()) {
                writeHeadAndBody();
            } else {
                head_.writeDefaultStatus();
                writeHeadAndBody(kDefaultStatusLine);
            }
            head_.end(ResponseHead::Framing::Length);
            writeOffset_ += body.size();
            return finishResponse(closeConnection);
        }
        ensureStatus();
        if (head_.bodilessStatus() && body.empty()) {
            writeHeadEnd(ResponseHead::Framing::Length);
        } else {
            // The answer to HEAD may state the length of the body it leaves out, given as a header.
            bool lengthOnly = body.empty() && head_.answersHead() && head_.hasDeclaredLength();
            writeContentLength(lengthOnly ? head_.declaredLength() : body.size());
            writeHeadEnd(ResponseHead::Framing::Length);
            if (!head_.omitsBody()) write(body);
        }
        writeOffset_ += body.size();
    } else if (head_.chunked()) {
        writeChunk(body);
        if (!head_.omitsBody()) write("0\r\n\r\n");
    } else {
        if (!head_.omitsBody()) write(body);
        writeOffset_ += body.size();
    }
    finishResponse(closeConnection);
}

void HttpConnection::endWithoutBody(std::optional<std::uint64_t> reportedLength, bool closeConnection) {
    if (!http11Pending() || isClosed()) return;
    if (coding_.matched()) [[unlikely]] {
        if (codingStream_ != nullptr) return endCoded({}, closeConnection);
        if (!head_.ended()) writeCodingFields(false);
    }
    if (closeConnection && !head_.ended()) keepAlive_ = false;
    if (!head_.ended()) {
        ensureStatus();
        if (!reportedLength && head_.hasDeclaredLength() && !head_.bodilessStatus()) {
            reportedLength = head_.declaredLength();
        }
        if (reportedLength) {
            writeContentLength(*reportedLength);
        } else if (!head_.omitsBody()) {
            write("Content-Length: 0\r\n");
        }
        writeHeadEnd(ResponseHead::Framing::Length);
    } else if (head_.chunked() && !head_.omitsBody()) {
        write("0\r\n\r\n");
    }
    finishResponse(closeConnection);
}

std::pair<bool, bool> HttpConnection::tryEnd(std::string_view data, std::uint64_t totalSize, bool closeConnection) {
    if (!http11Pending() || isClosed()) return {true, true};
    if (coding_.matched()) [[unlikely]]
        return tryEndCoded(data, totalSize, closeConnection);
    if (head_.chunked()) {
        // A chunked response already started: go on in chunks and finish at totalSize.
        bool ok = writeChunk(data);
        if (writeOffset_ >= totalSize) {
            endResponse({}, closeConnection);
            return {ok, true};
        }
        return {ok, false};
    }
    beginSizedBody(totalSize, closeConnection);
    // Bytes past totalSize would be read as the start of the next response: they are not sent.
    std::uint64_t room = totalSize > writeOffset_ ? totalSize - writeOffset_ : 0;
    if (data.size() > room) data = data.substr(0, static_cast<std::size_t>(room));
    std::size_t taken = head_.omitsBody() ? data.size() : tryWrite(data);
    return sizedBodyProgress(taken, data.size(), totalSize, closeConnection);
}

std::pair<bool, bool> HttpConnection::tryEndFromFile(int fd, std::uint64_t fileOffset, std::uint64_t count,
                                                     std::uint64_t totalSize, bool closeConnection) {
    if (!http11Pending() || isClosed()) return {true, true};
    if (head_.chunked()) {
        // A body begun in chunks cannot go on from the page cache: the caller reads the file (tryEnd) instead.
        return {false, false};
    }
    // A file's bytes go from the page cache as they are: never coded (a coded file is a static mount's variant).
    if (coding_.matched() && !head_.ended()) [[unlikely]]
        writeCodingFields(false);
    beginSizedBody(totalSize, closeConnection);
    std::uint64_t room = totalSize > writeOffset_ ? totalSize - writeOffset_ : 0;
    if (count > room) count = room;
    const auto wanted = static_cast<std::size_t>(std::min<std::uint64_t>(count, SIZE_MAX));
    std::size_t taken = head_.omitsBody() ? wanted : trySendFile(fd, fileOffset, wanted);
    return sizedBodyProgress(taken, wanted, totalSize, closeConnection);
}

inline void HttpConnection::beginSizedBody(std::uint64_t totalSize, bool closeConnection) {
    if (head_.ended()) return;
    if (closeConnection) keepAlive_ = false;
    ensureStatus();
    writeContentLength(totalSize);
    writeHeadEnd(ResponseHead::Framing::Length);
}

inline std::pair<bool, bool> HttpConnection::sizedBodyProgress(std::size_t taken, std::size_t wanted,
                                                               std::uint64_t totalSize, bool closeConnection) {
    writeOffset_ += taken;
    if (taken > 0) writeDeadlineMs_ = 0;  // progress: the write timeout starts again
    // Over TLS the socket may take a group of bytes whose records the kernel did not take whole (they wait as
    // backpressure), so backpressure is told by what waits too, not only by what was taken.
    bool ok = taken == wanted && bufferedBytes() == 0;
    if (writeOffset_ >= totalSize) {
        finishResponse(closeConnection);
        return {ok, true};
    }
    if (!ok) requestWritable();
    return {ok, false};
}

inline void HttpConnection::writeContentLength(std::uint64_t length) {
    // One Content-Length per response: the body's own length wins over a different one the handler wrote.
    if (head_.hasDeclaredLength() && head_.declaredLength() != length) head_.refuseWrite();
    char digits[20];
    writeParts("Content-Length: ", formatDecimal(length, digits), "\r\n");
}

void HttpConnection::finishResponse(bool closeConnection) {
    setHttp11Pending(false);
    if (closeConnection || !keepAlive_ || closeAfterResponse_) {
        startLingeringClose();
        releaseCallbacksIfDone();
        return;
    }
    releaseCallbacksIfDone();
    // Inside process() the loop there goes on with the next request; inside one of our callbacks the caller
    // continues once the callback has returned (the callback must not be replaced while it runs).
    if (processing_ || callbackDepth_ > 0) return;
    if (!pending_.empty()) {
        // Completed from outside the connection's callbacks (a timer, a promise, another connection's handler): the
        // requests received meanwhile wait until the current batch is over, so that their handlers start a batch
        // of their own instead of running inside the code that completed this one (in the Node addon, a handler
        // run there could not have its microtasks run before its scope ends).
        server_.resumeAfterProcessing(*this);
        return;
    }
    continueAfterResponse();
}

void HttpConnection::continueAfterResponse() {
    if (isClosed() || http11Pending() || phase_ == Phase::Closing) return;
    if (server_.isProcessing() && !pending_.empty()) {
        server_.resumeAfterProcessing(*this);
        return;
    }
    if (phase_ == Phase::Head) processPending();
    if (!isClosed() && hasReceivedEnd() && !http11Pending()) {
        shutdownWrite();
        return;
    }
    armDeadline();
}

void HttpConnection::startLingeringClose() {
    phase_ = Phase::Closing;
    pending_.clear();
    closeLingering();
    if (isClosed()) return;
    // The last response may still be on its way (FIN follows it): the write timeout first, then the linger.
    if (isWaitingForPeer()) {
        armWriteDeadline();
    } else {
        setDeadline(loop().timeoutClockMs() + server_.options().lingerTimeoutMs);
    }
}

void HttpConnection::closeNow() { close(); }

void HttpConnection::drain() noexcept {
    if (isClosed() || phase_ == Phase::Closing) return;
    if (!isTransportReady()) {
        close();
        return;
    }
    // Idle: no response pending, no request begun (a head's first bytes start its deadline).
    if (!http11Pending() && phase_ == Phase::Head && headDeadlineMs_ == 0 && pending_.empty()) {
        startLingeringClose();
        return;
    }
    closeAfterResponse_ = true;
    if (http11Pending() && !head_.ended()) keepAlive_ = false;
}

void HttpConnection::pauseRequest() {
    paused_ = true;
    updateReading();
    armDeadline();
}

void HttpConnection::resumeRequest() {
    paused_ = false;
    updateReading();
    armDeadline();
}

std::string_view HttpConnection::remoteAddressText() noexcept { return remoteAddress().toText(addressText_); }

void HttpConnection::onWritable() {
    writeDeadlineMs_ = 0;
    if (http11Pending() && onWritable_) {
        bool corkedHere = beginCork();
        ++callbackDepth_;
        onWritable_(writeOffset_);
        --callbackDepth_;
        uncorkIfCorkedHere(corkedHere);
        releaseCallbacksIfDone();
        continueAfterResponse();
    } else if (!http11Pending()) {
        // The backlog has drained: requests held back by it go on.
        continueAfterResponse();
    }
    if (isClosed()) return;
    if (phase_ == Phase::Closing) {
        // Everything, FIN included, is out: now only the peer's leftovers are drained, for the linger time.
        setDeadline(loop().timeoutClockMs() + server_.options().lingerTimeoutMs);
        return;
    }
    armDeadline();
}

// The write deadline moves on progress only: bytes the peer sends meanwhile never extend it, so a peer that sends
// and never reads cannot hold the connection.
void HttpConnection::onDrainProgress() {
    writeDeadlineMs_ = loop().timeoutClockMs() + server_.options().writeTimeoutMs;
    setDeadline(writeDeadlineMs_);
}

// ---- deadlines and closing ----

[[gnu::noinline]] void HttpConnection::armDeadlineOutOfLine() noexcept { armDeadline(); }

// The write deadline runs from when output started waiting for the peer, and moves only on progress
// (onDrainProgress, tryEnd taking bytes, onWritable).
void HttpConnection::armWriteDeadline() noexcept {
    if (writeDeadlineMs_ == 0) writeDeadlineMs_ = loop().timeoutClockMs() + server_.options().writeTimeoutMs;
    setDeadline(writeDeadlineMs_);
}

void HttpConnection::armDeadline() noexcept {
    if (isClosed() || phase_ == Phase::Closing) return;
    // Output waiting for the peer (buffered, or a tryEnd stream waiting for room) must make progress within the
    // write timeout, or the peer has stopped reading.
    if (isWaitingForPeer()) {
        armWriteDeadline();
        return;
    }
    writeDeadlineMs_ = 0;
    // A paused request, and a pending response with nothing waiting for the peer, belong to the application: no
    // deadline.
    bool applicationOwned = paused_ || (http11Pending() && phase_ != Phase::Body);
    if (applicationOwned) {
        setDeadline(0);
    } else if (phase_ == Phase::Body) {
        setDeadline(bodyDeadlineMs_);
    } else if (headDeadlineMs_ != 0) {
        setDeadline(headDeadlineMs_);
    } else {
        setDeadline(loop().timeoutClockMs() + server_.options().idleTimeoutMs);
    }
}

void HttpConnection::onTimeout() {
    if (phase_ == Phase::Closing) {
        // The last response may have been read meanwhile (the loop could not run); otherwise, time is up.
        if (isWaitingForPeer() && serviceWaitingIo() && !isClosed() && deadline() != 0) return;
        close();
        return;
    }
    // The sweep can come before the loop has polled this socket (after the loop was blocked, timers run first):
    // a request waiting unread, or a peer that has read our output meanwhile, is not a timeout.
    if (serviceWaitingIo()) {
        if (isClosed()) return;
        if (deadline() == 0) armDeadline();
        // A head or body deadline runs from the request's start: bytes that did not complete it in time do not
        // save a slow peer.
        if (deadline() == 0 || deadline() > loop().timeoutClockMs()) return;
    }
    if (isWaitingForPeer()) {
        close();
        return;
    }
    bool requestInProgress = phase_ == Phase::Body || headDeadlineMs_ != 0;
    if (requestInProgress && !head_.statusWritten()) {
        // Too slow a head or body: say so, then close.
        write(k408);
    }
    close();
}

void HttpConnection::onClose() {
    releaseCodingStream();
    if (http11Pending()) {
        setHttp11Pending(false);
        ++callbackDepth_;
        AbortedHandler aborted = std::move(onAborted_);
        if (aborted) aborted();
        --callbackDepth_;
    }
    releaseCallbacksIfDone();
}

void HttpConnection::releaseCallbacks() noexcept {
    callbacksHeld_ = false;
    onAborted_ = nullptr;
    onData_ = nullptr;
    onDataV2_ = nullptr;
    onWritable_ = nullptr;
}

// App::compress. Reached only when a rule matched the request's path (coding_.matched()); the head's fields are
// read as the handler writes them, the choice is made by the call that ends the head (end, write, tryEnd), and a body
// written in pieces goes through one compressor whose output each piece flushes. Why each rule: docs/compression.md.

bool HttpConnection::noteFieldForCoding(std::string_view key, std::string_view value) {
    if (!coding_.noteField(*server_.extension<ResponseCoder>(), key, value)) return true;
    writeParts(key, ": W/", value, "\r\n");
    return false;
}

bool HttpConnection::codable(std::uint64_t bodyBytes) const noexcept {
    return coding_.applies() && !head_.omitsBody() && !head_.hasDeclaredLength() &&
           bodyBytes >= server_.extension<ResponseCoder>()->minBytes(coding_);
}

void HttpConnection::writeCodingFields(bool coded) {
    ensureStatus();
    // A cache must keep the coded and plain answers apart whenever the type could be coded, coded this time or not.
    if (coding_.compressibleType && !coding_.varyWritten) write("Vary: Accept-Encoding\r\n");
    if (coded) writeParts("Content-Encoding: ", server_.extension<ResponseCoder>()->token(coding_), "\r\n");
    if (codingStream_ == nullptr) coding_ = {};
}

void HttpConnection::endCoded(std::string_view body, bool closeConnection) {
    if (codingStream_ != nullptr) {
        if (finishCodedStream(body)) finishResponse(closeConnection);
        return;
    }
    if (!head_.ended()) {
        std::optional<std::string_view> coded;
        if (codable(body.size())) coded = server_.extension<ResponseCoder>()->encodeWhole(coding_, body);
        writeCodingFields(coded.has_value());
        if (coded) body = *coded;
    }
    coding_ = {};
    endResponse(body, closeConnection);
}

bool HttpConnection::beginCodedStream(std::uint64_t bodyBytes) {
    if (codable(bodyBytes)) codingStream_ = server_.extension<ResponseCoder>()->beginStream(coding_);
    writeCodingFields(codingStream_ != nullptr);
    if (codingStream_ == nullptr) return false;
    beginChunkedBody();
    return true;
}

bool HttpConnection::writeCodedChunk(std::string_view chunk) {
    if (!head_.ended() && !beginCodedStream(UINT64_MAX)) return writeChunk(chunk);
    if (chunk.empty()) return bufferedBytes() == 0;
    std::optional<std::string_view> coded =
        server_.extension<ResponseCoder>()->encodeStream(*codingStream_, chunk, StreamFlush::Sync);
    if (!coded) {
        // The body cannot go on coded, nor switch to plain bytes midway: the client sees it cut short.
        closeNow();
        return false;
    }
    writeOffset_ += chunk.size();
    return writeChunkFraming(*coded);
}

std::pair<bool, bool> HttpConnection::tryEndCoded(std::string_view data, std::uint64_t totalSize,
                                                  bool closeConnection) {
    if (!head_.ended()) {
        if (closeConnection) keepAlive_ = false;
        if (!beginCodedStream(totalSize)) return tryEnd(data, totalSize, closeConnection);
    }
    // writeOffset_ counts the plain bytes the handler gave, so that its onWritable offsets stay its own.
    const std::uint64_t room = totalSize > writeOffset_ ? totalSize - writeOffset_ : 0;
    if (data.size() > room) data = data.substr(0, static_cast<std::size_t>(room));
    if (writeOffset_ + data.size() >= totalSize) {
        if (!finishCodedStream(data)) return {false, true};
        finishResponse(closeConnection);
        return {bufferedBytes() == 0, true};
    }
    // Not flushed: a sized body is usually given in large pieces, and the coder's own blocks compress better.
    std::optional<std::string_view> coded =
        server_.extension<ResponseCoder>()->encodeStream(*codingStream_, data, StreamFlush::Keep);
    if (!coded) {
        closeNow();
        return {false, true};
    }
    writeOffset_ += data.size();
    if (!coded->empty()) writeDeadlineMs_ = 0;
    writeChunkFraming(*coded);
    // Everything given was taken (into the coder); backpressure is what waits for the socket.
    const bool ok = bufferedBytes() == 0;
    if (!ok) requestWritable();
    return {ok, false};
}

bool HttpConnection::finishCodedStream(std::string_view input) {
    std::optional<std::string_view> coded =
        server_.extension<ResponseCoder>()->encodeStream(*codingStream_, input, StreamFlush::Finish);
    releaseCodingStream();
    coding_ = {};
    if (!coded) {
        closeNow();
        return false;
    }
    writeOffset_ += input.size();
    writeChunkFraming(*coded);
    if (head_.chunked()) write("0\r\n\r\n");
    return true;
}

void HttpConnection::releaseCodingStream() noexcept {
    if (codingStream_ == nullptr) return;
    server_.extension<ResponseCoder>()->endStream(*codingStream_);
    codingStream_ = nullptr;
}

}  // namespace loopwire
