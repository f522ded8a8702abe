#include "BrokerEnvelope.h"

namespace loopwire::broker {

namespace {
constexpr std::uint8_t kBinaryFlag = 1;
constexpr std::uint8_t kCompressFlag = 2;
constexpr std::uint8_t kNumberedFlag = 4;
}  // namespace

std::string_view BrokerEnvelope::writeTo(char (&out)[kBytes]) const noexcept {
    out[0] = '\0';
    out[1] = 'L';
    out[2] = 'W';
    out[3] = static_cast<char>(kVersion);
    out[4] =
        static_cast<char>((binary ? kBinaryFlag : 0) | (compress ? kCompressFlag : 0) | (numbered ? kNumberedFlag : 0));
    for (int i = 0; i < 8; ++i)
        out[5 + i] = static_cast<char>((origin >> (8 * i)) & 0xFF);
    return {out, kBytes};
}

bool BrokerEnvelope::readFrom(std::string_view& message) noexcept {
    if (message.size() < kBytes || message[0] != '\0' || message[1] != 'L' || message[2] != 'W' ||
        static_cast<std::uint8_t>(message[3]) != kVersion) {
        return false;
    }
    const auto flags = static_cast<std::uint8_t>(message[4]);
    binary = (flags & kBinaryFlag) != 0;
    compress = (flags & kCompressFlag) != 0;
    numbered = (flags & kNumberedFlag) != 0;
    origin = 0;
    for (int i = 0; i < 8; ++i)
        origin |= std::uint64_t{static_cast<unsigned char>(message[5 + i])} << (8 * i);
    message.remove_prefix(kBytes);
    return true;
}

}  // namespace loopwire::broker
