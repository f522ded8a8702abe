// HttpResponse is the public face of HttpConnection, and of ResponseStream (an HTTP/2 stream): every method forwards
// to the connection it is part of, or, when the response is a stream, to the stream (see ResponseStream.h).
#include <loopwire/HttpResponse.h>

#include "HttpConnection.h"
#include "ResponseStream.h"
#include "HttpSyntax.h"
#include "base/DecimalText.h"
#include "net/TlsSession.h"

#include <string_view>

namespace loopwire {

namespace {

HttpConnection& connectionOf(HttpResponse* response) noexcept { return *static_cast<HttpConnection*>(response); }
const HttpConnection& connectionOf(const HttpResponse* response) noexcept {
    return *static_cast<const HttpConnection*>(response);
}
ResponseStream& streamOf(HttpResponse* response) noexcept { return *static_cast<ResponseStream*>(response); }
const ResponseStream& streamOf(const HttpResponse* response) noexcept {
    return *static_cast<const ResponseStream*>(response);
}
// The socket a response travels on, for the methods that only read it (addresses, TLS).
const Socket& socketOf(const HttpResponse* response) noexcept {
    if (response->isStream()) [[unlikely]]
        return streamOf(response).socket();
    return connectionOf(response);
}

}  // namespace

namespace any_response {

HttpServer& server(HttpResponse& response) noexcept {
    return response.isStream() ? streamOf(&response).server() : connectionOf(&response).server();
}

Socket& socket(HttpResponse& response) noexcept {
    if (response.isStream()) return streamOf(&response).socket();
    return connectionOf(&response);
}

bool hasWrittenStatus(const HttpResponse& response) noexcept {
    return response.isStream() ? streamOf(&response).hasWrittenStatus() : connectionOf(&response).hasWrittenStatus();
}

bool answersHead(const HttpResponse& response) noexcept {
    return response.isStream() ? streamOf(&response).answersHead() : connectionOf(&response).answersHead();
}

ResponseCoding* coding(HttpResponse& response) noexcept {
    return response.isStream() ? streamOf(&response).coding() : &connectionOf(&response).coding();
}

HttpResponse::AbortedHandler& abortedHandler(HttpResponse& response) noexcept {
    return response.isStream() ? streamOf(&response).onAborted_ : connectionOf(&response).onAborted_;
}

}  // namespace any_response

HttpResponse* HttpResponse::writeStatus(std::string_view status) {
    writeStatusIfValid(status);
    return this;
}

HttpResponse* HttpResponse::writeHeader(std::string_view key, std::string_view value) {
    writeHeaderIfValid(key, value);
    return this;
}

bool HttpResponse::writeStatusIfValid(std::string_view status) {
    if (isStream()) [[unlikely]]
        return streamOf(this).writeStatusLine(status);
    HttpConnection& connection = connectionOf(this);
    connection.corkForHeaders();
    return connection.writeStatusLine(status);
}

bool HttpResponse::writeHeaderIfValid(std::string_view key, std::string_view value) {
    if (isStream()) [[unlikely]]
        return streamOf(this).writeHeaderField(key, value);
    HttpConnection& connection = connectionOf(this);
    connection.corkForHeaders();
    return connection.writeHeaderField(key, value);
}

HttpResponse* HttpResponse::writeHeader(std::string_view key, std::uint64_t value) {
    char digits[20];
    return writeHeader(key, formatDecimal(value, digits));
}

bool HttpResponse::write(std::string_view chunk) {
    if (isStream()) [[unlikely]]
        return streamOf(this).writeChunk(chunk);
    HttpConnection& connection = connectionOf(this);
    bool corkedHere = connection.beginCork();
    bool ok = connection.writeChunk(chunk);
    connection.endCork(corkedHere);
    return ok && connection.bufferedBytes() == 0;
}

void HttpResponse::end(std::string_view body, bool closeConnection) {
    if (isStream()) [[unlikely]]
        return streamOf(this).endResponse(body, closeConnection);
    HttpConnection& connection = connectionOf(this);
    bool corkedHere = connection.beginCork();
    connection.endResponse(body, closeConnection);
    connection.endCork(corkedHere);
}

void HttpResponse::endWithoutBody(std::optional<std::uint64_t> reportedContentLength, bool closeConnection) {
    if (isStream()) [[unlikely]]
        return streamOf(this).endWithoutBody(reportedContentLength, closeConnection);
    HttpConnection& connection = connectionOf(this);
    bool corkedHere = connection.beginCork();
    connection.endWithoutBody(reportedContentLength, closeConnection);
    connection.endCork(corkedHere);
}

std::pair<bool, bool> HttpResponse::tryEnd(std::string_view data, std::uint64_t totalSize, bool closeConnection) {
    if (isStream()) [[unlikely]]
        return streamOf(this).tryEnd(data, totalSize, closeConnection);
    HttpConnection& connection = connectionOf(this);
    bool corkedHere = connection.beginCork();
    auto result = connection.tryEnd(data, totalSize, closeConnection);
    connection.endCork(corkedHere);
    return result;
}

std::optional<std::pair<bool, bool>> HttpResponse::tryEndFromFile(int fd, std::uint64_t fileOffset, std::uint64_t count,
                                                                  std::uint64_t totalSize, bool closeConnection) {
    if (isStream()) return std::nullopt;  // frames are made in user space, as TLS records are
    HttpConnection& connection = connectionOf(this);
    if (!connection.canSendFile()) return std::nullopt;
    bool corkedHere = connection.beginCork();
    auto result = connection.tryEndFromFile(fd, fileOffset, count, totalSize, closeConnection);
    connection.endCork(corkedHere);
    return result;
}

std::uint64_t HttpResponse::getWriteOffset() const noexcept {
    return isStream() ? streamOf(this).writeOffset() : connectionOf(this).writeOffset();
}

// A callback given to an HTTP/1.1 response that is not in progress would never run, and would outlive it into the
// next request: it is dropped here, which lets the connection begin each request without clearing the four (see
// beginRequest). One compare tells an HTTP/1.1 response in progress.
HttpResponse* HttpResponse::onWritable(WritableHandler handler) {
    if (http11Pending()) [[likely]] {
        HttpConnection& connection = connectionOf(this);
        connection.onWritable_ = std::move(handler);
        connection.callbacksHeld_ = true;
    } else if (isStream()) {
        streamOf(this).onWritable_ = std::move(handler);
    }
    return this;
}

HttpResponse* HttpResponse::onAborted(AbortedHandler handler) {
    if (http11Pending()) [[likely]] {
        HttpConnection& connection = connectionOf(this);
        connection.onAborted_ = std::move(handler);
        connection.callbacksHeld_ = true;
    } else if (isStream()) {
        streamOf(this).onAborted_ = std::move(handler);
    }
    return this;
}

HttpResponse* HttpResponse::onData(DataHandler handler) {
    if (http11Pending()) [[likely]] {
        HttpConnection& connection = connectionOf(this);
        connection.onData_ = std::move(handler);
        connection.callbacksHeld_ = true;
    } else if (isStream()) {
        streamOf(this).onData_ = std::move(handler);
    }
    return this;
}

HttpResponse* HttpResponse::onDataV2(DataV2Handler handler) {
    if (http11Pending()) [[likely]] {
        HttpConnection& connection = connectionOf(this);
        connection.onDataV2_ = std::move(handler);
        connection.callbacksHeld_ = true;
    } else if (isStream()) {
        streamOf(this).onDataV2_ = std::move(handler);
    }
    return this;
}

void HttpResponse::close() {
    if (isStream()) [[unlikely]]
        return streamOf(this).closeNow();
    connectionOf(this).closeNow();
}

void HttpResponse::pause() {
    if (isStream()) [[unlikely]]
        return streamOf(this).pauseRequest();
    connectionOf(this).pauseRequest();
}

void HttpResponse::resume() {
    if (isStream()) [[unlikely]]
        return streamOf(this).resumeRequest();
    connectionOf(this).resumeRequest();
}

std::string_view HttpResponse::getRemoteAddress() const noexcept { return socketOf(this).remoteAddress().bytes(); }

std::string_view HttpResponse::getRemoteAddressAsText() const noexcept {
    if (isStream()) [[unlikely]] {
        thread_local char text[SocketAddress::kMaxTextLength];
        return streamOf(this).socket().remoteAddress().toText(text);
    }
    return const_cast<HttpConnection&>(connectionOf(this)).remoteAddressText();
}

std::uint16_t HttpResponse::getRemotePort() const noexcept { return socketOf(this).remoteAddress().port(); }

std::string_view HttpResponse::getProxiedRemoteAddress() const noexcept {
    return socketOf(this).proxiedAddress().bytes();
}

std::string_view HttpResponse::getProxiedRemoteAddressAsText() const noexcept {
    // Formatted on demand: a buffer in every connection for a call few make would cost every connection.
    thread_local char text[SocketAddress::kMaxTextLength];
    return socketOf(this).proxiedAddress().toText(text);
}

std::uint16_t HttpResponse::getProxiedRemotePort() const noexcept { return socketOf(this).proxiedAddress().port(); }

std::string HttpResponse::getX509Certificate() const {
    const TlsSession* tls = socketOf(this).tlsSession();
    return tls != nullptr ? tls->peerCertificatePem() : std::string();
}

std::string_view HttpResponse::getServerName() const noexcept {
    const TlsSession* tls = socketOf(this).tlsSession();
    return tls != nullptr ? tls->serverName() : std::string_view();
}

SharedBlock* HttpResponse::blockHolding(std::string_view chunk) const noexcept {
    SharedBlock& received = socketOf(this).loop().receiveBlock();
    return received.contains(chunk) ? &received : nullptr;
}

bool HttpResponse::hasResponded() const noexcept {
    return isStream() ? streamOf(this).responseComplete() : connectionOf(this).responseComplete();
}

// An HTTP/2 stream cannot become a WebSocket (RFC 8441's extended CONNECT is not offered yet).
bool HttpResponse::canUpgrade() const noexcept { return !isStream() && connectionOf(this).canSwitchProtocols(); }

bool HttpResponse::refusedWrite() const noexcept {
    return isStream() ? streamOf(this).refusedWrite() : connectionOf(this).refusedWrite();
}

bool HttpResponse::isValidHeaderName(std::string_view name) noexcept { return http_syntax::isToken(name); }

bool HttpResponse::isValidHeaderValue(std::string_view value) noexcept {
    return http_syntax::hasNoLineBreakOrNul(value);
}

bool HttpResponse::beginCork() {
    if (isStream()) [[unlikely]] {
        Socket& socket = streamOf(this).socket();
        if (socket.isCorked()) return false;
        socket.cork();
        return true;
    }
    return connectionOf(this).beginCork();
}

void HttpResponse::endCork(bool corkedHere) {
    if (isStream()) [[unlikely]] {
        if (corkedHere) streamOf(this).socket().uncork();
        return;
    }
    connectionOf(this).endCork(corkedHere);
}

}  // namespace loopwire
