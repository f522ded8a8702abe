#include "ws/WebSocketHandshake.h"

#include "http/HttpSyntax.h"
#include "ws/Sha1.h"

#include <cstring>

namespace loopwire::ws {

namespace {

using http_syntax::equalsLowerCase;
using http_syntax::forEachListElement;
using http_syntax::trimOws;

// RFC 6455 section 1.3: appended to the key before hashing.
constexpr std::string_view kGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
// A key is 16 bytes: 22 base64 characters and two '=' of padding.
constexpr std::size_t kKeyBytes = 24;
constexpr std::size_t kKeyDataChars = 22;

constexpr char kBase64Alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The 6-bit value of a base64 character; -1 for any other byte.
int base64Value(char c) noexcept {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

bool listsToken(std::string_view list, std::string_view lowerToken) noexcept {
    return forEachListElement(list,
                              [lowerToken](std::string_view element) { return equalsLowerCase(element, lowerToken); });
}

}  // namespace

bool isValidKey(std::string_view key) noexcept {
    key = trimOws(key);
    if (key.size() != kKeyBytes || key[kKeyDataChars] != '=' || key[kKeyDataChars + 1] != '=') return false;
    for (std::size_t i = 0; i < kKeyDataChars; ++i) {
        if (base64Value(key[i]) < 0) return false;
    }
    // 22 characters carry 132 bits, 4 more than 16 bytes: in a canonical encoding they are zero.
    return (base64Value(key[kKeyDataChars - 1]) & 0x0F) == 0;
}

HandshakeError check(const HandshakeRequest& request) noexcept {
    if (request.method != "GET") return HandshakeError::NotGet;
    if (!request.http11) return HandshakeError::NotHttp11;
    if (!listsToken(request.upgrade, "websocket")) return HandshakeError::NoUpgradeToken;
    if (!listsToken(request.connection, "upgrade")) return HandshakeError::NoConnectionToken;
    if (trimOws(request.version) != "13") return HandshakeError::BadVersion;
    if (!isValidKey(request.key)) return HandshakeError::BadKey;
    return HandshakeError::None;
}

bool asksForWebSocket(const HandshakeRequest& request) noexcept {
    return !request.key.empty() || listsToken(request.upgrade, "websocket");
}

int statusFor(HandshakeError error) noexcept {
    switch (error) {
        case HandshakeError::None:
            return 0;
        case HandshakeError::BadVersion:
            return 426;
        default:
            return 400;
    }
}

std::string_view describe(HandshakeError error) noexcept {
    switch (error) {
        case HandshakeError::None:
            return "the request may be upgraded";
        case HandshakeError::NotGet:
            return "a WebSocket handshake must be a GET";
        case HandshakeError::NotHttp11:
            return "a WebSocket handshake needs HTTP/1.1";
        case HandshakeError::NoUpgradeToken:
            return "Upgrade does not list websocket";
        case HandshakeError::NoConnectionToken:
            return "Connection does not list upgrade";
        case HandshakeError::BadKey:
            return "Sec-WebSocket-Key is not base64 of 16 bytes";
        case HandshakeError::BadVersion:
            return "Sec-WebSocket-Version is not 13";
    }
    return "unknown handshake error";
}

void computeAccept(std::string_view key, char (&out)[kAcceptBytes]) noexcept {
    Sha1 sha;
    sha.add(trimOws(key));
    sha.add(kGuid);
    const Sha1::Digest digest = sha.finish();
    // 20 bytes: six groups of three, then two bytes and one '='.
    std::size_t o = 0;
    std::size_t i = 0;
    for (; i + 3 <= digest.size(); i += 3) {
        const std::uint32_t group = static_cast<std::uint32_t>(digest[i]) << 16 |
                                    static_cast<std::uint32_t>(digest[i + 1]) << 8 | digest[i + 2];
        for (int shift = 18; shift >= 0; shift -= 6)
            out[o++] = kBase64Alphabet[(group >> shift) & 0x3F];
    }
    const std::uint32_t rest = static_cast<std::uint32_t>(digest[i]) << 16 | static_cast<std::uint32_t>(digest[i + 1])
                                                                                 << 8;
    out[o++] = kBase64Alphabet[(rest >> 18) & 0x3F];
    out[o++] = kBase64Alphabet[(rest >> 12) & 0x3F];
    out[o++] = kBase64Alphabet[(rest >> 6) & 0x3F];
    out[o++] = '=';
}

}  // namespace loopwire::ws
