// Compiled by ctest with -fsyntax-only. Each LW_CASE_* must fail to compile (the tests are WILL_FAIL); with no
// case defined the file must compile, which proves the failures come from the rejection and nothing else.
#include <loopwire/InlineFunction.h>

#include <array>

struct ThrowingMove {
    ThrowingMove() = default;
    ThrowingMove(ThrowingMove&&) noexcept(false) {}
    void operator()() const {}
};

int main() {
#if defined(LW_CASE_too_large)
    std::array<char, 33> bytes{};
    loopwire::InlineFunction<void(), 32> f = [bytes] { (void)bytes; };
#elif defined(LW_CASE_throwing_move)
    loopwire::InlineFunction<void(), 32> f = ThrowingMove{};
#else
    std::array<char, 24> bytes{};
    loopwire::InlineFunction<void(), 32> f = [bytes] { (void)bytes; };
#endif
    f();
    return 0;
}
