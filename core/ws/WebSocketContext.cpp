#include "WebSocketContext.h"

#include "http/HttpConnection.h"
#include "http/HttpSyntax.h"
#include "ws/WebSocketConnection.h"
#include "ws/WebSocketHandshake.h"
#include "ws/WebSocketServer.h"

#include <cstdio>

namespace loopwire {

namespace {

ws::DeflateSettings deflateSettingsFor(const WebSocketContext& context, const WebSocketSettings& settings) {
    ws::DeflateSettings deflate;
    deflate.enabled = settings.compression != DISABLED;
    if (!deflate.enabled) return deflate;
    // A shared half keeps no context between messages, and says so in the agreement.
    deflate.serverNoContextTakeover = !context.hasDedicatedCompressor();
    if (context.hasDedicatedCompressor()) deflate.serverMaxWindowBits = context.dedicatedCompressorWindowBits();
    deflate.clientNoContextTakeover = !context.hasDedicatedDecompressor();
    if (context.hasDedicatedDecompressor()) deflate.clientMaxWindowBits = context.dedicatedDecompressorWindowBits();
    return deflate;
}

// The 101 answer's fixed part: the status line (unless the handler wrote it), then the fields before
// Sec-WebSocket-Accept's value.
constexpr std::string_view k101StatusLine = "HTTP/1.1 101 Switching Protocols\r\n";
constexpr std::string_view k101Fields = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ";

ws::HandshakeRequest handshakeOf(HttpResponse* response, HttpRequest* request) {
    ws::HandshakeRequest handshake;
    handshake.method = request->getCaseSensitiveMethod();
    handshake.http11 = response->isStream() || !static_cast<HttpConnection&>(*response).isHttp10();
    handshake.upgrade = request->getHeader("upgrade");
    handshake.connection = request->getHeader("connection");
    handshake.key = request->getHeader("sec-websocket-key");
    handshake.version = request->getHeader("sec-websocket-version");
    return handshake;
}

void answerHandshakeError(HttpResponse* response, ws::HandshakeError error) {
    if (ws::statusFor(error) == 426) {
        response->writeStatus("426 Upgrade Required")->writeHeader("Sec-WebSocket-Version", "13");
    } else {
        response->writeStatus("400 Bad Request");
    }
    response->writeHeader("Content-Type", "text/plain")->end(ws::describe(error), true);
}

// The answer to a handshake without a key or a version that no route took.
void refuseHandshake(HttpResponse* response, HttpRequest* request) {
    ws::HandshakeError error = ws::check(handshakeOf(response, request));
    answerHandshakeError(response, error == ws::HandshakeError::None ? ws::HandshakeError::BadKey : error);
}

}  // namespace

WebSocketContext::WebSocketContext(WebSocketServer& server, const WebSocketSettings& settings,
                                   std::unique_ptr<WebSocketEvents> events)
    : server_(server), settings_(settings), events_(std::move(events)) {
    deflate_ = deflateSettingsFor(*this, settings_);
}

void WebSocketContext::handleUpgradeRequest(HttpResponse* response, HttpRequest* request) {
    ws::HandshakeRequest handshake = handshakeOf(response, request);
    if (handshake.key.empty() || handshake.version.empty()) {
        // Not a WebSocket handshake (as uWebSockets tells one: by its key), so another route may serve it: a plain
        // GET, an upgrade to another protocol, or a broken handshake that the application answers itself (engine.io
        // does). A request that asked for a WebSocket gets the handshake's error if no route takes it.
        request->setYield(true);
        if (ws::asksForWebSocket(handshake)) {
            request->setFallbackAnswer(
                [](HttpResponse* refused, HttpRequest* asked, void*) { refuseHandshake(refused, asked); }, nullptr);
        }
        return;
    }
    if (ws::HandshakeError error = ws::check(handshake); error != ws::HandshakeError::None) {
        answerHandshakeError(response, error);
        return;
    }
    if (events_->upgrade(response, request, this)) return;
    upgrade(
        response, handshake.key, request->getHeader("sec-websocket-protocol"),
        request->getHeader("sec-websocket-extensions"),
        [](void* storage, void* events) { static_cast<WebSocketEvents*>(events)->constructDefaultUserData(storage); },
        events_.get());
}

WebSocketConnection* WebSocketContext::upgrade(HttpResponse* response, std::string_view key, std::string_view protocol,
                                               std::string_view extensions, void (*construct)(void*, void*),
                                               void* argument) {
    if (!response->canUpgrade()) return nullptr;  // an HTTP/2 stream among others
    auto& http = static_cast<HttpConnection&>(*response);
    if (&http.loop() != &server_.loop()) {
        // A context of another App (another loop): the socket cannot move to it. A programmer error, answered
        // rather than followed.
        std::fprintf(stderr, "loopwire: upgrade with the context of another App's ws route refused (500)\n");
        response->writeStatus("500 Internal Server Error")->end("upgrade to another App's route", true);
        return nullptr;
    }
    if (!ws::isValidKey(key)) {
        response->writeStatus("400 Bad Request")
            ->writeHeader("Content-Type", "text/plain")
            ->end(ws::describe(ws::HandshakeError::BadKey), true);
        return nullptr;
    }
    // One subprotocol: the first of a list, as uWebSockets answers.
    protocol = http_syntax::trimOws(protocol.substr(0, protocol.find(',')));
    if (!HttpResponse::isValidHeaderValue(protocol)) protocol = {};
    ws::DeflateAgreement agreement = ws::DeflateAgreement::negotiate(extensions, deflate_);
    char accept[ws::kAcceptBytes];
    ws::computeAccept(key, accept);

    http.beginCork();
    if (!http.hasWrittenStatus()) http.write(k101StatusLine);
    http.write(k101Fields);
    http.write({accept, sizeof accept});
    if (!protocol.empty()) {
        http.write("\r\nSec-WebSocket-Protocol: ");
        http.write(protocol);
    }
    if (agreement.accepted) {
        char value[ws::kMaxDeflateResponseBytes];
        http.write("\r\nSec-WebSocket-Extensions: ");
        http.write({value, agreement.format(value)});
    }
    http.write("\r\n\r\n");

    WebSocketConnection* socket = WebSocketConnection::create(http, *this, agreement);
    construct(socket->userDataStorage(), argument);
    socket->markUserDataConstructed();
    socket->open();
    http.handOver(*socket);
    // Upgraded while the App drains (its request was in progress when the drain began): it ends as the others did.
    if (server_.http().isDraining() && !socket->closedForApplication()) [[unlikely]]
        socket->end(WebSocketServer::kDrainCloseCode, WebSocketServer::kDrainCloseReason);
    return socket->closedForApplication() ? nullptr : socket;
}

}  // namespace loopwire
