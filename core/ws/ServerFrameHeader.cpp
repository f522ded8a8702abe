#include "ws/ServerFrameHeader.h"

namespace loopwire::ws {

std::size_t writeServerHeader(char* out, Opcode opcode, std::uint64_t length, bool fin, bool compressed) noexcept {
    out[0] = static_cast<char>((fin ? 0x80 : 0) | (compressed ? 0x40 : 0) | static_cast<std::uint8_t>(opcode));
    if (length < 126) {
        out[1] = static_cast<char>(length);
        return 2;
    }
    if (length <= 0xFFFF) {
        out[1] = static_cast<char>(126);
        out[2] = static_cast<char>(length >> 8);
        out[3] = static_cast<char>(length & 0xFF);
        return 4;
    }
    out[1] = static_cast<char>(127);
    for (int i = 0; i < 8; ++i)
        out[2 + i] = static_cast<char>((length >> (56 - 8 * i)) & 0xFF);
    return 10;
}

}  // namespace loopwire::ws
