// HttpSyntax: the RFC 9110 character classes and field helpers shared by ResponseParser and WsHandshake.
//
// Pure, header-only, no allocation.
#pragma once

#include <cstddef>
#include <string_view>

namespace loopwire::lwload::http {

// RFC 9110 section 5.6.2: tchar.
constexpr bool isTokenChar(unsigned char c) noexcept {
    if (c >= '0' && c <= '9') return true;
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
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

// Field values and reason phrases: HTAB, SP, VCHAR and obs-text; no other control character.
constexpr bool isTextChar(unsigned char c) noexcept { return c == '\t' || (c >= 0x20 && c != 0x7f); }

constexpr bool isWhitespace(char c) noexcept { return c == ' ' || c == '\t'; }

constexpr std::string_view trim(std::string_view s) noexcept {
    while (!s.empty() && isWhitespace(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isWhitespace(s.back()))
        s.remove_suffix(1);
    return s;
}

// ASCII case-insensitive comparison with a lower-case literal.
constexpr bool equalsLower(std::string_view s, std::string_view lower) noexcept {
    if (s.size() != lower.size()) return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c | 0x20);
        if (c != static_cast<unsigned char>(lower[i])) return false;
    }
    return true;
}

// Splits a field line (without CRLF) into its name and its value trimmed of whitespace, checking the syntax of
// both. False when the line is malformed (no colon, empty name, a non-token name, whitespace before the colon,
// an obs-fold, a control character in the value).
constexpr bool splitField(std::string_view line, std::string_view& name, std::string_view& value) noexcept {
    const std::size_t colon = line.find(':');
    if (colon == 0 || colon == std::string_view::npos) return false;
    name = line.substr(0, colon);
    for (char c : name) {
        if (!isTokenChar(static_cast<unsigned char>(c))) return false;
    }
    value = trim(line.substr(colon + 1));
    for (char c : value) {
        if (!isTextChar(static_cast<unsigned char>(c))) return false;
    }
    return true;
}

// Calls fn(element) for each non-empty element of a comma-separated list, trimmed of whitespace; stops and
// returns false as soon as fn returns false.
template <typename Fn>
constexpr bool forEachListElement(std::string_view list, Fn&& fn) {
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        const std::string_view element = trim(list.substr(0, comma));
        if (!element.empty() && !fn(element)) return false;
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return true;
}

}  // namespace loopwire::lwload::http
