// HpackInteger: the prefixed integers of HPACK (RFC 7541 section 5.1), read and written.
//
// An integer starts in the low prefixBits bits of a byte whose high bits belong to the representation; a value that
// does not fit the prefix continues in 7-bit groups, least significant first. Reading refuses values over
// kMaxHpackInteger and encodings longer than any such value needs (which would otherwise let a peer feed zero groups
// forever).
#pragma once

#include <cstddef>
#include <cstdint>

namespace loopwire::h2 {

// Well above any length or index a valid block can hold (the table and the header list are bounded far below it).
inline constexpr std::uint32_t kMaxHpackInteger = (1u << 28) - 1;
// The longest integer written: a prefix byte and four 7-bit groups hold any value up to kMaxHpackInteger.
inline constexpr std::size_t kMaxHpackIntegerBytes = 5;

enum class IntegerRead : std::uint8_t { Ok, Truncated, TooLarge };

// Reads the integer whose prefix is in data[at]; advances at past it.
inline IntegerRead readHpackInteger(const unsigned char* data, std::size_t size, std::size_t& at, unsigned prefixBits,
                                    std::uint32_t& value) noexcept {
    const std::uint32_t prefixMax = (1u << prefixBits) - 1;
    value = data[at++] & prefixMax;
    if (value < prefixMax) return IntegerRead::Ok;
    for (unsigned shift = 0;; shift += 7) {
        if (at == size) return IntegerRead::Truncated;
        const unsigned char group = data[at++];
        if (shift > 21) return IntegerRead::TooLarge;
        value += static_cast<std::uint32_t>(group & 0x7f) << shift;
        if (value > kMaxHpackInteger) return IntegerRead::TooLarge;
        if ((group & 0x80) == 0) return IntegerRead::Ok;
    }
}

// Writes value with the given prefix; highBits are the representation's bits above the prefix. Returns the end.
inline char* writeHpackInteger(char* out, unsigned prefixBits, std::uint8_t highBits, std::uint32_t value) noexcept {
    const std::uint32_t prefixMax = (1u << prefixBits) - 1;
    if (value < prefixMax) {
        *out++ = static_cast<char>(highBits | value);
        return out;
    }
    *out++ = static_cast<char>(highBits | prefixMax);
    value -= prefixMax;
    while (value >= 0x80) {
        *out++ = static_cast<char>((value & 0x7f) | 0x80);
        value >>= 7;
    }
    *out++ = static_cast<char>(value);
    return out;
}

}  // namespace loopwire::h2
