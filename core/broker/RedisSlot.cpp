#include "RedisSlot.h"

#include <array>

namespace loopwire::broker {

namespace {

constexpr std::array<std::uint16_t, 256> makeCrcTable() {
    std::array<std::uint16_t, 256> table{};
    for (unsigned byte = 0; byte < 256; ++byte) {
        unsigned crc = byte << 8;
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
        table[byte] = static_cast<std::uint16_t>(crc);
    }
    return table;
}

constexpr std::array<std::uint16_t, 256> kCrcTable = makeCrcTable();

// The part of prefix + topic between its first '{' and the first '}' after it, as a pair of pieces (one in the
// prefix, one in the topic), or the whole name when there is no such part or it is empty.
struct HashedPart {
    std::string_view first;
    std::string_view second;
};

HashedPart hashedPart(std::string_view prefix, std::string_view topic) noexcept {
    const std::size_t open = prefix.find('{');
    if (open != std::string_view::npos) {
        const std::string_view afterInPrefix = prefix.substr(open + 1);
        const std::size_t close = afterInPrefix.find('}');
        if (close != std::string_view::npos)
            return close == 0 ? HashedPart{prefix, topic} : HashedPart{afterInPrefix.substr(0, close), {}};
        const std::size_t closeInTopic = topic.find('}');
        if (closeInTopic == std::string_view::npos) return {prefix, topic};
        if (afterInPrefix.empty() && closeInTopic == 0) return {prefix, topic};
        return {afterInPrefix, topic.substr(0, closeInTopic)};
    }
    const std::size_t openInTopic = topic.find('{');
    if (openInTopic == std::string_view::npos) return {prefix, topic};
    const std::size_t closeInTopic = topic.find('}', openInTopic + 1);
    if (closeInTopic == std::string_view::npos || closeInTopic == openInTopic + 1) return {prefix, topic};
    return {topic.substr(openInTopic + 1, closeInTopic - openInTopic - 1), {}};
}

}  // namespace

std::uint16_t RedisSlot::crc16(std::string_view bytes, std::uint16_t crc) noexcept {
    for (const char byte : bytes)
        crc =
            static_cast<std::uint16_t>((crc << 8) ^ kCrcTable[((crc >> 8) ^ static_cast<unsigned char>(byte)) & 0xff]);
    return crc;
}

std::uint16_t RedisSlot::of(std::string_view prefix, std::string_view topic) noexcept {
    const HashedPart part = hashedPart(prefix, topic);
    return static_cast<std::uint16_t>(crc16(part.second, crc16(part.first)) % kSlotCount);
}

}  // namespace loopwire::broker
