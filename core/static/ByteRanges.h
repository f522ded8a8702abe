// ByteRanges: a request's Range field (RFC 9110 §14.2) read against a representation of known length: the bytes to
// send and in which order, or why none.
//
// Pure: it reads a field value, never sees a socket or a file, and allocates nothing (the ranges go into a fixed
// array). read() answers one of:
//   - Ignored: not a byte-range set this server takes: another unit, bad syntax, a last-pos below its first-pos,
//     more than kMaxRangeSpecs ranges, or a representation of length 0. The whole representation is sent (200), as
//     RFC 9110 lets a server do with a Range it does not support or finds invalid.
//   - Unsatisfiable: a valid set none of whose ranges selects a byte of the representation: 416, with
//     `Content-Range: bytes */<length>`.
//   - Satisfiable: ranges() holds the ranges to send, at least one, each inside the representation. One range is
//     a 206 with Content-Range; several are a multipart/byteranges 206, one part each.
//
// Bounds, so that a request cannot make the answer larger than the representation plus the parts' headers: ranges
// that overlap, touch, or lie less than kCoalesceGapBytes apart are coalesced (RFC 9110 §15.3.7.2 allows it
// whatever their order), so no byte is sent twice; there are at most kMaxRangeSpecs parts. Ranges that need no
// coalescing keep the order the client gave. Numbers too large for 64 bits read as the largest one: a first-pos
// past the end, a last-pos clamped to the end, a suffix of the whole representation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace loopwire::files {

// Bytes first to last of the representation, both included.
struct ByteRange {
    std::uint64_t first = 0;
    std::uint64_t last = 0;

    std::uint64_t length() const noexcept { return last - first + 1; }
};

enum class RangeVerdict : std::uint8_t { Ignored, Unsatisfiable, Satisfiable };

class ByteRanges {
public:
    // Range specs a field may hold; a field with more is ignored (the whole representation is sent).
    static constexpr std::size_t kMaxRangeSpecs = 32;
    // Ranges closer than this are sent as one: about what the header of a multipart part costs.
    static constexpr std::uint64_t kCoalesceGapBytes = 80;

    RangeVerdict read(std::string_view field, std::uint64_t representationLength) noexcept;

    // The ranges to send after a Satisfiable read, in sending order.
    std::span<const ByteRange> ranges() const noexcept { return {ranges_.data(), count_}; }
    std::uint64_t totalBytes() const noexcept;

private:
    // Reads the specs into ranges_ (those that select a byte) and counts them in specs; false when the field is not
    // a byte-range set taken here.
    bool readSpecs(std::string_view field, std::uint64_t representationLength, std::size_t& specs) noexcept;
    // Sorts the ranges and merges those that overlap or lie closer than kCoalesceGapBytes, when any do.
    void coalesce() noexcept;

    std::array<ByteRange, kMaxRangeSpecs> ranges_{};
    std::size_t count_ = 0;
};

}  // namespace loopwire::files
