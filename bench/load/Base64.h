// Base64: RFC 4648 section 4 encoding (standard alphabet, '=' padding), for the WebSocket handshake.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace loopwire::lwload {

// Bytes of output for n bytes of input.
constexpr std::size_t base64Length(std::size_t n) noexcept { return (n + 2) / 3 * 4; }

// Writes base64Length(data.size()) characters to out. No allocation.
void base64Encode(std::string_view data, char* out) noexcept;

inline std::string base64Encode(std::string_view data) {
    std::string out(base64Length(data.size()), '\0');
    base64Encode(data, out.data());
    return out;
}

}  // namespace loopwire::lwload
