#include "ws/Sha1.h"

#include <bit>
#include <cstring>

namespace loopwire {

void Sha1::processBlock(const std::uint8_t* block) noexcept {
    // The message schedule is kept as a ring of 16 words, each extended in place when round t needs it.
    std::uint32_t w[16];
    for (int i = 0; i < 16; ++i) {
        w[i] = static_cast<std::uint32_t>(block[4 * i]) << 24 | static_cast<std::uint32_t>(block[4 * i + 1]) << 16 |
               static_cast<std::uint32_t>(block[4 * i + 2]) << 8 | static_cast<std::uint32_t>(block[4 * i + 3]);
    }
    std::uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4];
    for (int t = 0; t < 80; ++t) {
        std::uint32_t word;
        if (t < 16) {
            word = w[t];
        } else {
            word = std::rotl(w[(t + 13) & 15] ^ w[(t + 8) & 15] ^ w[(t + 2) & 15] ^ w[t & 15], 1);
            w[t & 15] = word;
        }
        std::uint32_t f;
        std::uint32_t k;
        if (t < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999u;
        } else if (t < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1u;
        } else if (t < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDCu;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6u;
        }
        const std::uint32_t next = std::rotl(a, 5) + f + e + k + word;
        e = d;
        d = c;
        c = std::rotl(b, 30);
        b = a;
        a = next;
    }
    h_[0] += a;
    h_[1] += b;
    h_[2] += c;
    h_[3] += d;
    h_[4] += e;
}

void Sha1::add(std::string_view bytes) noexcept {
    messageBytes_ += bytes.size();
    const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
    std::size_t left = bytes.size();
    if (pendingBytes_ > 0) {
        const std::size_t taken = left < kBlockBytes - pendingBytes_ ? left : kBlockBytes - pendingBytes_;
        std::memcpy(pending_ + pendingBytes_, p, taken);
        pendingBytes_ += taken;
        p += taken;
        left -= taken;
        if (pendingBytes_ < kBlockBytes) return;
        processBlock(pending_);
        pendingBytes_ = 0;
    }
    for (; left >= kBlockBytes; p += kBlockBytes, left -= kBlockBytes)
        processBlock(p);
    if (left > 0) std::memcpy(pending_, p, left);
    pendingBytes_ = left;
}

Sha1::Digest Sha1::finish() noexcept {
    // Padding: a 1 bit, zeros up to 8 bytes short of a block boundary, then the message length in bits.
    const std::uint64_t bits = messageBytes_ * 8;
    pending_[pendingBytes_++] = 0x80;
    if (pendingBytes_ > kBlockBytes - 8) {
        std::memset(pending_ + pendingBytes_, 0, kBlockBytes - pendingBytes_);
        processBlock(pending_);
        pendingBytes_ = 0;
    }
    std::memset(pending_ + pendingBytes_, 0, kBlockBytes - 8 - pendingBytes_);
    for (int i = 0; i < 8; ++i)
        pending_[kBlockBytes - 1 - i] = static_cast<std::uint8_t>(bits >> (8 * i));
    processBlock(pending_);
    Digest digest;
    for (int i = 0; i < 5; ++i) {
        for (int k = 0; k < 4; ++k)
            digest[4 * i + k] = static_cast<std::uint8_t>(h_[i] >> (24 - 8 * k));
    }
    return digest;
}

}  // namespace loopwire
