// When a broker link tries again: the step doubles per round of the URL's hosts up to the cap, each delay is drawn
// between half and all of its step, and a success starts over.
#include "broker/ReconnectBackoff.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

namespace loopwire::broker {
namespace {

TEST(ReconnectBackoff, DoublesItsStepUpToTheCap) {
    ReconnectBackoff backoff(100, 5000, 1, 7);
    const std::vector<std::uint64_t> steps = {100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000};
    for (std::uint64_t step : steps) {
        EXPECT_EQ(backoff.nextStepMs(), step);
        const std::uint64_t delay = backoff.nextDelayMs();
        EXPECT_GE(delay, step / 2);
        EXPECT_LE(delay, step);
    }
}

TEST(ReconnectBackoff, StaysAtTheCapHoweverLongItFails) {
    // Far past kMaxDoublings: the shift is bounded, so the step neither overflows nor wraps to a short delay.
    ReconnectBackoff backoff(1, 60000, 1, 1);
    for (int failure = 0; failure < 1000; ++failure)
        backoff.nextDelayMs();
    EXPECT_EQ(backoff.nextStepMs(), 60000u);
    const std::uint64_t delay = backoff.nextDelayMs();
    EXPECT_GE(delay, 30000u);
    EXPECT_LE(delay, 60000u);
}

TEST(ReconnectBackoff, CountsAFullRoundOfTheHostsAsOneStep) {
    ReconnectBackoff backoff(100, 5000, 3, 7);
    const std::vector<std::uint64_t> steps = {100, 100, 100, 200, 200, 200, 400};
    for (std::uint64_t step : steps) {
        EXPECT_EQ(backoff.nextStepMs(), step);
        backoff.nextDelayMs();
    }
}

TEST(ReconnectBackoff, DrawsEveryDelayBetweenHalfAndAllOfItsStep) {
    // Two links that failed at the same instant (two seeds) do not wait alike, and one link's delays at the cap
    // spread over the whole upper half of the step.
    ReconnectBackoff first(1000, 1000, 1, 11);
    ReconnectBackoff second(1000, 1000, 1, 12);
    std::set<std::uint64_t> seen;
    int different = 0;
    for (int attempt = 0; attempt < 200; ++attempt) {
        const std::uint64_t a = first.nextDelayMs();
        const std::uint64_t b = second.nextDelayMs();
        ASSERT_GE(a, 500u);
        ASSERT_LE(a, 1000u);
        seen.insert(a);
        if (a != b) ++different;
    }
    EXPECT_GT(different, 190);
    EXPECT_GT(seen.size(), 150u);
    EXPECT_LT(*seen.begin(), 600u);
    EXPECT_GT(*seen.rbegin(), 900u);
}

TEST(ReconnectBackoff, StartsOverAfterASuccess) {
    ReconnectBackoff backoff(100, 5000, 1, 3);
    for (int failure = 0; failure < 5; ++failure)
        backoff.nextDelayMs();
    EXPECT_EQ(backoff.nextStepMs(), 3200u);
    backoff.succeeded();
    EXPECT_EQ(backoff.nextStepMs(), 100u);
}

TEST(ReconnectBackoff, NeverWaitsLessThanAMillisecond) {
    ReconnectBackoff backoff(1, 1, 1, 5);
    for (int failure = 0; failure < 50; ++failure)
        EXPECT_EQ(backoff.nextDelayMs(), 1u);
}

TEST(ReconnectBackoff, GivesTheSameDelaysForTheSameSeed) {
    ReconnectBackoff first(100, 5000, 2, 42);
    ReconnectBackoff second(100, 5000, 2, 42);
    for (int failure = 0; failure < 20; ++failure)
        EXPECT_EQ(first.nextDelayMs(), second.nextDelayMs());
}

}  // namespace
}  // namespace loopwire::broker
