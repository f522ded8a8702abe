// The ~1 KB body of the http/cached scenario, built once at startup. Every implementation builds the same bytes
// (bench/scenarios/js/common.js has the JavaScript twin): kCachedPageLines lines of kCachedPageLineBytes, each
// "NNN " (the line number), the alphabet, ".\n".
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

inline constexpr std::size_t kCachedPageLines = 32;
inline constexpr std::size_t kCachedPageLineBytes = 32;

inline std::string buildCachedPage() {
    std::string page;
    page.reserve(kCachedPageLines * kCachedPageLineBytes);
    for (std::size_t line = 0; line < kCachedPageLines; ++line) {
        char number[8];
        std::snprintf(number, sizeof number, "%03zu ", line);
        page += number;
        page += "abcdefghijklmnopqrstuvwxyz.\n";
    }
    return page;
}
