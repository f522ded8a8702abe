// The WebSocket members of App and HttpResponse. They live in the ws layer, which builds on http, so that the
// http layer never depends on WebSockets.
#include <loopwire/App.h>

#include "http/HttpServer.h"
#include "ws/WebSocketConnection.h"
#include "ws/WebSocketContext.h"
#include "ws/WebSocketServer.h"

#include <cstdio>

namespace loopwire {

const char* WebSocketSettings::check() const noexcept {
    std::uint32_t compressor = compression & 0xFF;
    std::uint32_t decompressor = (compression >> 8) & 0xF;
    bool validCompressor = compressor <= SHARED_COMPRESSOR || ((compressor >> 4) >= 9 && (compressor >> 4) <= 15 &&
                                                               (compressor & 0xF) >= 1 && (compressor & 0xF) <= 9);
    bool validDecompressor = decompressor <= 1 || (decompressor >= 9 && decompressor <= 15);
    if (!validCompressor || !validDecompressor || (compression & ~0xFFFu) != 0) return "compression";
    if (idleTimeout != 0 && (idleTimeout < kMinIdleTimeoutSeconds || idleTimeout > kMaxIdleTimeoutSeconds)) {
        return "idleTimeout";
    }
    if (maxLifetime > kMaxLifetimeMinutes) return "maxLifetime";
    return nullptr;
}

bool App::addWebSocketRoute(std::string_view pattern, const WebSocketSettings& settings,
                            std::unique_ptr<WebSocketEvents> events) {
    if (settings.check() != nullptr || server_->isDispatching()) return false;
    WebSocketServer& webSockets = WebSocketServer::of(*server_);
    auto context = std::make_unique<WebSocketContext>(webSockets, settings, std::move(events));
    WebSocketContext* route = context.get();
    if (!server_->addRoute(HttpServer::kWebSocketRouteMethod, pattern,
                           [route](HttpResponse* response, HttpRequest* request) {
                               route->handleUpgradeRequest(response, request);
                           })) {
        return false;
    }
    webSockets.addContext(std::move(context));
    return true;
}

bool App::publish(std::string_view topic, std::string_view message, OpCode opCode, bool compress) {
    if (server_->extension<WebSocketServer>() == nullptr) return false;
    return WebSocketServer::of(*server_).publish(topic, message, opCode, compress, nullptr);
}

std::size_t App::numSubscribers(std::string_view topic) const {
    if (server_->extension<WebSocketServer>() == nullptr) return 0;
    return WebSocketServer::of(*server_).topics().subscriberCount(topic);
}

bool App::tryConnectPubSub(const PubSubOptions& options, PubSubEventHandler events, std::string& error) {
    return WebSocketServer::of(*server_).connectBroker(options, std::move(events), error);
}

App& App::connectPubSub(const PubSubOptions& options, PubSubEventHandler events) {
    std::string error;
    if (!tryConnectPubSub(options, std::move(events), error)) {
        std::fprintf(stderr, "loopwire: connectPubSub: %s\n", error.c_str());
    }
    return *this;
}

void App::disconnectPubSub() noexcept {
    if (server_->extension<WebSocketServer>() != nullptr) WebSocketServer::of(*server_).disconnectBroker();
}

bool App::getHistory(std::string_view topic, PubSubPosition since, PubSubHistoryHandler handler) {
    return WebSocketServer::of(*server_).readHistory(topic, since, std::move(handler));
}

PubSubStats App::pubSubStats() const noexcept {
    if (server_->extension<WebSocketServer>() == nullptr) return {};
    return WebSocketServer::of(*server_).brokerStats();
}

AnyWebSocket* HttpResponse::upgradeWith(std::string_view key, std::string_view protocol, std::string_view extensions,
                                        WebSocketContext* context, void (*construct)(void*, void*), void* argument) {
    if (context == nullptr) return nullptr;
    return context->upgrade(this, key, protocol, extensions, construct, argument);
}

}  // namespace loopwire
