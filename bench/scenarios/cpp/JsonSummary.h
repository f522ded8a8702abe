// summarizeJson(): validates a JSON text (RFC 8259) and reports what the http/json-post-1kb scenario answers
// with. Pure and allocation-free; the views point into the text.
//
// The text must be one object (whitespace around it allowed). `keys` counts its members (equal to
// Object.keys(JSON.parse(text)).length when no name repeats); `id` is the text of the last member named "id"
// when its value is an integer of at most kMaxIdDigits digits, else "null", which is what JSON.stringify()
// writes for the same value in the JavaScript servers. Nesting deeper than kMaxJsonDepth is refused, so that
// no input can exhaust the stack.
#pragma once

#include <cstddef>
#include <string_view>

inline constexpr std::size_t kMaxJsonDepth = 64;
inline constexpr std::size_t kMaxIdDigits = 15;

struct JsonSummary {
    bool valid = false;
    std::size_t keys = 0;
    std::string_view id = "null";
};

JsonSummary summarizeJson(std::string_view text);
