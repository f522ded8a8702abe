#include "WsHandshake.h"

#include "Base64.h"
#include "HttpSyntax.h"
#include "Sha1.h"

namespace loopwire::lwload {

std::string computeAccept(std::string_view key) {
    Sha1 sha;
    sha.update(key);
    sha.update(kWebSocketGuid);
    const Sha1::Digest digest = sha.digest();
    return base64Encode(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

std::string makeKey(const std::uint8_t (&nonce)[16]) {
    return base64Encode(std::string_view(reinterpret_cast<const char*>(nonce), sizeof nonce));
}

std::string buildUpgradeRequest(std::string_view path, std::string_view host, std::string_view key,
                                std::string_view extraHeaders) {
    std::string request;
    request.reserve(160 + path.size() + host.size() + extraHeaders.size());
    request.append("GET ").append(path).append(" HTTP/1.1\r\n");
    request.append("Host: ").append(host).append("\r\n");
    request.append("Upgrade: websocket\r\nConnection: Upgrade\r\n");
    request.append("Sec-WebSocket-Key: ").append(key).append("\r\n");
    request.append("Sec-WebSocket-Version: 13\r\n");
    request.append(extraHeaders);
    request.append("\r\n");
    return request;
}

const char* handshakeErrorName(HandshakeError error) noexcept {
    switch (error) {
        case HandshakeError::None:
            return "none";
        case HandshakeError::BadResponse:
            return "malformed upgrade response";
        case HandshakeError::NotSwitching:
            return "status is not 101";
        case HandshakeError::MissingUpgrade:
            return "no Upgrade: websocket";
        case HandshakeError::MissingConnection:
            return "no Connection: upgrade";
        case HandshakeError::BadAccept:
            return "wrong Sec-WebSocket-Accept";
        case HandshakeError::UnexpectedExtension:
            return "unexpected Sec-WebSocket-Extensions";
    }
    return "unknown";
}

HandshakeResult validateUpgradeResponse(std::string_view head, std::string_view expectedAccept) noexcept {
    using http::equalsLower;
    // The status line: "HTTP/1.1 101 ..." (RFC 6455 section 4.1 requires HTTP/1.1 or later).
    std::size_t end = head.find("\r\n");
    if (end == std::string_view::npos) return {HandshakeError::BadResponse, 0};
    const std::string_view statusLine = head.substr(0, end);
    if (statusLine.size() < 12 || statusLine.compare(0, 9, "HTTP/1.1 ") != 0) {
        return {HandshakeError::BadResponse, 0};
    }
    int code = 0;
    for (std::size_t i = 9; i < 12; ++i) {
        if (statusLine[i] < '0' || statusLine[i] > '9') return {HandshakeError::BadResponse, 0};
        code = code * 10 + (statusLine[i] - '0');
    }
    if (statusLine.size() > 12 && statusLine[12] != ' ') return {HandshakeError::BadResponse, 0};
    if (code != 101) return {HandshakeError::NotSwitching, code};

    bool upgrade = false;
    bool connection = false;
    bool accepted = false;
    bool extension = false;
    bool blankLine = false;
    head.remove_prefix(end + 2);
    while (!head.empty()) {
        end = head.find("\r\n");
        if (end == std::string_view::npos) return {HandshakeError::BadResponse, code};
        const std::string_view line = head.substr(0, end);
        head.remove_prefix(end + 2);
        if (line.empty()) {
            blankLine = true;
            break;
        }
        std::string_view name;
        std::string_view value;
        if (!http::splitField(line, name, value)) return {HandshakeError::BadResponse, code};
        if (equalsLower(name, "upgrade")) {
            upgrade = upgrade || equalsLower(value, "websocket");
        } else if (equalsLower(name, "connection")) {
            http::forEachListElement(value, [&connection](std::string_view option) {
                if (equalsLower(option, "upgrade")) connection = true;
                return true;
            });
        } else if (equalsLower(name, "sec-websocket-accept")) {
            if (accepted || value != expectedAccept) return {HandshakeError::BadAccept, code};
            accepted = true;
        } else if (equalsLower(name, "sec-websocket-extensions")) {
            extension = true;
        }
    }
    if (!blankLine || !head.empty()) return {HandshakeError::BadResponse, code};
    if (!upgrade) return {HandshakeError::MissingUpgrade, code};
    if (!connection) return {HandshakeError::MissingConnection, code};
    if (!accepted) return {HandshakeError::BadAccept, code};
    if (extension) return {HandshakeError::UnexpectedExtension, code};
    return {HandshakeError::None, code};
}

}  // namespace loopwire::lwload
