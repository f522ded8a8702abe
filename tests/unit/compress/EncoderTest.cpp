// compress::Encoder: every coding round-trips through its own decoder (zlib's, libbrotlidec's, libzstd's), whole
// and as a stream whose sync flushes are each decodable on their own; reset() starts a fresh stream; zstd stays within
// the 8 MiB window RFC 9659 allows a decoder to refuse beyond.
#include "compress/Encoder.h"

#include "../../ContentDecoders.h"

#include <gtest/gtest.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_getFrameHeader and ZSTD_getCParams, to read a frame's window
#include <zstd.h>

#include <optional>
#include <random>
#include <string>

namespace loopwire::compress {
namespace {

using test::decode;
using test::unzstd;

std::string sampleText(std::size_t bytes) {
    std::string text;
    std::mt19937 random(7);
    const char* words[] = {"loopwire ", "serves ", "files ", "{\"id\": ", "42, ", "\"name\": ", "\"static\"}, ", "\n"};
    while (text.size() < bytes)
        text += words[random() % 8];
    text.resize(bytes);
    return text;
}

constexpr ContentCoding kCodings[] = {ContentCoding::Gzip, ContentCoding::Brotli, ContentCoding::Zstd};

TEST(Encoder, EveryCodingIsAvailableInTheStandaloneLibraryAndIdentityIsNone) {
    for (ContentCoding coding : kCodings)
        EXPECT_TRUE(Encoder::available(coding)) << contentCodingToken(coding);
    EXPECT_FALSE(Encoder::available(ContentCoding::Identity));
    EXPECT_EQ(Encoder::create(ContentCoding::Identity, 1), nullptr);
}

TEST(Encoder, AWholeBodyRoundTripsAndShrinksAtEveryLevelTaken) {
    const std::string text = sampleText(50 * 1024);
    for (ContentCoding coding : kCodings) {
        for (int level : {1, 4, 9, 11, 19, -5, 100}) {
            std::string coded;
            ASSERT_TRUE(compressWhole(coding, level, text, coded)) << contentCodingToken(coding) << " " << level;
            EXPECT_LT(coded.size(), text.size() / 2) << contentCodingToken(coding) << " " << level;
            auto decoded = decode(coding, coded);
            ASSERT_TRUE(decoded) << contentCodingToken(coding) << " " << level;
            EXPECT_TRUE(*decoded == text) << contentCodingToken(coding) << " " << level;
        }
    }
}

TEST(Encoder, AnEmptyBodyIsAValidEmptyStream) {
    for (ContentCoding coding : kCodings) {
        std::string coded;
        ASSERT_TRUE(compressWhole(coding, 5, {}, coded)) << contentCodingToken(coding);
        EXPECT_FALSE(coded.empty()) << contentCodingToken(coding);
        auto decoded = decode(coding, coded);
        ASSERT_TRUE(decoded) << contentCodingToken(coding);
        EXPECT_EQ(*decoded, "") << contentCodingToken(coding);
    }
}

TEST(Encoder, EachSyncFlushMakesEverythingSoFarDecodable) {
    const std::string text = sampleText(200 * 1024);
    for (ContentCoding coding : kCodings) {
        auto encoder = Encoder::create(coding, 3);
        ASSERT_NE(encoder, nullptr) << contentCodingToken(coding);
        ByteBuffer out;
        std::size_t sent = 0;
        for (std::size_t piece : {1u, 100u, 7000u, 65536u, 30000u}) {
            ASSERT_TRUE(encoder->encode(std::string_view(text).substr(sent, piece), out, Encoder::Flush::Sync));
            sent += piece;
            auto decoded = decode(coding, out.view());
            ASSERT_TRUE(decoded) << contentCodingToken(coding) << " after " << sent;
            EXPECT_TRUE(*decoded == text.substr(0, sent))
                << contentCodingToken(coding) << " after " << sent << ": " << decoded->size() << " decoded";
        }
        ASSERT_TRUE(encoder->encode(std::string_view(text).substr(sent), out, Encoder::Flush::None));
        ASSERT_TRUE(encoder->encode({}, out, Encoder::Flush::Finish));
        auto decoded = decode(coding, out.view());
        ASSERT_TRUE(decoded) << contentCodingToken(coding);
        EXPECT_TRUE(*decoded == text) << contentCodingToken(coding);
    }
}

TEST(Encoder, ResetStartsAnIndependentStream) {
    const std::string first = sampleText(10 * 1024);
    const std::string second = sampleText(3 * 1024) + "a different ending";
    for (ContentCoding coding : kCodings) {
        auto encoder = Encoder::create(coding, 5);
        ASSERT_NE(encoder, nullptr);
        ByteBuffer one;
        ASSERT_TRUE(encoder->encode(first, one, Encoder::Flush::Finish));
        ASSERT_TRUE(encoder->reset());
        ByteBuffer two;
        ASSERT_TRUE(encoder->encode(second, two, Encoder::Flush::Finish));
        EXPECT_EQ(decode(coding, one.view()), first) << contentCodingToken(coding);
        EXPECT_EQ(decode(coding, two.view()), second) << contentCodingToken(coding);
    }
}

TEST(Encoder, ZstdStaysWithinTheWindowHttpClientsMayLimitThemselvesTo) {
    // A stream of unknown length at the highest level taken declares the streaming window; a body of known size a
    // window no larger than it needs; and no level taken (they are clamped to 19) asks more than 8 MiB of any body.
    const std::string text = sampleText(256 * 1024);
    auto stream = Encoder::create(ContentCoding::Zstd, 100);
    ByteBuffer out;
    ASSERT_TRUE(stream->encode(text, out, Encoder::Flush::Finish));
    ZSTD_frameHeader header{};
    ASSERT_EQ(ZSTD_getFrameHeader(&header, out.data(), out.size()), 0u);
    EXPECT_LE(header.windowSize, 1ull << Encoder::kStreamingZstdWindowLog);
    EXPECT_EQ(unzstd(out.view()), text);
    std::string whole;
    ASSERT_TRUE(compressWhole(ContentCoding::Zstd, 100, text, whole));
    ASSERT_EQ(ZSTD_getFrameHeader(&header, whole.data(), whole.size()), 0u);
    EXPECT_LE(header.windowSize, 256u * 1024);
    EXPECT_EQ(unzstd(whole), text);
    EXPECT_LE(ZSTD_getCParams(19, 1ull << 40, 0).windowLog, static_cast<unsigned>(Encoder::kMaxZstdWindowLog));
}

}  // namespace
}  // namespace loopwire::compress
