#include "static/Preconditions.h"

#include "base/Check.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace loopwire::files {
namespace {

using enum PreconditionVerdict;

// The representation: last modified at RFC 9110's example date, read at a Date in 2025.
constexpr std::int64_t kNow = 1'748'736'000;
constexpr std::int64_t kLastModified = 784'111'777;
constexpr std::string_view kAtLastModified = "Sun, 06 Nov 1994 08:49:37 GMT";
constexpr std::string_view kBeforeLastModified = "Sun, 06 Nov 1994 08:49:36 GMT";
constexpr std::string_view kAfterLastModified = "Sun, 06 Nov 1994 08:49:38 GMT";
constexpr std::string_view kInvalidDate = "Mon, 06 Nov 1994 08:49:37 GMT";  // the 6th was a Sunday
constexpr Validators kStrong{"\"abc\"", kLastModified};
constexpr Validators kWeak{"W/\"abc\"", kLastModified};
constexpr Validators kNoTag{"", kLastModified};

ConditionalFields ifMatch(std::string_view value) { return {.ifMatch = value}; }
ConditionalFields ifNoneMatch(std::string_view value, bool getOrHead = true) {
    return {.ifNoneMatch = value, .getOrHead = getOrHead};
}
ConditionalFields ifModifiedSince(std::string_view value, bool getOrHead = true) {
    return {.ifModifiedSince = value, .getOrHead = getOrHead};
}
ConditionalFields ifUnmodifiedSince(std::string_view value, bool getOrHead = true) {
    return {.ifUnmodifiedSince = value, .getOrHead = getOrHead};
}

PreconditionVerdict evaluate(const ConditionalFields& fields, const Validators& current = kStrong) {
    return Preconditions::evaluate(fields, current, kNow);
}

TEST(Preconditions, ARequestWithoutConditionsProceeds) {
    EXPECT_EQ(evaluate({}), Proceed);
    EXPECT_EQ(evaluate({.getOrHead = false}), Proceed);
    EXPECT_EQ(evaluate({}, kNoTag), Proceed);
}

TEST(Preconditions, AnEmptyFieldIsAnAbsentOne) {
    EXPECT_EQ(evaluate(ifMatch("")), Proceed) << "an empty If-Match would otherwise fail";
    EXPECT_EQ(evaluate({.ifMatch = "", .ifNoneMatch = "\"abc\""}), NotModified);
}

// Step 1.
TEST(Preconditions, IfMatchNeedsTheCurrentTagByStrongComparison) {
    EXPECT_EQ(evaluate(ifMatch("\"abc\"")), Proceed);
    EXPECT_EQ(evaluate(ifMatch("\"x\", \"abc\"")), Proceed);
    EXPECT_EQ(evaluate(ifMatch("\"x\"")), PreconditionFailed);
    EXPECT_EQ(evaluate(ifMatch("W/\"abc\"")), PreconditionFailed) << "a weak tag never matches strongly";
    EXPECT_EQ(evaluate(ifMatch("W/\"abc\""), kWeak), PreconditionFailed);
    EXPECT_EQ(evaluate(ifMatch("\"abc\""), kWeak), PreconditionFailed);
    EXPECT_EQ(evaluate(ifMatch("\"abc\""), kNoTag), PreconditionFailed);
    EXPECT_EQ(evaluate({.ifMatch = "\"abc\"", .getOrHead = false}), Proceed);
    EXPECT_EQ(evaluate({.ifMatch = "\"x\"", .getOrHead = false}), PreconditionFailed);
}

TEST(Preconditions, IfMatchStarMatchesAnyCurrentRepresentation) {
    EXPECT_EQ(evaluate(ifMatch("*")), Proceed);
    EXPECT_EQ(evaluate(ifMatch("*"), kWeak), Proceed);
    EXPECT_EQ(evaluate(ifMatch("*"), kNoTag), Proceed);
}

TEST(Preconditions, AMalformedIfMatchFails) {
    EXPECT_EQ(evaluate(ifMatch("abc")), PreconditionFailed);
    EXPECT_EQ(evaluate(ifMatch("\"abc\", garbage")), PreconditionFailed) << "even after the matching tag";
    EXPECT_EQ(evaluate(ifMatch("*, \"abc\"")), PreconditionFailed);
}

// Step 2.
TEST(Preconditions, IfUnmodifiedSinceFailsWhenTheRepresentationIsNewer) {
    EXPECT_EQ(evaluate(ifUnmodifiedSince(kAtLastModified)), Proceed);
    EXPECT_EQ(evaluate(ifUnmodifiedSince(kAfterLastModified)), Proceed);
    EXPECT_EQ(evaluate(ifUnmodifiedSince(kBeforeLastModified)), PreconditionFailed);
    EXPECT_EQ(evaluate(ifUnmodifiedSince(kBeforeLastModified, false)), PreconditionFailed) << "any method";
    EXPECT_EQ(evaluate(ifUnmodifiedSince("Sunday, 06-Nov-94 08:49:36 GMT")), PreconditionFailed) << "RFC 850";
    EXPECT_EQ(evaluate(ifUnmodifiedSince("Sun Nov  6 08:49:36 1994")), PreconditionFailed) << "asctime";
}

TEST(Preconditions, AnInvalidIfUnmodifiedSinceIsIgnored) {
    EXPECT_EQ(evaluate(ifUnmodifiedSince(kInvalidDate)), Proceed);
    EXPECT_EQ(evaluate(ifUnmodifiedSince("yesterday")), Proceed);
    EXPECT_EQ(evaluate(ifUnmodifiedSince("784111776")), Proceed);
}

TEST(Preconditions, IfMatchTakesPrecedenceOverIfUnmodifiedSince) {
    EXPECT_EQ(evaluate({.ifMatch = "\"abc\"", .ifUnmodifiedSince = kBeforeLastModified}), Proceed);
    EXPECT_EQ(evaluate({.ifMatch = "\"x\"", .ifUnmodifiedSince = kAfterLastModified}), PreconditionFailed);
}

// Step 3.
TEST(Preconditions, IfNoneMatchNeedsTheCurrentTagByWeakComparison) {
    EXPECT_EQ(evaluate(ifNoneMatch("\"abc\"")), NotModified);
    EXPECT_EQ(evaluate(ifNoneMatch("\"x\", \"abc\"")), NotModified);
    EXPECT_EQ(evaluate(ifNoneMatch("W/\"abc\"")), NotModified);
    EXPECT_EQ(evaluate(ifNoneMatch("\"abc\""), kWeak), NotModified);
    EXPECT_EQ(evaluate(ifNoneMatch("W/\"abc\""), kWeak), NotModified);
    EXPECT_EQ(evaluate(ifNoneMatch("\"x\"")), Proceed);
    EXPECT_EQ(evaluate(ifNoneMatch("\"abc\""), kNoTag), Proceed);
}

TEST(Preconditions, IfNoneMatchStarMatchesAnyCurrentRepresentation) {
    EXPECT_EQ(evaluate(ifNoneMatch("*")), NotModified);
    EXPECT_EQ(evaluate(ifNoneMatch("*"), kNoTag), NotModified);
    EXPECT_EQ(evaluate(ifNoneMatch("*", false)), PreconditionFailed);
}

TEST(Preconditions, AMatchingIfNoneMatchFailsAMethodOtherThanGetOrHead) {
    EXPECT_EQ(evaluate(ifNoneMatch("\"abc\"", false)), PreconditionFailed);
    EXPECT_EQ(evaluate(ifNoneMatch("W/\"abc\"", false)), PreconditionFailed);
    EXPECT_EQ(evaluate(ifNoneMatch("\"x\"", false)), Proceed);
}

TEST(Preconditions, AMalformedIfNoneMatchMatchesNothing) {
    EXPECT_EQ(evaluate(ifNoneMatch("abc")), Proceed);
    EXPECT_EQ(evaluate(ifNoneMatch("\"abc\" garbage")), Proceed) << "even with the matching tag in it";
    EXPECT_EQ(evaluate(ifNoneMatch("\"abc\", *", false)), Proceed);
}

TEST(Preconditions, IfNoneMatchIsEvaluatedAfterIfMatchAndIfUnmodifiedSince) {
    EXPECT_EQ(evaluate({.ifMatch = "\"abc\"", .ifNoneMatch = "\"abc\""}), NotModified);
    EXPECT_EQ(evaluate({.ifMatch = "\"x\"", .ifNoneMatch = "\"abc\""}), PreconditionFailed);
    EXPECT_EQ(evaluate({.ifMatch = "\"abc\"", .ifNoneMatch = "\"x\""}), Proceed);
    EXPECT_EQ(evaluate({.ifNoneMatch = "\"abc\"", .ifUnmodifiedSince = kBeforeLastModified}), PreconditionFailed);
    EXPECT_EQ(evaluate({.ifNoneMatch = "\"abc\"", .ifUnmodifiedSince = kAtLastModified}), NotModified);
}

// Step 4.
TEST(Preconditions, IfModifiedSinceAnswersNotModifiedWhenTheRepresentationIsNoNewer) {
    EXPECT_EQ(evaluate(ifModifiedSince(kAtLastModified)), NotModified);
    EXPECT_EQ(evaluate(ifModifiedSince(kAfterLastModified)), NotModified);
    EXPECT_EQ(evaluate(ifModifiedSince(kBeforeLastModified)), Proceed);
    EXPECT_EQ(evaluate(ifModifiedSince("Sunday, 06-Nov-94 08:49:37 GMT")), NotModified) << "RFC 850";
    EXPECT_EQ(evaluate(ifModifiedSince("Sun Nov  6 08:49:37 1994")), NotModified) << "asctime";
}

TEST(Preconditions, IfModifiedSinceIsOnlyForGetAndHead) {
    EXPECT_EQ(evaluate(ifModifiedSince(kAtLastModified, false)), Proceed);
    EXPECT_EQ(evaluate(ifModifiedSince(kAfterLastModified, false)), Proceed);
}

TEST(Preconditions, AnInvalidIfModifiedSinceIsIgnored) {
    EXPECT_EQ(evaluate(ifModifiedSince(kInvalidDate)), Proceed);
    EXPECT_EQ(evaluate(ifModifiedSince(std::string(kAtLastModified) + ", " + std::string(kAtLastModified))), Proceed)
        << "two members";
    EXPECT_EQ(evaluate(ifModifiedSince(std::string(kAtLastModified) + "x")), Proceed);
}

TEST(Preconditions, IfNoneMatchPresentMeansIfModifiedSinceIsIgnored) {
    EXPECT_EQ(evaluate({.ifNoneMatch = "\"x\"", .ifModifiedSince = kAtLastModified}), Proceed);
    EXPECT_EQ(evaluate({.ifNoneMatch = "garbage", .ifModifiedSince = kAtLastModified}), Proceed);
    EXPECT_EQ(evaluate({.ifNoneMatch = "\"abc\"", .ifModifiedSince = kBeforeLastModified}), NotModified);
}

TEST(Preconditions, IfModifiedSinceIsEvaluatedAfterIfMatchAndIfUnmodifiedSince) {
    EXPECT_EQ(evaluate({.ifMatch = "\"abc\"", .ifModifiedSince = kAtLastModified}), NotModified);
    EXPECT_EQ(evaluate({.ifMatch = "\"x\"", .ifModifiedSince = kAtLastModified}), PreconditionFailed);
    EXPECT_EQ(evaluate({.ifModifiedSince = kAtLastModified, .ifUnmodifiedSince = kAtLastModified}), NotModified);
    EXPECT_EQ(evaluate({.ifModifiedSince = kAtLastModified, .ifUnmodifiedSince = kBeforeLastModified}),
              PreconditionFailed);
}

TEST(Preconditions, AllFourFieldsTogether) {
    const ConditionalFields all{.ifMatch = "\"abc\"",
                                .ifNoneMatch = "\"x\"",
                                .ifModifiedSince = kAtLastModified,
                                .ifUnmodifiedSince = kBeforeLastModified};
    EXPECT_EQ(evaluate(all), Proceed) << "If-Unmodified-Since ignored for If-Match, If-Modified-Since for "
                                         "If-None-Match";
    ConditionalFields matching = all;
    matching.ifNoneMatch = "W/\"abc\"";
    EXPECT_EQ(evaluate(matching), NotModified);
    matching.getOrHead = false;
    EXPECT_EQ(evaluate(matching), PreconditionFailed);
}

TEST(Preconditions, ReadsAnRfc850DateAgainstNow) {
    // 2075-01-01 00:00:00, a Tuesday, is "75" read in 2025; read in 2020 (50 years back: 1975) it is no Tuesday.
    const ConditionalFields fields = ifModifiedSince("Tuesday, 01-Jan-75 00:00:00 GMT");
    const Validators recent{"\"abc\"", kNow};
    EXPECT_EQ(Preconditions::evaluate(fields, recent, kNow), NotModified);
    EXPECT_EQ(Preconditions::evaluate(fields, recent, 1'577'836'800), Proceed);
}

#if LW_CHECKS_ENABLED
TEST(PreconditionsDeathTest, AMalformedCurrentTagIsCaught) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(evaluate(ifNoneMatch("\"abc\""), {"abc", kLastModified}), "current");
    EXPECT_DEATH(Preconditions::rangeApplies("\"abc\"", {"W/abc", kLastModified}, true, kNow), "current");
}
#endif

bool rangeApplies(std::string_view ifRange, const Validators& current = kStrong, bool lastModifiedIsStrong = true) {
    return Preconditions::rangeApplies(ifRange, current, lastModifiedIsStrong, kNow);
}

TEST(IfRange, AnAbsentFieldLetsTheRangeApply) {
    EXPECT_TRUE(rangeApplies(""));
    EXPECT_TRUE(rangeApplies("", kNoTag, false));
}

TEST(IfRange, AnEntityTagMustEqualTheCurrentOneStrongly) {
    EXPECT_TRUE(rangeApplies("\"abc\""));
    EXPECT_FALSE(rangeApplies("\"x\""));
    EXPECT_FALSE(rangeApplies("\"ABC\""));
    EXPECT_FALSE(rangeApplies("W/\"abc\"")) << "a weak tag never matches";
    EXPECT_FALSE(rangeApplies("W/\"abc\"", kWeak));
    EXPECT_FALSE(rangeApplies("\"abc\"", kWeak));
    EXPECT_FALSE(rangeApplies("\"abc\"", kNoTag));
}

TEST(IfRange, HoldsOneValidatorNotAList) {
    EXPECT_FALSE(rangeApplies("\"abc\", \"x\""));
    EXPECT_FALSE(rangeApplies("\"x\", \"abc\""));
    EXPECT_FALSE(rangeApplies("*"));
}

TEST(IfRange, AMalformedValueSendsTheWholeRepresentation) {
    for (std::string_view value : {"\"abc", "W/abc", "W/", "\"abc\" ", "abc", "yesterday", "\"a b\""})
        EXPECT_FALSE(rangeApplies(value)) << value;
}

TEST(IfRange, ADateMustBeExactlyAStrongLastModified) {
    EXPECT_TRUE(rangeApplies(kAtLastModified));
    EXPECT_TRUE(rangeApplies(kAtLastModified, kNoTag));
    EXPECT_TRUE(rangeApplies("Sunday, 06-Nov-94 08:49:37 GMT")) << "the same second in another form";
    EXPECT_TRUE(rangeApplies("Sun Nov  6 08:49:37 1994"));
    EXPECT_FALSE(rangeApplies(kAtLastModified, kStrong, false)) << "a weak Last-Modified";
    EXPECT_FALSE(rangeApplies(kAfterLastModified)) << "exact, unlike If-Unmodified-Since";
    EXPECT_FALSE(rangeApplies(kBeforeLastModified));
    EXPECT_FALSE(rangeApplies(kInvalidDate));
}

TEST(IfRange, ADateOnAWednesdayIsNoWeakTag) {
    const Validators wednesday{"\"abc\"", kLastModified + 3 * 86'400};
    EXPECT_TRUE(rangeApplies("Wed, 09 Nov 1994 08:49:37 GMT", wednesday));
    EXPECT_TRUE(rangeApplies("Wednesday, 09-Nov-94 08:49:37 GMT", wednesday));
    EXPECT_TRUE(rangeApplies("Wed Nov  9 08:49:37 1994", wednesday));
}

}  // namespace
}  // namespace loopwire::files
