// Utf8Validator: checks that a byte stream is UTF-8 (RFC 3629) while it arrives in pieces, as the text messages
// and close reasons of WebSocket (RFC 6455 section 8.1) must be.
//
// feed() may be called with any split of the stream: across fragments of a message and across reads. It fails
// fast, at the first byte that no valid stream could contain at that place (an overlong form, a surrogate, a code
// point past U+10FFFF, a stray continuation byte, a lead byte cut short by another lead byte), so a client sending
// invalid text is refused before the rest arrives: the piece that holds that byte is the one whose feed() returns
// false. isComplete() then says whether the stream so far ends on a character boundary: a message is valid when
// every feed() returned true and isComplete() holds at its end.
//
// Three paths give the same answers: a portable one (a state machine per character, ASCII skipped eight bytes at
// a time), SSE2 (ASCII skipped 16 and 64 bytes at a time; part of the x86-64 baseline) and AVX2 (every character,
// 32 bytes at a time, by table lookups on the nibbles of each byte and of the three before it; chosen at run time
// when the CPU has it). feed() and isValid() take the fastest the machine has; feedWith() and isValidWith() run a
// given one, so that the tests and the fuzzer can grind each against the portable path. Pure: no allocation, no
// I/O, no read outside the bytes given.
#pragma once

#include <cstdint>
#include <string_view>

namespace loopwire {

enum class Utf8Path : std::uint8_t { Portable, Sse2, Avx2 };

class Utf8Validator {
public:
    // Checks bytes as the continuation of what was fed before. Returns false from the first invalid byte on;
    // once false, it stays false until reset().
    bool feed(std::string_view bytes) noexcept;
    // The same with the given path; a path this machine lacks runs the portable one.
    bool feedWith(Utf8Path path, std::string_view bytes) noexcept;

    // True when no character is cut short: the bytes fed so far end on a character boundary.
    bool isComplete() const noexcept { return state_ == kBoundary; }
    bool failed() const noexcept { return state_ == kFailed; }

    // Starts a new stream.
    void reset() noexcept { state_ = kBoundary; }

    // A whole stream at once.
    static bool isValid(std::string_view bytes) noexcept;
    static bool isValidWith(Utf8Path path, std::string_view bytes) noexcept;

    // Whether this machine has path (the portable one always).
    static bool hasPath(Utf8Path path) noexcept;

private:
    // What the next byte must be (the ranges of RFC 3629 section 4).
    enum State : std::uint8_t {
        kBoundary,  // any character start
        kTail1,     // one continuation byte 80..BF, then a boundary
        kTail2,     // two continuation bytes
        kTail3,     // three continuation bytes
        kAfterE0,   // A0..BF (no overlong three-byte form), then one more
        kAfterED,   // 80..9F (no surrogate), then one more
        kAfterF0,   // 90..BF (no overlong four-byte form), then two more
        kAfterF4,   // 80..8F (nothing past U+10FFFF), then two more
        kFailed,
    };

    static State afterLeadByte(unsigned char byte) noexcept;

    State state_ = kBoundary;
};

}  // namespace loopwire
