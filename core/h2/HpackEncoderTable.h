// HpackEncoderTable: the server's side of the dynamic table its responses build in the client's HPACK decoder
// (RFC 7541 section 2.3.2), one per connection.
//
// Contract
// - One field is indexed: date, whose value is in every response and changes once a second. The first block that
//   carries a new value inserts it (a literal with incremental indexing: 31 bytes); every later block refers to it
//   (1 byte). Nothing else is ever inserted, so the newest date is always the first dynamic entry, index 62, and the
//   client's own evictions never touch it.
// - setPeerLimit(value) for every SETTINGS_HEADER_TABLE_SIZE the client sends. The table's size is the smaller of
//   that and kMaxTableBytes; when it changes, the next block starts with dynamic table size updates (RFC 7541
//   section 4.2: the smallest size since the last block, then the final one, when they differ), which decoders
//   such as nghttp2's require, and the date is inserted anew. Below kDateEntryBytes the date goes out as a literal
//   that is not indexed.
// - writeBlockStart() first in every block, writeDate() for its date; both return the end of what they wrote.
//   Blocks must reach the client in the order they are written (the connection writes each when it is made).
// Pure: no allocation, no I/O.
#pragma once

#include "HpackInteger.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::h2 {

class HpackEncoderTable {
public:
    // The table this side uses at most, whatever larger size the client allows: the one field it indexes fits
    // many times over, and it is RFC 7541's default, so that no client needs a size update.
    static constexpr std::uint32_t kMaxTableBytes = 4096;
    // An HTTP date (29 bytes) in the table: its name, its value and RFC 7541's 32 bytes of overhead.
    static constexpr std::uint32_t kDateEntryBytes = 32 + 4 + 29;
    // writeBlockStart's most: two size updates.
    static constexpr std::size_t kMaxBlockStartBytes = 2 * kMaxHpackIntegerBytes;
    // writeDate's most, for a date of dateBytes.
    static constexpr std::size_t dateFieldBytes(std::size_t dateBytes) noexcept {
        return 2 * kMaxHpackIntegerBytes + dateBytes;
    }

    void setPeerLimit(std::uint32_t peerLimit) noexcept;
    char* writeBlockStart(char* out) noexcept;
    char* writeDate(char* out, std::string_view date) noexcept;

private:
    static constexpr std::size_t kHttpDateBytes = 29;

    std::uint32_t size_ = kMaxTableBytes;                // the size the client's decoder was last told (or its default)
    std::uint32_t smallestSinceBlock_ = kMaxTableBytes;  // the smallest size set since the last block
    bool updatePending_ = false;
    bool dateIndexed_ = false;  // indexedDate_ is the newest entry of the client's table
    char indexedDate_[kHttpDateBytes] = {};
};

}  // namespace loopwire::h2
