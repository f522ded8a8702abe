// IpNetwork: an IPv4 or IPv6 network, an address and a prefix length ("10.0.0.0/8", "2001:db8::/32", or one
// address, "192.0.2.7", which is its own /32 or /128), and whether a peer's address lies in it. An IPv4 network
// also contains the IPv4-mapped IPv6 form of its addresses, which a dual-stack listener reports
// ("::ffff:10.1.2.3").
#pragma once

#include "SocketAddress.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace loopwire {

class IpNetwork {
public:
    // The network text names; nullopt when it is none (not an address, a prefix longer than the address, host bits
    // set past the prefix).
    static std::optional<IpNetwork> parse(std::string_view text) noexcept;

    bool contains(const SocketAddress& address) const noexcept;

private:
    std::uint8_t bytes_[16] = {};
    std::uint8_t length_ = 0;  // 4 or 16
    std::uint8_t prefixBits_ = 0;
};

}  // namespace loopwire
