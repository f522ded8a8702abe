// The Huffman code of RFC 7541 appendix B, kept as code lengths; see HpackHuffman.h.
//
// Decoding reads a 32-bit window of the input (padded with ones past its end, which is what a valid string's
// padding looks like). Codes of up to 9 bits, which cover every letter, digit and common punctuation, come from
// one 512-entry table indexed by the window's top 9 bits. Longer codes are found by the canonical property: the
// codes of one length are consecutive numbers, so the window's top L bits are a code of length L exactly when they
// fall in that length's range. Because the code is complete, every window decodes to some symbol; a symbol whose
// code is longer than the bits left means those bits are padding, which must be fewer than 8 and all ones.
#include "HpackHuffman.h"

#include <array>

namespace loopwire::h2 {
namespace {

constexpr unsigned kSymbols = 257;  // the 256 byte values and EOS
constexpr unsigned kEos = 256;
constexpr unsigned kMaxCodeBits = 30;
constexpr unsigned kFastBits = 9;

// Appendix B's code length of each symbol, in symbol order.
constexpr std::uint8_t kCodeLength[kSymbols] = {
    13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28,
    28, 28, 28, 6,  10, 10, 12, 13, 6,  8,  11, 10, 10, 8,  11, 8,  6,  6,  6,  5,  5,  5,  6,  6,  6,  6,  6,  6,  6,
    7,  8,  15, 6,  12, 10, 13, 6,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,
    7,  8,  7,  8,  13, 19, 13, 14, 6,  15, 5,  6,  5,  6,  5,  6,  6,  6,  5,  7,  7,  6,  6,  6,  5,  6,  7,  6,  5,
    5,  6,  7,  7,  7,  7,  7,  15, 11, 14, 13, 28, 20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24,
    24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, 22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22,
    23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, 26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26,
    27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, 20, 24, 20, 21, 22, 21, 21, 23,
    22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, 30,
};

struct CodeTables {
    std::uint32_t code[kSymbols] = {};               // right-aligned, kCodeLength bits
    std::uint16_t byCode[kSymbols] = {};             // symbols in code order (by length, then symbol)
    std::uint32_t firstCode[kMaxCodeBits + 1] = {};  // the smallest code of each length
    std::uint16_t firstRank[kMaxCodeBits + 1] = {};  // its position in byCode
    std::uint16_t count[kMaxCodeBits + 1] = {};      // codes of each length
    // Indexed by a window's top kFastBits bits: (length << 9) | symbol for codes of up to kFastBits bits, else 0.
    std::uint16_t fast[1u << kFastBits] = {};
};

constexpr CodeTables buildTables() {
    CodeTables t;
    for (unsigned s = 0; s < kSymbols; ++s)
        ++t.count[kCodeLength[s]];
    std::uint32_t code = 0;
    std::uint16_t rank = 0;
    for (unsigned length = 1; length <= kMaxCodeBits; ++length) {
        code <<= 1;
        t.firstCode[length] = code;
        t.firstRank[length] = rank;
        for (unsigned s = 0; s < kSymbols; ++s) {
            if (kCodeLength[s] != length) continue;
            t.code[s] = code++;
            t.byCode[rank++] = static_cast<std::uint16_t>(s);
        }
    }
    for (unsigned s = 0; s < kSymbols; ++s) {
        const unsigned length = kCodeLength[s];
        if (length > kFastBits) continue;
        const unsigned spread = kFastBits - length;
        for (unsigned low = 0; low < (1u << spread); ++low)
            t.fast[(t.code[s] << spread) | low] = static_cast<std::uint16_t>((length << 9) | s);
    }
    return t;
}

constexpr CodeTables kTables = buildTables();

// The code is complete (the codes fill the whole 30-bit space exactly) and EOS is all ones: what decoding relies on.
static_assert(kTables.code[kEos] == (1u << kMaxCodeBits) - 1);
static_assert(kTables.code[0] == 0x1ff8 && kTables.code[static_cast<unsigned char>('a')] == 0x3 &&
              kTables.code[10] == 0x3ffffffc);

}  // namespace

std::size_t huffmanEncodedLength(std::string_view text) noexcept {
    std::size_t bits = 0;
    for (const char c : text)
        bits += kCodeLength[static_cast<unsigned char>(c)];
    return (bits + 7) / 8;
}

char* huffmanEncode(std::string_view text, char* out) noexcept {
    std::uint64_t pending = 0;
    unsigned pendingBits = 0;  // below 8 between symbols, so a 30-bit code always fits
    for (const char c : text) {
        const auto symbol = static_cast<unsigned char>(c);
        pending = (pending << kCodeLength[symbol]) | kTables.code[symbol];
        pendingBits += kCodeLength[symbol];
        while (pendingBits >= 8) {
            pendingBits -= 8;
            *out++ = static_cast<char>(pending >> pendingBits);
        }
    }
    if (pendingBits != 0) *out++ = static_cast<char>((pending << (8 - pendingBits)) | (0xffu >> pendingBits));
    return out;
}

std::size_t huffmanDecode(std::string_view encoded, char* out, std::size_t capacity) noexcept {
    const auto* in = reinterpret_cast<const unsigned char*>(encoded.data());
    const std::size_t size = encoded.size();
    std::size_t read = 0;
    std::size_t written = 0;
    std::uint64_t bits = 0;  // the low `available` bits are unread input
    unsigned available = 0;
    for (;;) {
        while (available <= 56 && read < size) {
            bits = (bits << 8) | in[read++];
            available += 8;
        }
        if (available == 0) return written;
        const std::uint32_t window =
            available >= 32 ? static_cast<std::uint32_t>(bits >> (available - 32))
                            : static_cast<std::uint32_t>((bits << (32 - available)) | ((1ull << (32 - available)) - 1));
        unsigned length;
        unsigned symbol;
        if (const std::uint16_t entry = kTables.fast[window >> (32 - kFastBits)]; entry != 0) {
            length = entry >> 9;
            symbol = entry & 0x1ff;
        } else {
            length = kFastBits + 1;
            for (;; ++length) {
                const std::uint32_t offset = (window >> (32 - length)) - kTables.firstCode[length];
                if (offset < kTables.count[length]) {
                    symbol = kTables.byCode[kTables.firstRank[length] + offset];
                    break;
                }
            }
        }
        if (length > available) {
            // Padding: what is left is shorter than the code the ones-padded window reads as.
            const std::uint64_t ones = (1ull << available) - 1;
            if (available >= 8 || (bits & ones) != ones) return kHuffmanInvalid;
            return written;
        }
        if (symbol == kEos) return kHuffmanInvalid;
        if (written == capacity) return kHuffmanTooLong;
        out[written++] = static_cast<char>(symbol);
        available -= length;
    }
}

}  // namespace loopwire::h2
