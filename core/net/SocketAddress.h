// SocketAddress: the address of a peer, compact enough to keep in every connection (20 bytes).
//
// bytes() is the raw address in network order: 4 bytes for IPv4, 16 for IPv6, empty for a Unix socket, the
// same shape as uWebSockets' getRemoteAddress. toText() formats it exactly as uWebSockets' getRemoteAddressAsText
// does, which frameworks parse: IPv4 dotted ("127.0.0.1"); IPv6, IPv4-mapped ones included, as eight groups of
// four lower-case hex digits, nothing shortened ("0000:0000:0000:0000:0000:ffff:7f00:0001").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

struct sockaddr;

namespace loopwire {

class SocketAddress {
public:
    // Longest text toText() writes, with its terminating NUL: an IPv6 address, 8 * 4 digits and 7 colons.
    static constexpr std::size_t kMaxTextLength = 40;

    SocketAddress() noexcept = default;
    static SocketAddress fromSockaddr(const sockaddr* address) noexcept;
    // An address given in network order: length 4 (IPv4) or 16 (IPv6); anything else gives an empty address.
    static SocketAddress fromBytes(const std::uint8_t* bytes, std::size_t length, std::uint16_t port) noexcept;

    std::string_view bytes() const noexcept { return {reinterpret_cast<const char*>(bytes_), length_}; }
    std::uint16_t port() const noexcept { return port_; }
    bool isIpv4() const noexcept { return length_ == 4; }
    bool isIpv6() const noexcept { return length_ == 16; }

    // Writes the text form into out (at least kMaxTextLength bytes) and returns a view of it; empty for Unix.
    std::string_view toText(char* out) const noexcept;

private:
    std::uint8_t bytes_[16] = {};
    std::uint8_t length_ = 0;
    std::uint16_t port_ = 0;
};

}  // namespace loopwire
