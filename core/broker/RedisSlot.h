// RedisSlot: which of Redis Cluster's 16,384 hash slots a channel belongs to (pure; no allocation).
//
// The slot is CRC16 (XMODEM) of the channel's name modulo 16,384, or of its hash tag: the text between the first
// '{' and the first '}' after it, when that text is not empty. A channel is prefix + topic, hashed without being
// assembled.
#pragma once

#include <cstdint>
#include <string_view>

namespace loopwire::broker {

struct RedisSlot {
    static constexpr std::uint16_t kSlotCount = 16384;

    // The slot of the channel prefix + topic.
    static std::uint16_t of(std::string_view prefix, std::string_view topic) noexcept;
    // CRC16-XMODEM (polynomial 0x1021, initial 0), as Redis Cluster computes it, continued from crc.
    static std::uint16_t crc16(std::string_view bytes, std::uint16_t crc = 0) noexcept;
};

}  // namespace loopwire::broker
