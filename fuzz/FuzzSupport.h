// What every fuzz target shares: FUZZ_CHECK, which aborts (a crash libFuzzer records) when a contract is broken,
// in release builds too, and PieceSizes, the reproducible sizes a target cuts its input into to feed it in reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition)                                                                  \
    do {                                                                                       \
        if (!(condition)) {                                                                    \
            std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition); \
            std::abort();                                                                      \
        }                                                                                      \
    } while (false)

namespace loopwire::fuzz {

// Sizes from 1 to maxPiece drawn from a linear congruential sequence seeded by the input, so that a crash
// replays with the same cuts.
class PieceSizes {
public:
    PieceSizes(std::uint32_t seed, std::size_t maxPiece) noexcept : state_(seed), maxPiece_(maxPiece) {}

    // The next size, at most left (and at least 1 when left is).
    std::size_t next(std::size_t left) noexcept {
        state_ = state_ * 1103515245u + 12345u;
        const std::size_t size = 1 + (state_ >> 16) % maxPiece_;
        return size < left ? size : left;
    }

private:
    std::uint32_t state_;
    std::size_t maxPiece_;
};

}  // namespace loopwire::fuzz
