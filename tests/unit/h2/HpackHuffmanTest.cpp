#include "h2/HpackHuffman.h"

#include <gtest/gtest.h>

#include <string>

namespace loopwire::h2 {
namespace {

std::string bytes(std::initializer_list<int> values) {
    std::string out;
    for (int v : values)
        out.push_back(static_cast<char>(v));
    return out;
}

std::string encode(std::string_view text) {
    std::string out(huffmanEncodedLength(text), '\0');
    char* end = huffmanEncode(text, out.data());
    EXPECT_EQ(end, out.data() + out.size());
    return out;
}

// Decodes into a buffer of exactly the decoded bound; "<invalid>" or "<too long>" for the errors.
std::string decode(std::string_view encoded, std::size_t capacity = static_cast<std::size_t>(-1)) {
    if (capacity == static_cast<std::size_t>(-1)) capacity = huffmanDecodedBound(encoded.size());
    std::string out(capacity, '\0');
    const std::size_t n = huffmanDecode(encoded, out.data(), capacity);
    if (n == kHuffmanInvalid) return "<invalid>";
    if (n == kHuffmanTooLong) return "<too long>";
    out.resize(n);
    return out;
}

// The strings of RFC 7541 appendix C.4 and C.6.
TEST(HpackHuffman, EncodesTheRfcExamples) {
    EXPECT_EQ(encode("www.example.com"),
              bytes({0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab, 0x90, 0xf4, 0xff}));
    EXPECT_EQ(encode("no-cache"), bytes({0xa8, 0xeb, 0x10, 0x64, 0x9c, 0xbf}));
    EXPECT_EQ(encode("custom-key"), bytes({0x25, 0xa8, 0x49, 0xe9, 0x5b, 0xa9, 0x7d, 0x7f}));
    EXPECT_EQ(encode("custom-value"), bytes({0x25, 0xa8, 0x49, 0xe9, 0x5b, 0xb8, 0xe8, 0xb4, 0xbf}));
    EXPECT_EQ(encode("302"), bytes({0x64, 0x02}));
    EXPECT_EQ(encode("private"), bytes({0xae, 0xc3, 0x77, 0x1a, 0x4b}));
    EXPECT_EQ(encode(""), "");
}

TEST(HpackHuffman, DecodesTheRfcExamples) {
    EXPECT_EQ(decode(bytes({0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab, 0x90, 0xf4, 0xff})),
              "www.example.com");
    EXPECT_EQ(decode(bytes({0xa8, 0xeb, 0x10, 0x64, 0x9c, 0xbf})), "no-cache");
    EXPECT_EQ(decode(bytes({0x25, 0xa8, 0x49, 0xe9, 0x5b, 0xb8, 0xe8, 0xb4, 0xbf})), "custom-value");
    EXPECT_EQ(decode(""), "");
}

// Every byte value, alone and among others, including the 30-bit codes (10, 13, 22) and 8-bit-aligned ends.
TEST(HpackHuffman, RoundTripsEveryByte) {
    std::string all;
    for (int c = 0; c < 256; ++c) {
        const std::string one(1, static_cast<char>(c));
        EXPECT_EQ(decode(encode(one)), one) << c;
        all.push_back(static_cast<char>(c));
    }
    EXPECT_EQ(decode(encode(all)), all);
    std::string reversed(all.rbegin(), all.rend());
    EXPECT_EQ(decode(encode(reversed + all + "abc")), reversed + all + "abc");
}

TEST(HpackHuffman, RefusesEosInsideAString) {
    // EOS is 30 ones: 0xff 0xff 0xff 0xff holds it and two bits of padding.
    EXPECT_EQ(decode(bytes({0xff, 0xff, 0xff, 0xff})), "<invalid>");
    // "a" (00011) then EOS, padded.
    EXPECT_EQ(decode(bytes({0x1f, 0xff, 0xff, 0xff, 0xff})), "<invalid>");
}

TEST(HpackHuffman, RefusesPaddingOfEightBitsOrMore) {
    // "a" is 00011: three bits of padding make 0x1f; a further 0xff is eleven bits of padding.
    EXPECT_EQ(decode(bytes({0x1f})), "a");
    EXPECT_EQ(decode(bytes({0x1f, 0xff})), "<invalid>");
    EXPECT_EQ(decode(bytes({0xff})), "<invalid>");
}

TEST(HpackHuffman, RefusesPaddingThatIsNotOnes) {
    EXPECT_EQ(decode(bytes({0x18})), "<invalid>");  // 00011 000
    EXPECT_EQ(decode(bytes({0x1e})), "<invalid>");  // 00011 110
}

TEST(HpackHuffman, StopsAtCapacity) {
    const std::string encoded = encode("hello");
    EXPECT_EQ(decode(encoded, 5), "hello");
    EXPECT_EQ(decode(encoded, 4), "<too long>");
    EXPECT_EQ(decode(encoded, 0), "<too long>");
}

TEST(HpackHuffman, DecodedBoundHoldsForTheShortestCodes) {
    const std::string shortest(64, '0');  // a 5-bit code
    const std::string encoded = encode(shortest);
    EXPECT_LE(shortest.size(), huffmanDecodedBound(encoded.size()));
    EXPECT_EQ(decode(encoded), shortest);
}

}  // namespace
}  // namespace loopwire::h2
