// Fuzz target for Utf8Validator.
//
// Input: byte 0 seeds the cuts, the rest is the text. With every path (portable, SSE2, AVX2: those the machine
// lacks run the portable one), the text is checked whole (isValidWith) and fed in pieces of 1 to 80 bytes drawn
// from the seed (so that the vector paths see whole blocks and blocks cut anywhere); every answer must agree with
// a decoder written differently (each character decoded to its code point, then checked for the shortest form,
// surrogates and U+10FFFF), and a piecewise feed that fails must fail in the piece that holds the byte where the
// longest valid prefix of the text ends. The whole text and each piece are exactly sized heap copies, so that the
// sanitizer sees any read past them.
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
    const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
    const Reference expected = decode(input);
    std::unique_ptr<char[]> whole(new char[input.size()]);
    if (!input.empty()) std::memcpy(whole.get(), input.data(), input.size());
    const std::string_view text(whole.get(), input.size());

    for (loopwire::Utf8Path path : {loopwire::Utf8Path::Portable, loopwire::Utf8Path::Sse2, loopwire::Utf8Path::Avx2}) {
        FUZZ_CHECK(Utf8Validator::isValidWith(path, text) == expected.valid);

        loopwire::fuzz::PieceSizes pieces(data[0] * 2654435761u + 1, 80);
        Utf8Validator validator;
        std::size_t fed = 0;
        bool ok = true;
        while (fed < text.size() && ok) {
            const std::size_t piece = pieces.next(text.size() - fed);
            std::unique_ptr<char[]> exact(new char[piece]);
            std::memcpy(exact.get(), text.data() + fed, piece);
            ok = validator.feedWith(path, std::string_view(exact.get(), piece));
            if (!ok) {
                // The byte that failed lies in this piece, and it is the first the reference refuses.
                FUZZ_CHECK(expected.validPrefix >= fed && expected.validPrefix < fed + piece);
                Utf8Validator exactly;
                FUZZ_CHECK(exactly.feedWith(path, text.substr(0, expected.validPrefix)));
                FUZZ_CHECK(!exactly.feedWith(path, text.substr(expected.validPrefix, 1)));
            }
            fed += piece;
        }
        FUZZ_CHECK((ok && validator.isComplete()) == expected.valid);
        if (ok && !expected.valid) FUZZ_CHECK(!validator.isComplete());
    }
    return 0;
}
