// WebSocketHandshake: the server's side of the opening handshake (RFC 6455 section 4.2), as pure functions of the
// request's fields: whether a request asks for a WebSocket and may have one, the Sec-WebSocket-Accept answer, and
// the choice of a subprotocol.
//
// check() refuses with the status RFC 6455 section 4.2.2 asks for: 426 Upgrade Required (with
// `Sec-WebSocket-Version: 13`) for a version other than 13, 400 Bad Request for everything else that is wrong.
// Pure: no allocation, no I/O.
#pragma once

#include "http/HttpSyntax.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::ws {

// The fields of an upgrade request that the handshake reads, each the raw value of its header ("" when absent).
struct HandshakeRequest {
    std::string_view method;      // as sent: "GET"
    bool http11 = true;           // HTTP/1.1 or later (an HTTP/1.0 request cannot upgrade)
    std::string_view upgrade;     // Upgrade
    std::string_view connection;  // Connection
    std::string_view key;         // Sec-WebSocket-Key
    std::string_view version;     // Sec-WebSocket-Version
};

enum class HandshakeError : std::uint8_t {
    None,
    NotGet,             // the method is not GET
    NotHttp11,          // HTTP/1.0
    NoUpgradeToken,     // Upgrade does not list `websocket`
    NoConnectionToken,  // Connection does not list `upgrade`
    BadKey,             // Sec-WebSocket-Key is not the base64 form of 16 bytes
    BadVersion,         // Sec-WebSocket-Version is not 13: 426
};

// HandshakeError::None when the request may be upgraded.
HandshakeError check(const HandshakeRequest& request) noexcept;

// Whether the request asks for a WebSocket at all: its Upgrade field lists websocket, or it has a key.
bool asksForWebSocket(const HandshakeRequest& request) noexcept;

// 400 or 426 for an error; 0 for None.
int statusFor(HandshakeError error) noexcept;

// A short reason for logs and tests: "Sec-WebSocket-Key is not base64 of 16 bytes".
std::string_view describe(HandshakeError error) noexcept;

// Whether key is 24 base64 characters encoding 16 bytes (22 characters, the last of which leaves no stray bits,
// then "==").
bool isValidKey(std::string_view key) noexcept;

// The Sec-WebSocket-Accept value for key: base64(SHA-1(key + the GUID of RFC 6455)), kAcceptBytes characters.
constexpr std::size_t kAcceptBytes = 28;
void computeAccept(std::string_view key, char (&out)[kAcceptBytes]) noexcept;

// The first protocol of the client's Sec-WebSocket-Protocol list (offered, in its order of preference) that
// isSupported(protocol) accepts; "" when none does (the server then sends no Sec-WebSocket-Protocol).
template <typename Predicate>
std::string_view selectProtocol(std::string_view offered, Predicate&& isSupported) noexcept {
    return http_syntax::forEachListElement(offered, [&isSupported](std::string_view protocol) -> std::string_view {
        return isSupported(protocol) ? protocol : std::string_view();
    });
}

}  // namespace loopwire::ws
