#include "LatencyHistogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

namespace loopwire::lwload {
namespace {

TEST(LatencyHistogram, EmptyReportsZero) {
    LatencyHistogram h;
    EXPECT_EQ(h.count(), 0u);
    EXPECT_EQ(h.percentile(50), 0u);
    EXPECT_EQ(h.max(), 0u);
    EXPECT_EQ(h.min(), 0u);
    EXPECT_EQ(h.mean(), 0.0);
}

TEST(LatencyHistogram, BucketsAreContiguousAndCoverEveryValue) {
    // Every bucket starts right after the previous one ends, from 0 to UINT64_MAX.
    EXPECT_EQ(LatencyHistogram::lowestOf(0), 0u);
    for (std::size_t i = 1; i < LatencyHistogram::kBucketCount; ++i) {
        ASSERT_EQ(LatencyHistogram::lowestOf(i), LatencyHistogram::highestOf(i - 1) + 1) << i;
    }
    EXPECT_EQ(LatencyHistogram::highestOf(LatencyHistogram::kBucketCount - 1), UINT64_MAX);
    const std::uint64_t values[] = {0, 1, 255, 256, 257, 1000, 123456789, std::uint64_t{1} << 40, UINT64_MAX};
    for (std::uint64_t v : values) {
        const std::size_t i = LatencyHistogram::indexOf(v);
        ASSERT_LT(i, LatencyHistogram::kBucketCount);
        EXPECT_LE(LatencyHistogram::lowestOf(i), v);
        EXPECT_GE(LatencyHistogram::highestOf(i), v);
    }
}

TEST(LatencyHistogram, BucketWidthIsUnderOnePercentOfItsValues) {
    for (std::size_t i = 256; i < LatencyHistogram::kBucketCount; ++i) {
        const double low = static_cast<double>(LatencyHistogram::lowestOf(i));
        const double width = static_cast<double>(LatencyHistogram::highestOf(i)) - low + 1;
        ASSERT_LE(width / low, 1.0 / 128 + 1e-12) << i;
    }
}

TEST(LatencyHistogram, SmallValuesAreExact) {
    LatencyHistogram h;
    for (std::uint64_t v = 1; v <= 100; ++v)
        h.record(v);
    EXPECT_EQ(h.percentile(50), 50u);
    EXPECT_EQ(h.percentile(99), 99u);
    EXPECT_EQ(h.percentile(99.9), 100u);
    EXPECT_EQ(h.percentile(100), 100u);
    EXPECT_EQ(h.percentile(0), 1u);
    EXPECT_EQ(h.min(), 1u);
    EXPECT_EQ(h.max(), 100u);
    EXPECT_DOUBLE_EQ(h.mean(), 50.5);
}

TEST(LatencyHistogram, PercentilesOfAUniformSpreadAreWithinBucketPrecision) {
    auto h = std::make_unique<LatencyHistogram>();
    for (std::uint64_t v = 1; v <= 1'000'000; ++v)
        h->record(v * 1000);  // 1 us .. 1 s in ns
    const struct {
        double p;
        double exact;
    } cases[] = {{50, 500'000'000.0}, {90, 900'000'000.0}, {99, 990'000'000.0}, {99.9, 999'000'000.0}};
    for (const auto& c : cases) {
        const auto got = static_cast<double>(h->percentile(c.p));
        EXPECT_GE(got, c.exact) << c.p;  // never below the true value
        EXPECT_LE(got, c.exact * (1 + 1.0 / 128)) << c.p;
    }
    EXPECT_EQ(h->max(), 1'000'000'000u);
}

TEST(LatencyHistogram, MatchesSortedSamplesOnARandomLogNormalSpread) {
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> dist(11.0, 1.0);  // a median around 60 us, in ns
    auto h = std::make_unique<LatencyHistogram>();
    std::vector<std::uint64_t> samples;
    for (int i = 0; i < 200'000; ++i) {
        const auto v = static_cast<std::uint64_t>(dist(rng));
        samples.push_back(v);
        h->record(v);
    }
    std::sort(samples.begin(), samples.end());
    for (double p : {50.0, 99.0, 99.9}) {
        const auto rank = static_cast<std::size_t>(std::ceil(p / 100 * static_cast<double>(samples.size())));
        const auto exact = static_cast<double>(samples[rank - 1]);
        const auto got = static_cast<double>(h->percentile(p));
        EXPECT_GE(got, exact) << p;
        EXPECT_LE(got, exact * (1 + 1.0 / 128) + 1) << p;
    }
}

TEST(LatencyHistogram, MergeAddsCountsAndKeepsExtremes) {
    auto a = std::make_unique<LatencyHistogram>();
    auto b = std::make_unique<LatencyHistogram>();
    for (std::uint64_t v = 1; v <= 50; ++v)
        a->record(v);
    for (std::uint64_t v = 51; v <= 100; ++v)
        b->record(v);
    a->merge(*b);
    EXPECT_EQ(a->count(), 100u);
    EXPECT_EQ(a->percentile(50), 50u);
    EXPECT_EQ(a->min(), 1u);
    EXPECT_EQ(a->max(), 100u);
    a->reset();
    EXPECT_EQ(a->count(), 0u);
    EXPECT_EQ(a->percentile(99), 0u);
}

}  // namespace
}  // namespace loopwire::lwload
