#include "IpNetwork.h"

#include <arpa/inet.h>

#include <cstring>

namespace loopwire {

namespace {

// The 12 bytes an IPv4-mapped IPv6 address starts with (RFC 4291 section 2.5.5.2).
constexpr std::uint8_t kMappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};

bool samePrefix(const std::uint8_t* a, const std::uint8_t* b, unsigned bits) noexcept {
    const unsigned whole = bits / 8;
    if (std::memcmp(a, b, whole) != 0) return false;
    const unsigned rest = bits % 8;
    if (rest == 0) return true;
    const auto mask = static_cast<std::uint8_t>(0xFF << (8 - rest));
    return (a[whole] & mask) == (b[whole] & mask);
}

}  // namespace

std::optional<IpNetwork> IpNetwork::parse(std::string_view text) noexcept {
    const std::size_t slash = text.find('/');
    const std::string_view addressText = text.substr(0, slash);
    char terminated[INET6_ADDRSTRLEN + 1];
    if (addressText.empty() || addressText.size() >= sizeof terminated) return std::nullopt;
    std::memcpy(terminated, addressText.data(), addressText.size());
    terminated[addressText.size()] = '\0';
    IpNetwork network;
    if (::inet_pton(AF_INET, terminated, network.bytes_) == 1) {
        network.length_ = 4;
    } else if (::inet_pton(AF_INET6, terminated, network.bytes_) == 1) {
        network.length_ = 16;
    } else {
        return std::nullopt;
    }
    unsigned bits = network.length_ * 8u;
    if (slash != std::string_view::npos) {
        const std::string_view prefix = text.substr(slash + 1);
        if (prefix.empty() || prefix.size() > 3) return std::nullopt;
        bits = 0;
        for (char c : prefix) {
            if (c < '0' || c > '9') return std::nullopt;
            bits = bits * 10 + static_cast<unsigned>(c - '0');
        }
        if (bits > network.length_ * 8u) return std::nullopt;
    }
    network.prefixBits_ = static_cast<std::uint8_t>(bits);
    // "10.1.0.0/8" most likely means something else than it says: refused rather than guessed.
    std::uint8_t masked[16] = {};
    std::memcpy(masked, network.bytes_, network.length_);
    for (unsigned bit = bits; bit < network.length_ * 8u; ++bit)
        masked[bit / 8] = static_cast<std::uint8_t>(masked[bit / 8] & ~(0x80 >> (bit % 8)));
    if (std::memcmp(masked, network.bytes_, network.length_) != 0) return std::nullopt;
    return network;
}

bool IpNetwork::contains(const SocketAddress& address) const noexcept {
    const std::string_view bytes = address.bytes();
    const auto* peer = reinterpret_cast<const std::uint8_t*>(bytes.data());
    if (bytes.size() == length_) return samePrefix(peer, bytes_, prefixBits_);
    if (length_ == 4 && bytes.size() == 16 && std::memcmp(peer, kMappedPrefix, sizeof kMappedPrefix) == 0) {
        return samePrefix(peer + 12, bytes_, prefixBits_);
    }
    return false;
}

}  // namespace loopwire
