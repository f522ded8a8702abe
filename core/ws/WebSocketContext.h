// WebSocketContext: one App::ws() route: its settings, its handlers (WebSocketEvents), the deflate settings its
// compression option allows, and the HTTP side of its handshake.
//
// The route's GET handler calls handleUpgradeRequest(): a request without a Sec-WebSocket-Key or a
// Sec-WebSocket-Version is yielded to the next route, as uWebSockets yields it (a plain GET, or a broken handshake
// the application answers itself); if it asked for a WebSocket and no route takes it, it gets the handshake's
// error. One with both that breaks RFC 6455 section 4.2.1 gets 400 (426 with Sec-WebSocket-Version: 13 for
// another version); a valid one goes to the upgrade handler, or is upgraded with default user data when there is
// none. upgrade() then switches the connection: it answers 101, takes the socket over into a
// WebSocketConnection and runs the open handler. Owned by the WebSocketServer; lives as long as the App.
#pragma once

#include "ws/DeflateNegotiation.h"

#include <loopwire/HttpRequest.h>
#include <loopwire/HttpResponse.h>
#include <loopwire/WebSocketBehavior.h>

#include <cstdint>
#include <memory>
#include <string_view>

namespace loopwire {

class WebSocketServer;
class WebSocketConnection;

class WebSocketContext {
public:
    WebSocketContext(WebSocketServer& server, const WebSocketSettings& settings,
                     std::unique_ptr<WebSocketEvents> events);
    WebSocketContext(const WebSocketContext&) = delete;
    WebSocketContext& operator=(const WebSocketContext&) = delete;

    WebSocketServer& server() const noexcept { return server_; }
    const WebSocketSettings& settings() const noexcept { return settings_; }
    WebSocketEvents& events() const noexcept { return *events_; }
    const ws::DeflateSettings& deflateSettings() const noexcept { return deflate_; }
    // The halves of the compression option. Any non-zero option negotiates permessage-deflate; a half left out
    // is shared (as in uWebSockets: SHARED_COMPRESSOR alone inflates with the shared decompressor).
    bool hasDedicatedCompressor() const noexcept { return (settings_.compression & 0xFF) > SHARED_COMPRESSOR; }
    std::uint8_t dedicatedCompressorWindowBits() const noexcept { return (settings_.compression >> 4) & 0xF; }
    std::uint8_t dedicatedCompressorMemLevel() const noexcept { return settings_.compression & 0xF; }
    bool hasDedicatedDecompressor() const noexcept { return ((settings_.compression >> 8) & 0xF) > 1; }
    std::uint8_t dedicatedDecompressorWindowBits() const noexcept { return (settings_.compression >> 8) & 0xF; }

    // The route's GET handler (see the class comment).
    void handleUpgradeRequest(HttpResponse* response, HttpRequest* request);
    // HttpResponse::upgradeWith.
    WebSocketConnection* upgrade(HttpResponse* response, std::string_view key, std::string_view protocol,
                                 std::string_view extensions, void (*construct)(void*, void*), void* argument);

private:
    WebSocketServer& server_;
    WebSocketSettings settings_;
    std::unique_ptr<WebSocketEvents> events_;
    ws::DeflateSettings deflate_;
};

}  // namespace loopwire
