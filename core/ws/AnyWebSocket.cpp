// AnyWebSocket is the public face of WebSocketConnection: every method forwards to the connection it is part of.
#include <loopwire/WebSocket.h>

#include "ws/WebSocketConnection.h"
#include "ws/WebSocketServer.h"

namespace loopwire {

namespace {

WebSocketConnection& connectionOf(AnyWebSocket* socket) noexcept { return *static_cast<WebSocketConnection*>(socket); }
const WebSocketConnection& connectionOf(const AnyWebSocket* socket) noexcept {
    return *static_cast<const WebSocketConnection*>(socket);
}

}  // namespace

SendStatus AnyWebSocket::send(std::string_view message, OpCode opCode, bool compress) {
    return connectionOf(this).sendMessage(message, opCode, compress);
}

SendStatus AnyWebSocket::sendFirstFragment(std::string_view fragment, OpCode opCode, bool) {
    return connectionOf(this).sendFragment(fragment, opCode, true, false);
}

SendStatus AnyWebSocket::sendFragment(std::string_view fragment, bool) {
    return connectionOf(this).sendFragment(fragment, OpCode::Continuation, false, false);
}

SendStatus AnyWebSocket::sendLastFragment(std::string_view fragment, bool) {
    return connectionOf(this).sendFragment(fragment, OpCode::Continuation, false, true);
}

bool AnyWebSocket::isSendingFragments() const noexcept { return connectionOf(this).isSendingFragments(); }

SendStatus AnyWebSocket::ping(std::string_view message) { return connectionOf(this).sendPing(message); }

void AnyWebSocket::end(int code, std::string_view reason) { connectionOf(this).end(code, reason); }

void AnyWebSocket::close() { connectionOf(this).closeNow(); }

bool AnyWebSocket::subscribe(std::string_view topic) { return connectionOf(this).subscribe(topic); }

bool AnyWebSocket::unsubscribe(std::string_view topic) { return connectionOf(this).unsubscribe(topic); }

bool AnyWebSocket::isSubscribed(std::string_view topic) const {
    const WebSocketConnection& connection = connectionOf(this);
    return connection.server().topics().isSubscribed(&connection, topic);
}

void AnyWebSocket::visitTopics(void (*visit)(void* context, std::string_view topic), void* context) const {
    const WebSocketConnection& connection = connectionOf(this);
    connection.server().topics().forEachTopic(&connection, [&](std::string_view topic) { visit(context, topic); });
}

bool AnyWebSocket::publish(std::string_view topic, std::string_view message, OpCode opCode, bool compress) {
    WebSocketConnection& connection = connectionOf(this);
    if (connection.closedForApplication()) return false;
    return connection.server().publish(topic, message, opCode, compress, &connection);
}

bool AnyWebSocket::beginCork() { return connectionOf(this).beginCork(); }

void AnyWebSocket::endCork(bool corkedHere) { connectionOf(this).endCork(corkedHere); }

std::size_t AnyWebSocket::getBufferedAmount() const noexcept { return connectionOf(this).bufferedUserBytes(); }

std::string_view AnyWebSocket::getRemoteAddress() const noexcept { return connectionOf(this).remoteAddress().bytes(); }

std::string_view AnyWebSocket::getRemoteAddressAsText() const noexcept {
    return connectionOf(this).remoteAddressText();
}

std::uint16_t AnyWebSocket::getRemotePort() const noexcept { return connectionOf(this).remoteAddress().port(); }

std::string_view AnyWebSocket::getProxiedRemoteAddress() const noexcept {
    return connectionOf(this).proxiedAddress().bytes();
}

std::string_view AnyWebSocket::getProxiedRemoteAddressAsText() const noexcept {
    thread_local char text[SocketAddress::kMaxTextLength];
    return connectionOf(this).proxiedAddress().toText(text);
}

std::uint16_t AnyWebSocket::getProxiedRemotePort() const noexcept { return connectionOf(this).proxiedAddress().port(); }

bool AnyWebSocket::isClosed() const noexcept {
    const WebSocketConnection& connection = connectionOf(this);
    return connection.closedForApplication();
}

SharedBlock* AnyWebSocket::blockHolding(std::string_view bytes) const noexcept {
    SharedBlock& received = connectionOf(this).loop().receiveBlock();
    return received.contains(bytes) ? &received : nullptr;
}

void* AnyWebSocket::userData() noexcept { return connectionOf(this).userDataStorage(); }

}  // namespace loopwire
