// HpackDecoder: reads the header blocks a client sends (RFC 7541), one connection's worth, field by field.
//
// Contract
// - One decoder per connection: its dynamic table (HpackDynamicTable) lives as long as the connection, and every
//   header block of the connection must go through it, in order, whole, even those of streams that are refused or
//   reset (the table would otherwise fall out of step with the client's encoder).
// - begin(block, scratch) starts a block: the payloads of a HEADERS frame and its CONTINUATION frames, joined, with
//   padding and priority removed. next(field) then yields the block's fields one at a time:
//   * Field: `field` holds the next field. name and value are views valid until the block ends: into the block
//     (literals sent as they are), into the static table, or into scratch (Huffman-coded literals and entries of
//     the dynamic table, which are copied because later fields of the block may evict them).
//   * End: the block is over.
//   * an error: the block cannot be decoded, a COMPRESSION_ERROR for the connection (RFC 9113 section 4.3); the
//     decoder must not be used again.
// - The header list is limited to maxListBytes, counted as RFC 9113 counts SETTINGS_MAX_HEADER_LIST_SIZE (names,
//   values and 32 per field). Past it the decoder yields no more fields but goes on reading the block to keep its
//   table in step, and listTooLarge() is true: the stream gets 431, the connection lives. Fields yielded before
//   are then no longer valid.
// - scratch must hold at least scratchBytesFor(maxListBytes, tableLimit) bytes.
// - Dynamic table size updates are accepted only before the block's first field and up to tableLimit, the size the
//   connection announced in SETTINGS_HEADER_TABLE_SIZE.
// Pure: no I/O; the only allocation is the dynamic table's storage, once per connection.
#pragma once

#include "HpackDynamicTable.h"
#include "FieldKind.h"
#include "HpackStaticTable.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::h2 {

// SETTINGS_HEADER_TABLE_SIZE's initial value (RFC 9113 section 6.5.2), the size loopwire announces.
inline constexpr std::uint32_t kDefaultHpackTableLimit = 4096;

struct DecodedField {
    std::string_view name;
    std::string_view value;
    FieldKind kind = FieldKind::Regular;  // what the name is (FieldKind.h), checked
    ValueCheck valueCheck = ValueCheck::Unchecked;
};

enum class HpackStatus : std::uint8_t {
    Field,
    End,
    Truncated,           // a representation cut off by the end of the block
    IntegerTooLarge,     // an integer over kMaxHpackInteger, or in more bytes than it needs
    BadIndex,            // index 0, or past the static and dynamic tables
    BadHuffman,          // a Huffman-coded string that is not valid (EOS, or wrong padding)
    TableSizeTooLarge,   // a dynamic table size update over the announced limit
    TableSizeMisplaced,  // a dynamic table size update after the block's first field
};

std::string_view describe(HpackStatus status) noexcept;

class HpackDecoder {
public:
    HpackDecoder(std::uint32_t tableLimit, std::size_t maxListBytes) noexcept
        : table_(tableLimit), maxListBytes_(maxListBytes) {}

    static constexpr std::size_t scratchBytesFor(std::size_t maxListBytes, std::uint32_t tableLimit) noexcept {
        return std::max<std::size_t>(maxListBytes, tableLimit);
    }

    void begin(std::string_view block, char* scratch) noexcept;
    HpackStatus next(DecodedField& field) noexcept;

    bool listTooLarge() const noexcept { return listBytes_ > maxListBytes_; }
    const HpackDynamicTable& table() const noexcept { return table_; }

private:
    // One representation (RFC 7541 section 6) into field: Field, End, or an error. A size update yields nothing.
    HpackStatus decodeOne(DecodedField& field) noexcept;
    HpackStatus readIndexed(DecodedField& field) noexcept;
    HpackStatus readLiteral(unsigned prefixBits, bool indexed, DecodedField& field) noexcept;
    // Reads a string literal (RFC 7541 section 5.2) at at_ into out: a view into the block, or into scratch for a
    // Huffman-coded one. oversized: it is longer than scratch can ever hold (only possible past the list limit).
    HpackStatus readString(DecodedField& field, std::string_view& out, bool& oversized) noexcept;
    // Room for bytes in scratch, or null when there is none (then the list is over its limit; see makeRoom).
    char* reserve(std::size_t bytes) noexcept;
    // Called when scratch is full, which means the list is over its limit: marks it so and keeps only the current
    // field's name, moved to scratch's start. False when even that leaves no room for bytes.
    bool makeRoom(DecodedField& field, std::size_t bytes) noexcept;
    std::size_t scratchCapacity() const noexcept { return scratchBytesFor(maxListBytes_, table_.limit()); }

    HpackDynamicTable table_;
    std::size_t maxListBytes_;
    const unsigned char* block_ = nullptr;
    std::size_t size_ = 0;
    std::size_t at_ = 0;
    char* scratch_ = nullptr;
    std::size_t scratchUsed_ = 0;
    std::size_t fieldStart_ = 0;  // scratch used before the current field
    std::size_t listBytes_ = 0;
    bool fieldSeen_ = false;
};

}  // namespace loopwire::h2
