// Character classes of the HTTP grammar (RFC 9110), shared by the parser, the chunked decoder and the response
// writer. constexpr, so the parsers build their lookup tables from them at compile time.
#pragma once

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

}  // namespace loopwire::http_syntax
