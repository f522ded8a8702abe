#include "WsFrameWriter.h"

#include <cstring>

namespace loopwire::lwload {

std::size_t writeClientHeader(std::uint8_t* out, WsOpcode op, bool fin, std::uint64_t n,
                              const std::uint8_t (&mask)[4]) noexcept {
    std::size_t i = 0;
    out[i++] = static_cast<std::uint8_t>((fin ? 0x80 : 0x00) | static_cast<std::uint8_t>(op));
    if (n < 126) {
        out[i++] = static_cast<std::uint8_t>(0x80 | n);
    } else if (n <= 0xffff) {
        out[i++] = 0x80 | 126;
        out[i++] = static_cast<std::uint8_t>(n >> 8);
        out[i++] = static_cast<std::uint8_t>(n);
    } else {
        out[i++] = 0x80 | 127;
        for (int shift = 56; shift >= 0; shift -= 8)
            out[i++] = static_cast<std::uint8_t>(n >> shift);
    }
    std::memcpy(out + i, mask, 4);
    return i + 4;
}

void applyMask(std::uint8_t* out, const std::uint8_t* in, std::size_t n, const std::uint8_t (&mask)[4],
               std::size_t offset) noexcept {
    for (std::size_t i = 0; i < n; ++i)
        out[i] = static_cast<std::uint8_t>(in[i] ^ mask[(offset + i) & 3]);
}

std::size_t writeClientControlFrame(std::uint8_t* out, WsOpcode op, std::string_view payload,
                                    const std::uint8_t (&mask)[4]) noexcept {
    const std::size_t n = payload.size() < 125 ? payload.size() : 125;
    const std::size_t header = writeClientHeader(out, op, true, n, mask);
    applyMask(out + header, reinterpret_cast<const std::uint8_t*>(payload.data()), n, mask, 0);
    return header + n;
}

}  // namespace loopwire::lwload
