// WsFrameWriter: builds the masked frames a WebSocket client sends (RFC 6455 section 5.2, 5.3).
//
// Pure, no allocation: the caller owns the output buffer.
#pragma once

#include "WsFrameParser.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::lwload {

// Bytes of the header of a masked client frame with an n-byte payload: 2 + 0, 2 or 8 length bytes + 4 mask bytes.
constexpr std::size_t clientHeaderLength(std::uint64_t n) noexcept {
    return 2 + (n < 126 ? 0 : n <= 0xffff ? 2 : 8) + 4;
}

// The largest control frame: 2 + 4 header bytes and 125 payload bytes.
inline constexpr std::size_t kMaxControlFrameBytes = 131;

// Writes the header of a final (fin) or non-final frame of opcode op and payload length n, masked with mask,
// to out, which has room for clientHeaderLength(n) bytes. Returns the number of bytes written.
std::size_t writeClientHeader(std::uint8_t* out, WsOpcode op, bool fin, std::uint64_t n,
                              const std::uint8_t (&mask)[4]) noexcept;

// out[i] = in[i] ^ mask[(offset + i) % 4] for i < n: masks (or unmasks) the payload bytes that start at
// payload offset `offset`. out and in may be the same.
void applyMask(std::uint8_t* out, const std::uint8_t* in, std::size_t n, const std::uint8_t (&mask)[4],
               std::size_t offset) noexcept;

// Writes a whole masked control frame (payload at most 125 bytes) to out, which has room for
// kMaxControlFrameBytes. Returns its length.
std::size_t writeClientControlFrame(std::uint8_t* out, WsOpcode op, std::string_view payload,
                                    const std::uint8_t (&mask)[4]) noexcept;

}  // namespace loopwire::lwload
