// Unmask: XORs a masked WebSocket payload with its 4-byte key (RFC 6455 section 5.3), in place: the per-byte work
// of every message a client sends, so done as wide as the machine allows.
//
// Three paths compute the same bytes: a portable one (eight bytes per XOR), SSE2 (16 bytes; part of the x86-64
// baseline, so always there on it) and AVX2 (32 bytes; chosen at run time when the CPU has it). unmask() takes the
// fastest the machine has; unmaskWith() runs a given one, so that the tests and the fuzzer can grind each against
// the portable path. Pure: no allocation, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>

namespace loopwire::ws {

enum class UnmaskPath : std::uint8_t { Portable, Sse2, Avx2 };

// Unmasks length bytes at data, the first of which is at position offset (0 to 3) of the key.
void unmask(char* data, std::size_t length, const std::uint8_t (&key)[4], std::uint8_t offset) noexcept;

// The same with the given path; a path this machine lacks runs the portable one.
void unmaskWith(UnmaskPath path, char* data, std::size_t length, const std::uint8_t (&key)[4],
                std::uint8_t offset) noexcept;

// Whether this machine has path (the portable one always).
bool hasUnmaskPath(UnmaskPath path) noexcept;

}  // namespace loopwire::ws
