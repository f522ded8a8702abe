// HttpResponse is the public face of HttpConnection: every method forwards to the connection it is part of.
#include <loopwire/HttpResponse.h>

#include "HttpConnection.h"
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

}  // namespace

HttpResponse* HttpResponse::writeStatus(std::string_view status) {
    writeStatusIfValid(status);
    return this;
}

HttpResponse* HttpResponse::writeHeader(std::string_view key, std::string_view value) {
    writeHeaderIfValid(key, value);
    return this;
}

bool HttpResponse::writeStatusIfValid(std::string_view status) {
    HttpConnection& connection = connectionOf(this);
    connection.corkForHeaders();
    return connection.writeStatusLine(status);
}

bool HttpResponse::writeHeaderIfValid(std::string_view key, std::string_view value) {
    HttpConnection& connection = connectionOf(this);
    connection.corkForHeaders();
    return connection.writeHeaderField(key, value);
}

HttpResponse* HttpResponse::writeHeader(std::string_view key, std::uint64_t value) {
    char digits[20];
    return writeHeader(key, formatDecimal(value, digits));
}

bool HttpResponse::write(std::string_view chunk) {
    HttpConnection& connection = connectionOf(this);
    bool corkedHere = connection.beginCork();
    bool ok = connection.writeChunk(chunk);
    connection.endCork(corkedHere);
    return ok && connection.bufferedBytes() == 0;
}

void HttpResponse::end(std::string_view body, bool closeConnection) {
    HttpConnection& connection = connectionOf(this);
    bool corkedHere = connection.beginCork();
    connection.endResponse(body, closeConnection);
    connection.endCork(corkedHere);
}

void HttpResponse::endWithoutBody(std::optional<std::uint64_t> reportedContentLength, bool closeConnection) {
    HttpConnection& connection = connectionOf(this);
    bool corkedHere = connection.beginCork();
    connection.endWithoutBody(reportedContentLength, closeConnection);
    connection.endCork(corkedHere);
}

std::pair<bool, bool> HttpResponse::tryEnd(std::string_view data, std::uint64_t totalSize, bool closeConnection) {
    HttpConnection& connection = connectionOf(this);
    bool corkedHere = connection.beginCork();
    auto result = connection.tryEnd(data, totalSize, closeConnection);
    connection.endCork(corkedHere);
    return result;
}

std::optional<std::pair<bool, bool>> HttpResponse::tryEndFromFile(int fd, std::uint64_t fileOffset, std::uint64_t count,
                                                                  std::uint64_t totalSize, bool closeConnection) {
    HttpConnection& connection = connectionOf(this);
    if (!connection.canSendFile()) return std::nullopt;
    bool corkedHere = connection.beginCork();
    auto result = connection.tryEndFromFile(fd, fileOffset, count, totalSize, closeConnection);
    connection.endCork(corkedHere);
    return result;
}

std::uint64_t HttpResponse::getWriteOffset() const noexcept { return connectionOf(this).writeOffset(); }

HttpResponse* HttpResponse::onWritable(WritableHandler handler) {
    connectionOf(this).onWritable_ = std::move(handler);
    return this;
}

HttpResponse* HttpResponse::onAborted(AbortedHandler handler) {
    connectionOf(this).onAborted_ = std::move(handler);
    return this;
}

HttpResponse* HttpResponse::onData(DataHandler handler) {
    connectionOf(this).onData_ = std::move(handler);
    return this;
}

HttpResponse* HttpResponse::onDataV2(DataV2Handler handler) {
    connectionOf(this).onDataV2_ = std::move(handler);
    return this;
}

void HttpResponse::close() { connectionOf(this).closeNow(); }

void HttpResponse::pause() { connectionOf(this).pauseRequest(); }

void HttpResponse::resume() { connectionOf(this).resumeRequest(); }

std::string_view HttpResponse::getRemoteAddress() const noexcept { return connectionOf(this).remoteAddress().bytes(); }

std::string_view HttpResponse::getRemoteAddressAsText() const noexcept {
    return const_cast<HttpConnection&>(connectionOf(this)).remoteAddressText();
}

std::uint16_t HttpResponse::getRemotePort() const noexcept { return connectionOf(this).remoteAddress().port(); }

std::string_view HttpResponse::getProxiedRemoteAddress() const noexcept {
    return connectionOf(this).proxiedAddress().bytes();
}

std::string_view HttpResponse::getProxiedRemoteAddressAsText() const noexcept {
    // Formatted on demand: a buffer in every connection for a call few make would cost every connection.
    thread_local char text[SocketAddress::kMaxTextLength];
    return connectionOf(this).proxiedAddress().toText(text);
}

std::uint16_t HttpResponse::getProxiedRemotePort() const noexcept { return connectionOf(this).proxiedAddress().port(); }

std::string HttpResponse::getX509Certificate() const {
    const TlsSession* tls = connectionOf(this).tlsSession();
    return tls != nullptr ? tls->peerCertificatePem() : std::string();
}

std::string_view HttpResponse::getServerName() const noexcept {
    const TlsSession* tls = connectionOf(this).tlsSession();
    return tls != nullptr ? tls->serverName() : std::string_view();
}

SharedBlock* HttpResponse::blockHolding(std::string_view chunk) const noexcept {
    SharedBlock& received = const_cast<HttpConnection&>(connectionOf(this)).loop().receiveBlock();
    return received.contains(chunk) ? &received : nullptr;
}

bool HttpResponse::hasResponded() const noexcept { return connectionOf(this).responseComplete(); }

bool HttpResponse::canUpgrade() const noexcept { return connectionOf(this).canSwitchProtocols(); }

bool HttpResponse::refusedWrite() const noexcept { return connectionOf(this).refusedWrite(); }

bool HttpResponse::isValidHeaderName(std::string_view name) noexcept { return http_syntax::isToken(name); }

bool HttpResponse::isValidHeaderValue(std::string_view value) noexcept {
    return http_syntax::hasNoLineBreakOrNul(value);
}

bool HttpResponse::beginCork() { return connectionOf(this).beginCork(); }

void HttpResponse::endCork(bool corkedHere) { connectionOf(this).endCork(corkedHere); }

}  // namespace loopwire
