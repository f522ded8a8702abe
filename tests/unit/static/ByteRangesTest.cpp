#include "static/ByteRanges.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace loopwire::files {
namespace {

using Ranges = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

// The ranges a Satisfiable read gives, as (first, last) pairs.
Ranges read(std::string_view field, std::uint64_t length, RangeVerdict expected = RangeVerdict::Satisfiable) {
    ByteRanges ranges;
    EXPECT_EQ(ranges.read(field, length), expected) << field;
    Ranges pairs;
    for (const ByteRange& range : ranges.ranges())
        pairs.emplace_back(range.first, range.last);
    return pairs;
}

TEST(ByteRanges, ReadsEachFormOfASingleRange) {
    EXPECT_EQ(read("bytes=0-499", 10000), (Ranges{{0, 499}}));
    EXPECT_EQ(read("bytes=9500-", 10000), (Ranges{{9500, 9999}}));
    EXPECT_EQ(read("bytes=-500", 10000), (Ranges{{9500, 9999}}));
    EXPECT_EQ(read("bytes=0-0", 1), (Ranges{{0, 0}}));
}

TEST(ByteRanges, ClampsWhatRunsPastTheEnd) {
    EXPECT_EQ(read("bytes=9000-20000", 10000), (Ranges{{9000, 9999}}));
    EXPECT_EQ(read("bytes=-20000", 10000), (Ranges{{0, 9999}})) << "a suffix longer than the whole: the whole";
}

TEST(ByteRanges, TakesTheUnitInAnyCaseAndWhitespaceAndEmptyElementsInTheList) {
    EXPECT_EQ(read("Bytes=1-2", 10), (Ranges{{1, 2}}));
    EXPECT_EQ(read("BYTES=1-2", 10), (Ranges{{1, 2}}));
    EXPECT_EQ(read("bytes=0-1 , ,\t500-501 ,", 1000), (Ranges{{0, 1}, {500, 501}}));
}

TEST(ByteRanges, IgnoresWhatIsNotAByteRangeSet) {
    for (std::string_view field :
         {"", "bytes", "bytes=", "bytes=,", "bytes =0-1", "items=0-1", "byte=0-1", "bytesx=0-1", "bytes=a-1", "bytes=1",
          "bytes=1-2x", "bytes=1-2;3-4", "bytes=--1", "bytes=-", "bytes=- 1", "bytes=1 -2", "bytes=0-1,2"}) {
        ByteRanges ranges;
        EXPECT_EQ(ranges.read(field, 1000), RangeVerdict::Ignored) << field;
        EXPECT_TRUE(ranges.ranges().empty());
    }
}

TEST(ByteRanges, ALastPositionBeforeItsFirstMakesTheWholeSetInvalid) {
    read("bytes=5-4", 1000, RangeVerdict::Ignored);
    read("bytes=0-10,20-19", 1000, RangeVerdict::Ignored);
}

TEST(ByteRanges, ASetThatSelectsNoByteIsUnsatisfiable) {
    read("bytes=1000-", 1000, RangeVerdict::Unsatisfiable);
    read("bytes=1000-2000", 1000, RangeVerdict::Unsatisfiable);
    read("bytes=-0", 1000, RangeVerdict::Unsatisfiable);
    read("bytes=5000-5001,-0", 1000, RangeVerdict::Unsatisfiable);
    EXPECT_EQ(read("bytes=5000-5001,10-20", 1000), (Ranges{{10, 20}})) << "the satisfiable one alone";
}

TEST(ByteRanges, AnEmptyRepresentationIsSentWhole) {
    read("bytes=0-", 0, RangeVerdict::Ignored);
    read("bytes=-5", 0, RangeVerdict::Ignored);
}

TEST(ByteRanges, ReachesPastFourGibibytes) {
    constexpr std::uint64_t kLength = 6'000'000'000;
    EXPECT_EQ(read("bytes=5000000000-5000000099", kLength), (Ranges{{5'000'000'000, 5'000'000'099}}));
    EXPECT_EQ(read("bytes=-1000", kLength), (Ranges{{kLength - 1000, kLength - 1}}));
}

TEST(ByteRanges, NumbersTooLargeForSixtyFourBitsReadAsTheLargest) {
    const std::string huge = "99999999999999999999999999";
    EXPECT_EQ(read("bytes=10-" + huge, 100), (Ranges{{10, 99}})) << "a last-pos clamped to the end";
    EXPECT_EQ(read("bytes=-" + huge, 100), (Ranges{{0, 99}})) << "a suffix of the whole";
    read("bytes=" + huge + "-", 100, RangeVerdict::Unsatisfiable);
    read("bytes=" + huge + "-" + huge, 100, RangeVerdict::Unsatisfiable);
}

TEST(ByteRanges, RangesApartKeepTheClientsOrder) {
    EXPECT_EQ(read("bytes=0-9,1000-1009,500-509", 2000), (Ranges{{0, 9}, {1000, 1009}, {500, 509}}));
}

TEST(ByteRanges, OverlappingTouchingAndCloseRangesAreSentOnceInByteOrder) {
    EXPECT_EQ(read("bytes=500-600,0-9,550-700", 2000), (Ranges{{0, 9}, {500, 700}}));
    EXPECT_EQ(read("bytes=10-19,0-9", 2000), (Ranges{{0, 19}})) << "touching";
    EXPECT_EQ(read("bytes=0-999,-500,100-200", 1000), (Ranges{{0, 999}}));
    const std::uint64_t gap = ByteRanges::kCoalesceGapBytes;
    EXPECT_EQ(read("bytes=0-9," + std::to_string(10 + gap - 1) + "-2000", 5000), (Ranges{{0, 2000}}))
        << "a gap one byte under the bound";
    EXPECT_EQ(read("bytes=0-9," + std::to_string(10 + gap) + "-2000", 5000), (Ranges{{0, 9}, {10 + gap, 2000}}))
        << "a gap of the bound";
}

TEST(ByteRanges, TakesAtMostItsBoundOfRangeSpecs) {
    std::string field = "bytes=";
    for (std::size_t i = 0; i < ByteRanges::kMaxRangeSpecs; ++i)
        field += std::to_string(i * 1000) + "-" + std::to_string(i * 1000 + 9) + ",";
    EXPECT_EQ(read(field, 1'000'000).size(), ByteRanges::kMaxRangeSpecs);
    read(field + "999000-999009", 1'000'000, RangeVerdict::Ignored);
    std::string overlapping = "bytes=";
    for (std::size_t i = 0; i <= ByteRanges::kMaxRangeSpecs; ++i)
        overlapping += "0-9,";
    read(overlapping, 100, RangeVerdict::Ignored);  // counted before coalescing
}

// Whatever the set, the answer never holds a byte twice, so never more bytes than the representation.
TEST(ByteRanges, RandomSetsNeverSendAByteTwice) {
    std::mt19937_64 random(42);
    for (int round = 0; round < 2000; ++round) {
        const std::uint64_t length = 1 + random() % 5000;
        std::string field = "bytes=";
        const int specs = 1 + static_cast<int>(random() % ByteRanges::kMaxRangeSpecs);
        for (int i = 0; i < specs; ++i) {
            const std::uint64_t first = random() % (length + 100);
            switch (random() % 3) {
                case 0:
                    field += std::to_string(first) + "-" + std::to_string(first + random() % 300);
                    break;
                case 1:
                    field += std::to_string(first) + "-";
                    break;
                default:
                    field += "-" + std::to_string(random() % 300);
                    break;
            }
            field += ",";
        }
        ByteRanges ranges;
        if (ranges.read(field, length) != RangeVerdict::Satisfiable) continue;
        std::vector<bool> sent(length, false);
        for (const ByteRange& range : ranges.ranges()) {
            ASSERT_LE(range.first, range.last) << field;
            ASSERT_LT(range.last, length) << field;
            for (std::uint64_t byte = range.first; byte <= range.last; ++byte) {
                ASSERT_FALSE(sent[byte]) << field << " sends byte " << byte << " twice";
                sent[byte] = true;
            }
        }
        ASSERT_LE(ranges.totalBytes(), length);
    }
}

}  // namespace
}  // namespace loopwire::files
