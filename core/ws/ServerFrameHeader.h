// ServerFrameHeader: the header of a frame a server sends (RFC 6455 section 5.2): FIN, RSV1 when compressed, the
// opcode, and the length in its shortest form, without a mask (servers never mask). Pure: no allocation.
#pragma once

#include "ws/FrameParser.h"

#include <cstddef>
#include <cstdint>

namespace loopwire::ws {

// The longest server frame header: 2 bytes and an 8-byte length.
constexpr std::size_t kMaxServerHeaderBytes = 10;

// The header's size for a payload of length bytes.
constexpr std::size_t serverHeaderSize(std::uint64_t length) noexcept {
    return length < 126 ? 2 : length <= 0xFFFF ? 4 : 10;
}

// Writes the header into out (at least serverHeaderSize(length) bytes); returns its size.
std::size_t writeServerHeader(char* out, Opcode opcode, std::uint64_t length, bool fin = true,
                              bool compressed = false) noexcept;

}  // namespace loopwire::ws
