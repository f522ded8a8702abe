// HpackDynamicTable: the decoder's dynamic table of HPACK (RFC 7541 sections 2.3.2 and 4), one per connection.
//
// Contract
// - Entries are numbered from 1, the newest first (the decoder adds kStaticTableSize to get an HPACK index).
// - size() is the RFC's size: each entry's name and value bytes plus 32. It never exceeds capacity(); insert()
//   evicts the oldest entries to make room, and an entry larger than capacity() empties the table and is not kept.
// - capacity() starts at limit (what the connection announced in SETTINGS_HEADER_TABLE_SIZE) and follows the
//   peer's dynamic table size updates, which may not exceed limit: setCapacity() refuses them.
// - An entry's bytes may wrap around the end of the storage, so they are read by copying (copyName, copyValue),
//   never as views. The source of insert() must not be the table itself: a name taken from an entry that the
//   insertion evicts would be overwritten; the decoder copies it out first.
// - Storage grows as entries need it: bytes doubling from 512 up to limit, slots doubling from 16 up to limit / 32
//   (the most entries that fit). That is a few allocations per connection, then none: nothing per request. A
//   browser's requests fill some twenty entries and a kilobyte or two, which is what an idle connection keeps.
#pragma once

#include "FieldKind.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace loopwire::h2 {

// What RFC 7541 adds to each entry's name and value bytes in the table's size.
inline constexpr std::uint32_t kHpackEntryOverhead = 32;
// The largest table a connection may announce; entries keep 16-bit offsets.
inline constexpr std::uint32_t kMaxHpackTableLimit = 65535;

class HpackDynamicTable {
public:
    struct Entry {
        std::uint16_t nameLength;
        std::uint16_t valueLength;
        FieldKind kind;         // classified when it entered
        ValueCheck valueCheck;  // checked when it entered
    };

    explicit HpackDynamicTable(std::uint32_t limit) noexcept;

    std::uint32_t limit() const noexcept { return limit_; }
    std::uint32_t capacity() const noexcept { return capacity_; }
    std::uint32_t size() const noexcept { return size_; }
    std::uint32_t count() const noexcept { return count_; }

    // A dynamic table size update; false (and no change) when capacity is over limit().
    bool setCapacity(std::uint32_t capacity) noexcept;
    void insert(FieldKind kind, ValueCheck valueCheck, std::string_view name, std::string_view value) noexcept;
    // Evicts every entry: what inserting an entry larger than capacity() does.
    void clear() noexcept;

    // index: 1 to count().
    Entry entry(std::uint32_t index) const noexcept { return slots_[slotOf(index)].entry; }
    // Write the entry's name, or its name and value one after the other (entry(index).nameLength, or that and
    // .valueLength bytes), to out.
    void copyName(std::uint32_t index, char* out) const noexcept;
    void copyEntry(std::uint32_t index, char* out) const noexcept;

private:
    struct Slot {
        Entry entry;
        std::uint16_t start;  // of its name in storage_; the value follows, both modulo storageBytes_
    };

    std::uint32_t slotOf(std::uint32_t index) const noexcept {
        return (newest_ + slotCount_ - (index - 1)) % slotCount_;
    }
    void evictOldest() noexcept;
    // Room for one more slot: a larger ring, the entries copied over in order.
    void growSlots();
    // Room for incoming more bytes beside the live ones: a larger ring, the entries copied over in order.
    void growStorage(std::uint32_t incoming);
    // The bytes the live entries store (their size without the 32 of each).
    std::uint32_t liveBytes() const noexcept { return size_ - count_ * kHpackEntryOverhead; }
    void copyOut(std::uint32_t from, std::uint32_t length, char* out) const noexcept;
    void copyIn(std::string_view bytes) noexcept;

    std::unique_ptr<char[]> storage_;  // storageBytes_ bytes, a ring
    std::unique_ptr<Slot[]> slots_;    // slotCount_ entries, a ring; newest_ is the newest entry's slot
    static constexpr std::uint32_t kFirstSlots = 16;
    static constexpr std::uint32_t kFirstStorageBytes = 512;
    std::uint32_t storageBytes_ = 0;  // of storage_
    std::uint32_t limit_;
    std::uint32_t capacity_;
    std::uint32_t slotCount_ = 0;
    std::uint32_t maxSlots_;
    std::uint32_t size_ = 0;
    std::uint32_t count_ = 0;
    std::uint32_t newest_ = 0;
    std::uint32_t writeAt_ = 0;  // where the next entry's bytes go in storage_
};

}  // namespace loopwire::h2
