#include "ws/Deflater.h"

#include "ws/Inflater.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace loopwire::ws {
namespace {

std::string chat(int i) {
    return "{\"room\":\"lobby\",\"user\":\"user" + std::to_string(i % 7) + "\",\"text\":\"hello everyone, message " +
           std::to_string(i) + "\"}";
}

// Compresses messages with deflater and inflates them back with a matching inflater; returns the compressed sizes.
std::vector<std::size_t> roundTrip(Deflater& deflater, Inflater& inflater, int messages) {
    std::vector<std::size_t> sizes;
    for (int i = 0; i < messages; ++i) {
        const std::string message = chat(i);
        ByteBuffer compressed;
        EXPECT_TRUE(deflater.compress(message, compressed));
        sizes.push_back(compressed.size());
        ByteBuffer inflated;
        EXPECT_EQ(inflater.add(compressed.view(), inflated, 1 << 20), Inflater::Result::Ok);
        EXPECT_EQ(inflater.finish(inflated, 1 << 20), Inflater::Result::Ok);
        EXPECT_EQ(inflated.view(), message) << i;
    }
    return sizes;
}

TEST(Deflater, EveryCombinationRoundTripsThroughTheInflater) {
    for (bool takeover : {true, false}) {
        for (std::uint8_t bits : {9, 12, 15}) {
            for (std::uint8_t memLevel : {1, 8}) {
                Deflater deflater(bits, memLevel, takeover);
                Inflater inflater(bits, takeover);
                ASSERT_TRUE(deflater.ready() && inflater.ready());
                roundTrip(deflater, inflater, 20);
            }
        }
    }
}

TEST(Deflater, ContextTakeoverShrinksRepeatedMessages) {
    Deflater keeping(15, 8, true);
    Inflater keepingInflater(15, true);
    Deflater resetting(15, 8, false);
    Inflater resettingInflater(15, false);
    const std::vector<std::size_t> kept = roundTrip(keeping, keepingInflater, 10);
    const std::vector<std::size_t> reset = roundTrip(resetting, resettingInflater, 10);
    // The first message costs the same; later ones refer back to earlier ones only with context takeover.
    EXPECT_EQ(kept[0], reset[0]);
    EXPECT_LT(kept[9] * 2, reset[9]);
}

TEST(Deflater, AppendsAfterWhatTheBufferHoldsAndHandlesEmptyAndLargeMessages) {
    Deflater deflater(15, 8, false);
    Inflater inflater(15, false);
    ByteBuffer out;
    out.append("frame header");
    ASSERT_TRUE(deflater.compress("", out));
    EXPECT_EQ(out.view().substr(0, 12), "frame header");
    ByteBuffer inflated;
    EXPECT_EQ(inflater.add(out.view().substr(12), inflated, 16), Inflater::Result::Ok);
    EXPECT_EQ(inflater.finish(inflated, 16), Inflater::Result::Ok);
    EXPECT_TRUE(inflated.empty());

    std::string large;
    for (int i = 0; i < 20000; ++i)
        large += chat(i);
    ByteBuffer compressed;
    ASSERT_TRUE(deflater.compress(large, compressed));
    EXPECT_LT(compressed.size(), large.size() / 3);
    ByteBuffer back;
    EXPECT_EQ(inflater.add(compressed.view(), back, large.size()), Inflater::Result::Ok);
    EXPECT_EQ(inflater.finish(back, large.size()), Inflater::Result::Ok);
    EXPECT_EQ(back.view(), large);
}

}  // namespace
}  // namespace loopwire::ws
