#include "ws/Sha1.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace loopwire {
namespace {

std::string hex(const Sha1::Digest& digest) {
    std::string out;
    char pair[3];
    for (std::uint8_t byte : digest) {
        std::snprintf(pair, sizeof pair, "%02x", byte);
        out += pair;
    }
    return out;
}

// The test vectors of FIPS 180-4's examples and RFC 3174.
TEST(Sha1, MatchesThePublishedVectors) {
    EXPECT_EQ(hex(Sha1::hash("")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    EXPECT_EQ(hex(Sha1::hash("abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
    EXPECT_EQ(hex(Sha1::hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
              "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    EXPECT_EQ(hex(Sha1::hash(std::string(1000000, 'a'))), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

// Messages whose padding lands on every side of a block boundary, fed whole and in pieces of every size.
TEST(Sha1, AnySplitOfTheMessageGivesTheSameDigest) {
    for (std::size_t length : {55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 200u}) {
        std::string message;
        for (std::size_t i = 0; i < length; ++i)
            message.push_back(static_cast<char>('a' + i % 26));
        const Sha1::Digest whole = Sha1::hash(message);
        for (std::size_t piece = 1; piece <= 70; ++piece) {
            Sha1 sha;
            for (std::size_t at = 0; at < message.size(); at += piece)
                sha.add(std::string_view(message).substr(at, piece));
            EXPECT_EQ(sha.finish(), whole) << length << " in pieces of " << piece;
        }
    }
}

}  // namespace
}  // namespace loopwire
