#include "LatencyHistogram.h"

#include <cmath>

namespace loopwire::lwload {

void LatencyHistogram::merge(const LatencyHistogram& other) noexcept {
    for (std::size_t i = 0; i < kBucketCount; ++i)
        counts_[i] += other.counts_[i];
    count_ += other.count_;
    sum_ += other.sum_;
    if (other.max_ > max_) max_ = other.max_;
    if (other.min_ < min_) min_ = other.min_;
}

void LatencyHistogram::reset() noexcept {
    counts_.fill(0);
    count_ = 0;
    max_ = 0;
    min_ = UINT64_MAX;
    sum_ = 0.0;
}

std::uint64_t LatencyHistogram::lowestOf(std::size_t index) noexcept {
    if (index < kSubBuckets) return index;
    const std::size_t shift = index / kHalf - 1;
    const std::uint64_t sub = index - shift * kHalf;
    return sub << shift;
}

std::uint64_t LatencyHistogram::highestOf(std::size_t index) noexcept {
    if (index < kSubBuckets) return index;
    const std::size_t shift = index / kHalf - 1;
    return lowestOf(index) + ((std::uint64_t{1} << shift) - 1);
}

std::uint64_t LatencyHistogram::percentile(double p) const noexcept {
    if (count_ == 0) return 0;
    if (!(p > 0.0)) return min();
    if (p >= 100.0) return max_;
    // The rank of the p-th percentile among count_ sorted values, 1-based: the smallest value with at least
    // p % of the values at or below it.
    auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
    if (rank == 0) rank = 1;
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < kBucketCount; ++i) {
        seen += counts_[i];
        if (seen >= rank) {
            const std::uint64_t high = highestOf(i);
            return high < max_ ? high : max_;
        }
    }
    return max_;
}

}  // namespace loopwire::lwload
