// WsHandshake: the client side of the RFC 6455 opening handshake, as pure functions.
//
// The load worker builds the upgrade request with buildUpgradeRequest(), reads the response head (through the
// blank line) into a buffer of its own, and checks it with validateUpgradeResponse(). Per connection, not per
// message: these functions may allocate.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace loopwire::lwload {

// The GUID RFC 6455 section 1.3 appends to the key.
inline constexpr std::string_view kWebSocketGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

// base64(SHA-1(key + GUID)): the Sec-WebSocket-Accept value a server must answer key with.
std::string computeAccept(std::string_view key);

// base64 of 16 bytes: a Sec-WebSocket-Key.
std::string makeKey(const std::uint8_t (&nonce)[16]);

// The GET request that asks to upgrade to WebSocket. extraHeaders: complete field lines, each ending in CRLF.
std::string buildUpgradeRequest(std::string_view path, std::string_view host, std::string_view key,
                                std::string_view extraHeaders);

enum class HandshakeError : std::uint8_t {
    None,
    BadResponse,          // not a well-formed HTTP/1.1 response head
    NotSwitching,         // a status other than 101 (statusCode says which)
    MissingUpgrade,       // no "Upgrade: websocket"
    MissingConnection,    // no "upgrade" token in Connection
    BadAccept,            // Sec-WebSocket-Accept missing or not the expected value
    UnexpectedExtension,  // Sec-WebSocket-Extensions, which lwload never offers
};

const char* handshakeErrorName(HandshakeError error) noexcept;

struct HandshakeResult {
    HandshakeError error;
    int statusCode;  // 0 when the status line could not be read
};

// head: the response from its first byte through the CRLFCRLF that ends the head.
HandshakeResult validateUpgradeResponse(std::string_view head, std::string_view expectedAccept) noexcept;

}  // namespace loopwire::lwload
