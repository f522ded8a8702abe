// Fuzz target for Utf8Validator.
//
// Input: byte 0 seeds the cuts, the rest is the text. The text is checked whole (isValid) and fed in pieces of 1
// to 16 bytes drawn from the seed; both answers must agree with a decoder written differently (each character
// decoded to its code point, then checked for the shortest form, surrogates and U+10FFFF), and a piecewise feed
// that fails must fail exactly at the byte where the longest valid prefix of the text ends. Each piece is an
// exactly sized heap copy, so that the sanitizer sees any read past it.
#include "ws/Utf8Validator.h"

#include "FuzzSupport.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

namespace {

using loopwire::Utf8Validator;

// The length of the longest prefix of text that is whole characters or the valid start of one, and whether the
// whole text is valid UTF-8.
struct Reference {
    std::size_t validPrefix = 0;
    bool valid = true;
};

Reference decode(std::string_view text) {
    static constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    std::size_t i = 0;
    while (i < text.size()) {
        const auto lead = static_cast<unsigned char>(text[i]);
        const std::size_t length = lead < 0x80           ? 1
                                   : (lead >> 5) == 0x6  ? 2
                                   : (lead >> 4) == 0xE  ? 3
                                   : (lead >> 3) == 0x1E ? 4
                                                         : 0;
        if (length == 0) return {i, false};
        // Fail-fast: a prefix is refused at the byte after which no completion can be a valid character.
        const auto impossible = [length](std::uint32_t codeSoFar, std::size_t bytesRead) {
            const std::size_t bitsLeft = 6 * (length - bytesRead);
            const std::uint32_t smallest = codeSoFar << bitsLeft;
            const std::uint32_t largest = smallest | ((1u << bitsLeft) - 1);
            return largest < kSmallest[length] || smallest > 0x10FFFF || (smallest >= 0xD800 && largest <= 0xDFFF);
        };
        std::uint32_t code = length == 1 ? lead : lead & (0xFFu >> (length + 1));
        if (impossible(code, 1)) return {i, false};
        std::size_t k = 1;
        for (; k < length && i + k < text.size(); ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            if ((next & 0xC0) != 0x80) return {i + k, false};
            code = (code << 6) | (next & 0x3F);
            if (impossible(code, k + 1)) return {i + k, false};
        }
        if (k < length) return {text.size(), false};  // cut short by the end: a valid start, not a whole text
        i += length;
    }
    return {text.size(), true};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    loopwire::fuzz::PieceSizes pieces(data[0] * 2654435761u + 1, 16);
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    const Reference expected = decode(text);

    FUZZ_CHECK(Utf8Validator::isValid(text) == expected.valid);

    Utf8Validator validator;
    std::size_t fed = 0;
    bool ok = true;
    while (fed < text.size() && ok) {
        const std::size_t piece = pieces.next(text.size() - fed);
        std::unique_ptr<char[]> exact(new char[piece]);
        std::memcpy(exact.get(), text.data() + fed, piece);
        ok = validator.feed(std::string_view(exact.get(), piece));
        if (!ok) {
            // The byte that failed lies in this piece, and it is the first the reference refuses.
            FUZZ_CHECK(expected.validPrefix >= fed && expected.validPrefix < fed + piece);
            Utf8Validator exactly;
            FUZZ_CHECK(exactly.feed(text.substr(0, expected.validPrefix)));
            FUZZ_CHECK(!exactly.feed(text.substr(expected.validPrefix, 1)));
        }
        fed += piece;
    }
    FUZZ_CHECK((ok && validator.isComplete()) == expected.valid);
    if (ok && !expected.valid) FUZZ_CHECK(!validator.isComplete());
    return 0;
}
