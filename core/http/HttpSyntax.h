// Character classes and small pieces of the HTTP grammar (RFC 9110), shared by the parser, the chunked decoder
// and the response writer. constexpr, so the parsers build their lookup tables from them at compile time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace loopwire::http_syntax {

// tchar (RFC 9110 section 5.6.2): the bytes of a method, a header name or a chunk-extension name.
constexpr bool isTokenChar(unsigned c) noexcept {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
    switch (c) {
        case '!':
        case '#':
        case '$':
        case '%':
        case '&':
        case '\'':
        case '*':
        case '+':
        case '-':
        case '.':
        case '^':
        case '_':
        case '`':
        case '|':
        case '~':
            return true;
        default:
            return false;
    }
}

// isTokenChar as a table, for the loops that check every byte of a name.
struct TokenTable {
    bool isToken[256];
};
constexpr TokenTable makeTokenTable() noexcept {
    TokenTable table{};
    for (unsigned c = 0; c < 256; ++c)
        table.isToken[c] = isTokenChar(c);
    return table;
}
inline constexpr TokenTable kTokenTable = makeTokenTable();

// Whether text is a token (RFC 9110 section 5.6.2): a header name, a method. Empty is not.
// Four bytes per step, their table entries ANDed without a branch each: a response's header names are checked on
// every write, and a per-byte branch cost twice as much.
inline bool isToken(std::string_view text) noexcept {
    if (text.empty()) return false;
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t size = text.size();
    const bool* isTokenByte = kTokenTable.isToken;
    std::size_t i = 0;
    for (; i + 4 <= size; i += 4) {
        if (!(isTokenByte[bytes[i]] & isTokenByte[bytes[i + 1]] & isTokenByte[bytes[i + 2]] &
              isTokenByte[bytes[i + 3]])) {
            return false;
        }
    }
    bool all = true;
    for (; i < size; ++i)
        all &= isTokenByte[bytes[i]];
    return all;
}

// Whether a field value (or a status line) written into a response holds no CR, LF or NUL, which would end the
// line early or split the response.
//
// Eight bytes at a time. (x - n * 0x01...) & ~x & 0x80... is non-zero exactly when some byte of x is below n
// (for n up to 0x80). A word without a byte below 14 holds none of the three, and that one test passes nearly every
// word of a real value; a word that fails it (a tab) is tested for the three exactly, each as a zero byte after an
// XOR with it. The last bytes are read as one word that overlaps the previous one, and a value of 4 to 7 bytes as
// two 4-byte halves that overlap: no byte loop, whatever the length.
inline bool hasNoLineBreakOrNul(std::string_view value) noexcept {
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
    constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
    constexpr auto anyByteBelow = [](std::uint64_t x, std::uint64_t n) {
        return ((x - kOnes * n) & ~x & kHighBits) != 0;
    };
    constexpr auto isClean = [anyByteBelow](std::uint64_t x) {
        return !anyByteBelow(x, '\r' + 1) ||
               !(anyByteBelow(x, 1) || anyByteBelow(x ^ (kOnes * '\r'), 1) || anyByteBelow(x ^ (kOnes * '\n'), 1));
    };
    const char* bytes = value.data();
    const std::size_t size = value.size();
    if (size >= 8) {
        std::uint64_t word;
        for (std::size_t i = 0; i + 8 < size; i += 8) {
            std::memcpy(&word, bytes + i, sizeof word);
            if (!isClean(word)) return false;
        }
        std::memcpy(&word, bytes + size - 8, sizeof word);
        return isClean(word);
    }
    if (size >= 4) {
        std::uint32_t first;
        std::uint32_t last;
        std::memcpy(&first, bytes, sizeof first);
        std::memcpy(&last, bytes + size - 4, sizeof last);
        return isClean(first | (static_cast<std::uint64_t>(last) << 32));
    }
    for (std::size_t i = 0; i < size; ++i) {
        if (bytes[i] == '\r' || bytes[i] == '\n' || bytes[i] == '\0') return false;
    }
    return true;
}

// Whether text equals lower, ASCII letters compared without case (lower is lower-case: a field name, a token).
constexpr bool equalsLowerCase(std::string_view text, std::string_view lower) noexcept {
    if (text.size() != lower.size()) return false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        unsigned c = static_cast<unsigned char>(text[i]);
        if (c >= 'A' && c <= 'Z') c += 32;
        if (c != static_cast<unsigned char>(lower[i])) return false;
    }
    return true;
}

// OWS (RFC 9110 section 5.6.3): optional spaces and tabs.
constexpr bool isOws(char c) noexcept { return c == ' ' || c == '\t'; }

constexpr std::string_view trimOws(std::string_view s) noexcept {
    while (!s.empty() && isOws(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isOws(s.back()))
        s.remove_suffix(1);
    return s;
}

// Calls f(element) for each non-empty element of a comma-separated list, without its OWS (empty elements are
// skipped, as RFC 9110 section 5.6.1 asks of recipients), until f returns something other than a
// value-initialized result (HttpError::None, false); returns that result, or the value-initialized one.
template <typename F>
constexpr auto forEachListElement(std::string_view list, F f) noexcept -> decltype(f(list)) {
    using Result = decltype(f(list));
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        const std::string_view element = trimOws(list.substr(0, comma));
        if (!element.empty()) {
            const Result result = f(element);
            if (result != Result{}) return result;
        }
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return Result{};
}

// A Content-Length value (RFC 9110 section 8.6): decimal digits, optional whitespace around them, at most 19 of
// them (so no overflow); nothing otherwise.
inline std::optional<std::uint64_t> parseContentLength(std::string_view value) noexcept {
    value = trimOws(value);
    if (value.empty() || value.size() > 19) return std::nullopt;
    std::uint64_t length = 0;
    for (const char c : value) {
        if (c < '0' || c > '9') return std::nullopt;
        length = length * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return length;
}

// Whether a Connection field value lists the token `close` (RFC 9110 section 7.6.1: a comma-separated list).
inline bool listsClose(std::string_view value) noexcept {
    return forEachListElement(value, [](std::string_view option) { return equalsLowerCase(option, "close"); });
}

}  // namespace loopwire::http_syntax
