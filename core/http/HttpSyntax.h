// Character classes and small pieces of the HTTP grammar (RFC 9110), shared by the parser, the chunked decoder
// and the response writer. constexpr, so the parsers build their lookup tables from them at compile time.
#pragma once

#include <cstddef>
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
