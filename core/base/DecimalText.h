// formatDecimal: an unsigned integer as decimal digits, in a caller's buffer, with no allocation and no locale. For
// the numbers of response heads (Content-Length, Content-Range) and the like.
#pragma once

#include <cstdint>
#include <string_view>

namespace loopwire {

// Writes value in decimal at the end of out (20 bytes: the digits of 2^64 - 1); returns the digits.
inline std::string_view formatDecimal(std::uint64_t value, char (&out)[20]) noexcept {
    char* end = out + sizeof out;
    char* at = end;
    do {
        *--at = static_cast<char>('0' + value % 10);
        value /= 10;
    } while (value != 0);
    return {at, static_cast<std::size_t>(end - at)};
}

}  // namespace loopwire
