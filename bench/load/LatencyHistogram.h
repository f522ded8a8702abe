// LatencyHistogram: an HDR-style log-linear histogram of latencies in nanoseconds, in fixed memory.
//
// Values below 256 have a bucket each; above, every power of two is split into 128 equal buckets, so a reported
// percentile is at most 1/128 (0.8 %) above the true value and never below it. The whole range of uint64_t fits
// in 7424 counters (58 KiB), allocated inside the object: record() is a shift, a count-leading-zeros and an
// increment, with no allocation and no branch on the value's size beyond one compare.
//
// Contract
// - One histogram per worker thread; no internal locking. merge() adds another histogram's counts (the main
//   thread merges the workers' histograms after they have joined).
// - percentile(p) returns the upper bound of the bucket that holds the p-th percentile value, capped at max();
//   p is clamped to [0, 100]; an empty histogram reports 0 for everything.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace loopwire::lwload {

class LatencyHistogram {
public:
    static constexpr unsigned kSubBucketBits = 8;
    static constexpr std::size_t kSubBuckets = std::size_t{1} << kSubBucketBits;            // 256
    static constexpr std::size_t kHalf = kSubBuckets / 2;                                   // 128
    static constexpr std::size_t kBucketCount = (64 - kSubBucketBits + 1) * kHalf + kHalf;  // 7424

    void record(std::uint64_t value) noexcept {
        ++counts_[indexOf(value)];
        ++count_;
        sum_ += static_cast<double>(value);
        if (value > max_) max_ = value;
        if (value < min_) min_ = value;
    }

    void merge(const LatencyHistogram& other) noexcept;
    void reset() noexcept;

    std::uint64_t count() const noexcept { return count_; }
    std::uint64_t max() const noexcept { return max_; }
    std::uint64_t min() const noexcept { return count_ == 0 ? 0 : min_; }
    double mean() const noexcept { return count_ == 0 ? 0.0 : sum_ / static_cast<double>(count_); }
    std::uint64_t percentile(double p) const noexcept;

    // The bucket a value falls in, and the smallest and largest value of a bucket. Exposed for the tests.
    static std::size_t indexOf(std::uint64_t value) noexcept {
        if (value < kSubBuckets) return static_cast<std::size_t>(value);
        const unsigned msb = 63u - static_cast<unsigned>(__builtin_clzll(value));
        const unsigned shift = msb - (kSubBucketBits - 1);
        return shift * kHalf + static_cast<std::size_t>(value >> shift);
    }
    static std::uint64_t lowestOf(std::size_t index) noexcept;
    static std::uint64_t highestOf(std::size_t index) noexcept;

private:
    std::array<std::uint64_t, kBucketCount> counts_{};
    std::uint64_t count_ = 0;
    std::uint64_t max_ = 0;
    std::uint64_t min_ = UINT64_MAX;
    double sum_ = 0.0;
};

}  // namespace loopwire::lwload
