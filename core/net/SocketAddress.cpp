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

std::string_view SocketAddress::toText(char* out) const noexcept {
    static constexpr std::uint8_t kMappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    const char* text = nullptr;
    if (length_ == 4) {
        text = inet_ntop(AF_INET, bytes_, out, kMaxTextLength);
    } else if (length_ == 16 && std::memcmp(bytes_, kMappedPrefix, 12) == 0) {
        text = inet_ntop(AF_INET, bytes_ + 12, out, kMaxTextLength);
    } else if (length_ == 16) {
        text = inet_ntop(AF_INET6, bytes_, out, kMaxTextLength);
    }
    if (text == nullptr) return {};
    return {out, std::strlen(out)};
}

}  // namespace loopwire
