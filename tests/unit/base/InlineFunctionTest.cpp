#include <loopwire/InlineFunction.h>

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <type_traits>

namespace loopwire {
namespace {

using Small = InlineFunction<int(int), 32>;

struct ThrowingMove {
    ThrowingMove() = default;
    ThrowingMove(ThrowingMove&&) noexcept(false) {}
    int operator()(int x) const { return x; }
};

struct Large {
    std::array<char, 64> bytes{};
    int operator()(int x) const { return x + bytes[0]; }
};

struct alignas(64) OverAligned {
    int operator()(int x) const { return x; }
};

// The rejections are part of the contract: no silent heap fallback.
static_assert(!std::is_constructible_v<Small, Large>, "a callable larger than Capacity must not be accepted");
static_assert(!std::is_constructible_v<Small, ThrowingMove>, "a callable with a throwing move must not be accepted");
static_assert(!std::is_constructible_v<Small, OverAligned>, "an over-aligned callable must not be accepted");
static_assert(std::is_constructible_v<InlineFunction<int(int), 64>, Large>, "a callable that fits is accepted");
static_assert(std::is_nothrow_move_constructible_v<Small>);
static_assert(!std::is_copy_constructible_v<Small>);

TEST(InlineFunction, EmptyByDefault) {
    Small f;
    EXPECT_FALSE(f);
    Small g = nullptr;
    EXPECT_FALSE(g);
}

TEST(InlineFunction, CallsTheStoredCallable) {
    int base = 40;
    Small f = [&base](int x) { return base + x; };
    ASSERT_TRUE(f);
    EXPECT_EQ(f(2), 42);
}

TEST(InlineFunction, MoveLeavesTheSourceEmpty) {
    Small f = [](int x) { return x * 2; };
    Small g = std::move(f);
    EXPECT_FALSE(f);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
    EXPECT_EQ(g(4), 8);
    Small h;
    h = std::move(g);
    EXPECT_FALSE(g);  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(h(5), 10);
}

TEST(InlineFunction, HoldsMoveOnlyCaptures) {
    auto owned = std::make_unique<int>(7);
    InlineFunction<int(), 16> f = [p = std::move(owned)] { return *p; };
    EXPECT_EQ(f(), 7);
    auto g = std::move(f);
    EXPECT_EQ(g(), 7);
}

TEST(InlineFunction, DestroysTheCallableExactlyOnce) {
    auto counter = std::make_shared<int>(0);
    struct Probe {
        std::shared_ptr<int> counter;
        ~Probe() {
            if (counter) ++*counter;
        }
        Probe(std::shared_ptr<int> c) : counter(std::move(c)) {}
        Probe(Probe&& other) noexcept = default;
        void operator()() {}
    };
    {
        InlineFunction<void(), 32> f = Probe{counter};
        InlineFunction<void(), 32> g = std::move(f);
        g = nullptr;
        EXPECT_EQ(*counter, 1);
    }
    EXPECT_EQ(*counter, 1);
}

TEST(InlineFunction, ReassignmentDestroysThePreviousCallable) {
    auto counter = std::make_shared<int>(0);
    InlineFunction<int(), 32> f = [c = counter] { return 1; };
    EXPECT_EQ(counter.use_count(), 2);
    f = [] { return 2; };
    EXPECT_EQ(counter.use_count(), 1);
    EXPECT_EQ(f(), 2);
}

TEST(InlineFunction, ForwardsArgumentsAndResults) {
    InlineFunction<std::string(std::string&&, const std::string&), 16> f = [](std::string&& a, const std::string& b) {
        return std::move(a) + b;
    };
    EXPECT_EQ(f(std::string("ab"), std::string("cd")), "abcd");
}

TEST(InlineFunction, StorageIsInsideTheObject) {
    EXPECT_LE(sizeof(InlineFunction<void(), 32>), 32 + 2 * sizeof(void*));
}

}  // namespace
}  // namespace loopwire
