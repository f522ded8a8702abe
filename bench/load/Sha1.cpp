#include "Sha1.h"

#include <cstring>

namespace loopwire::lwload {

namespace {

constexpr std::uint32_t rotl(std::uint32_t x, int n) noexcept { return (x << n) | (x >> (32 - n)); }

}  // namespace

void Sha1::compress(const std::uint8_t* block) noexcept {
    std::uint32_t w[80];
    for (int i = 0; i < 16; ++i) {
        w[i] = (std::uint32_t{block[4 * i]} << 24) | (std::uint32_t{block[4 * i + 1]} << 16) |
               (std::uint32_t{block[4 * i + 2]} << 8) | std::uint32_t{block[4 * i + 3]};
    }
    for (int i = 16; i < 80; ++i)
        w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);

    std::uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3], e = state_[4];
    for (int i = 0; i < 80; ++i) {
        std::uint32_t f;
        std::uint32_t k;
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999u;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1u;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDCu;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6u;
        }
        const std::uint32_t t = rotl(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rotl(b, 30);
        b = a;
        a = t;
    }
    state_[0] += a;
    state_[1] += b;
    state_[2] += c;
    state_[3] += d;
    state_[4] += e;
}

void Sha1::update(std::string_view data) noexcept {
    totalBytes_ += data.size();
    const auto* p = reinterpret_cast<const std::uint8_t*>(data.data());
    std::size_t n = data.size();
    while (n > 0) {
        const std::size_t take = n < 64 - blockLength_ ? n : 64 - blockLength_;
        std::memcpy(block_ + blockLength_, p, take);
        blockLength_ += take;
        p += take;
        n -= take;
        if (blockLength_ == 64) {
            compress(block_);
            blockLength_ = 0;
        }
    }
}

Sha1::Digest Sha1::digest() noexcept {
    // Padding: 0x80, zeros up to 56 bytes mod 64, then the message length in bits, big-endian.
    const std::uint64_t bits = totalBytes_ * 8;
    block_[blockLength_++] = 0x80;
    if (blockLength_ > 56) {
        std::memset(block_ + blockLength_, 0, 64 - blockLength_);
        compress(block_);
        blockLength_ = 0;
    }
    std::memset(block_ + blockLength_, 0, 56 - blockLength_);
    for (int i = 0; i < 8; ++i)
        block_[56 + i] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
    compress(block_);
    blockLength_ = 0;

    Digest out{};
    for (int i = 0; i < 5; ++i) {
        out[4 * i] = static_cast<std::uint8_t>(state_[i] >> 24);
        out[4 * i + 1] = static_cast<std::uint8_t>(state_[i] >> 16);
        out[4 * i + 2] = static_cast<std::uint8_t>(state_[i] >> 8);
        out[4 * i + 3] = static_cast<std::uint8_t>(state_[i]);
    }
    return out;
}

}  // namespace loopwire::lwload
