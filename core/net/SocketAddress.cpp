#include "SocketAddress.h"

#include <arpa/inet.h>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>

namespace loopwire {

SocketAddress SocketAddress::fromSockaddr(const sockaddr* address) noexcept {
    SocketAddress result;
    if (address == nullptr) return result;
    if (address->sa_family == AF_INET) {
        sockaddr_in v4{};
        std::memcpy(&v4, address, sizeof v4);
        std::memcpy(result.bytes_, &v4.sin_addr, 4);
        result.length_ = 4;
        result.port_ = ntohs(v4.sin_port);
    } else if (address->sa_family == AF_INET6) {
        sockaddr_in6 v6{};
        std::memcpy(&v6, address, sizeof v6);
        std::memcpy(result.bytes_, &v6.sin6_addr, 16);
        result.length_ = 16;
        result.port_ = ntohs(v6.sin6_port);
    }
    return result;
}

SocketAddress SocketAddress::fromBytes(const std::uint8_t* bytes, std::size_t length, std::uint16_t port) noexcept {
    SocketAddress result;
    if (length != 4 && length != 16) return result;
    std::memcpy(result.bytes_, bytes, length);
    result.length_ = static_cast<std::uint8_t>(length);
    result.port_ = port;
    return result;
}

std::string_view SocketAddress::toText(char* out) const noexcept {
    static constexpr char kHexDigits[] = "0123456789abcdef";
    if (length_ == 4) {
        if (inet_ntop(AF_INET, bytes_, out, kMaxTextLength) == nullptr) return {};
        return {out, std::strlen(out)};
    }
    if (length_ != 16) return {};
    char* at = out;
    for (std::size_t i = 0; i < 16; ++i) {
        if (i > 0 && i % 2 == 0) *at++ = ':';
        *at++ = kHexDigits[bytes_[i] >> 4];
        *at++ = kHexDigits[bytes_[i] & 0xf];
    }
    *at = '\0';
    return {out, static_cast<std::size_t>(at - out)};
}

}  // namespace loopwire
