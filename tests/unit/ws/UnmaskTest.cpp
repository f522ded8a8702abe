// Tests for core/ws/Unmask: every path (portable, SSE2, AVX2 where the machine has them) gives the bytes of the
// definition, x[i] ^ key[(offset + i) % 4], for every length up to a few vector widths and beyond, every offset,
// and a payload that ends against a guard page (an access past its end crashes).
#include "ws/Unmask.h"

#include "../GuardedBuffer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

namespace loopwire::ws {
namespace {

constexpr UnmaskPath kPaths[] = {UnmaskPath::Portable, UnmaskPath::Sse2, UnmaskPath::Avx2};

std::string reference(std::string payload, const std::uint8_t (&key)[4], std::uint8_t offset) {
    for (std::size_t i = 0; i < payload.size(); ++i)
        payload[i] = static_cast<char>(static_cast<std::uint8_t>(payload[i]) ^ key[(offset + i) & 3]);
    return payload;
}

TEST(Unmask, EveryPathGivesTheBytesOfTheDefinitionAtEveryLengthAndOffset) {
    std::mt19937 random(42);
    test::GuardedBuffer buffer(5000);
    const std::uint8_t key[4] = {0x37, 0xfa, 0x21, 0x3d};
    for (std::size_t length : {0,  1,  2,  3,  4,  5,   7,   8,   9,   15,  16,  17,  31,   32,   33,   47,  48,
                               63, 64, 65, 95, 96, 127, 128, 129, 200, 255, 256, 257, 1000, 4095, 4096, 4097}) {
        std::string payload(length, '\0');
        for (char& c : payload)
            c = static_cast<char>(random());
        for (std::uint8_t offset = 0; offset < 4; ++offset) {
            const std::string expected = reference(payload, key, offset);
            for (UnmaskPath path : kPaths) {
                char* placed = buffer.place(payload);
                unmaskWith(path, placed, length, key, offset);
                ASSERT_EQ(std::string(placed, length), expected)
                    << "path " << static_cast<int>(path) << ", length " << length << ", offset " << int{offset};
            }
        }
    }
}

TEST(Unmask, AMessageUnmaskedInPiecesIsTheWholeUnmasked) {
    // As the frame parser does across reads: the offset carries the key's phase from one piece to the next.
    std::mt19937 random(7);
    const std::uint8_t key[4] = {1, 2, 3, 4};
    std::string payload(1000, '\0');
    for (char& c : payload)
        c = static_cast<char>(random());
    const std::string expected = reference(payload, key, 0);
    for (std::size_t cut = 0; cut <= payload.size(); cut += 37) {
        std::string pieces = payload;
        unmask(pieces.data(), cut, key, 0);
        unmask(pieces.data() + cut, pieces.size() - cut, key, static_cast<std::uint8_t>(cut & 3));
        ASSERT_EQ(pieces, expected) << "cut at " << cut;
    }
}

TEST(Unmask, ThePathsThisMachineHas) {
    EXPECT_TRUE(hasUnmaskPath(UnmaskPath::Portable));
#if defined(__x86_64__)
    EXPECT_TRUE(hasUnmaskPath(UnmaskPath::Sse2));
#endif
}

}  // namespace
}  // namespace loopwire::ws
