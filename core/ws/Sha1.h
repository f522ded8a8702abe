// Sha1: the SHA-1 hash (FIPS 180-4), which the WebSocket handshake needs for Sec-WebSocket-Accept (RFC 6455
// section 4.2.2). Not for anything that needs security: SHA-1 has known collisions.
//
// The core has its own, written apart from lwload's (bench/load/Sha1.h): the load generator shares no code with
// the server it measures, so that one bug cannot make both agree.
//
// Pure, no allocation. add() takes the message in any number of pieces; finish() pads, and returns the digest
// (the object is then spent).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire {

class Sha1 {
public:
    static constexpr std::size_t kDigestBytes = 20;
    using Digest = std::array<std::uint8_t, kDigestBytes>;

    void add(std::string_view bytes) noexcept;
    Digest finish() noexcept;

    static Digest hash(std::string_view bytes) noexcept {
        Sha1 sha;
        sha.add(bytes);
        return sha.finish();
    }

private:
    static constexpr std::size_t kBlockBytes = 64;

    void processBlock(const std::uint8_t* block) noexcept;

    std::uint32_t h_[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
    std::uint8_t pending_[kBlockBytes] = {};
    std::size_t pendingBytes_ = 0;
    std::uint64_t messageBytes_ = 0;
};

}  // namespace loopwire
