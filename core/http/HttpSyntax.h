// Character classes and small pieces of the HTTP grammar (RFC 9110), shared by the parser, the chunked decoder
// and the response writer. constexpr, so the parsers build their lookup tables from them at compile time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
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
inline bool isToken(std::string_view text) noexcept {
    if (text.empty()) return false;
    for (unsigned char c : text) {
        if (!kTokenTable.isToken[c]) return false;
    }
    return true;
}

// Whether a field value (or a status line) written into a response holds no CR, LF or NUL, which would end the
// line early or split the response.
inline bool hasNoLineBreakOrNul(std::string_view value) noexcept {
    // Eight bytes at a time: (x - 0x01...) & ~x & 0x80... is non-zero exactly when some byte of x is zero, and an
    // XOR with a repeated byte turns the bytes equal to it into zeros.
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
    constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
    const auto hasZeroByte = [](std::uint64_t x) { return ((x - kOnes) & ~x & kHighBits) != 0; };
    std::size_t i = 0;
    for (; i + 8 <= value.size(); i += 8) {
        std::uint64_t word;
        std::memcpy(&word, value.data() + i, sizeof word);
        if (hasZeroByte(word) || hasZeroByte(word ^ (kOnes * '\r')) || hasZeroByte(word ^ (kOnes * '\n'))) {
            return false;
        }
    }
    for (; i < value.size(); ++i) {
        if (value[i] == '\r' || value[i] == '\n' || value[i] == '\0') return false;
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

}  // namespace loopwire::http_syntax
