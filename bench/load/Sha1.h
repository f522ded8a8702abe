// Sha1: FIPS 180-4 SHA-1, for the WebSocket handshake's Sec-WebSocket-Accept only (never for security).
//
// Pure, no allocation. update() may be called any number of times with any split of the message; digest()
// finishes the hash (the object must not be updated afterwards).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::lwload {

class Sha1 {
public:
    using Digest = std::array<std::uint8_t, 20>;

    void update(std::string_view data) noexcept;
    Digest digest() noexcept;

    static Digest of(std::string_view data) noexcept {
        Sha1 sha;
        sha.update(data);
        return sha.digest();
    }

private:
    void compress(const std::uint8_t* block) noexcept;

    std::uint32_t state_[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
    std::uint8_t block_[64] = {};
    std::size_t blockLength_ = 0;
    std::uint64_t totalBytes_ = 0;
};

}  // namespace loopwire::lwload
