// The decoder's dynamic table; see HpackDynamicTable.h.
//
// The entries' bytes live in one ring, written in insertion order, so the live entries always form one arc ending at
// writeAt_ and evicting the oldest frees the start of that arc. The ring grows (doubling, from kFirstStorageBytes)
// when an entry would not fit beside the live ones, up to `limit` bytes, where it can no longer overflow: the entries
// kept, the new one included, have size at most capacity <= limit, and each counts 32 bytes more than it stores. A
// browser's fields take a kilobyte or two of it, which is what an idle connection then keeps. Entry descriptions live
// in a second ring, which grows the same way up to limit / 32 slots, the most entries that fit.
#include "HpackDynamicTable.h"

#include "../base/Check.h"

#include <algorithm>
#include <cstring>

namespace loopwire::h2 {

HpackDynamicTable::HpackDynamicTable(std::uint32_t limit) noexcept
    : limit_(std::min(limit, kMaxHpackTableLimit)),
      capacity_(limit_),
      maxSlots_(std::max<std::uint32_t>(limit_ / kHpackEntryOverhead, 1)) {}

bool HpackDynamicTable::setCapacity(std::uint32_t capacity) noexcept {
    if (capacity > limit_) return false;
    capacity_ = capacity;
    while (size_ > capacity_)
        evictOldest();
    return true;
}

void HpackDynamicTable::insert(FieldKind kind, ValueCheck valueCheck, std::string_view name,
                               std::string_view value) noexcept {
    const std::uint64_t entrySize = std::uint64_t{name.size()} + value.size() + kHpackEntryOverhead;
    if (entrySize > capacity_) {
        clear();  // RFC 7541 section 4.4: not an error; the table ends up empty
        return;
    }
    while (size_ + entrySize > capacity_)
        evictOldest();
    const auto bytes = static_cast<std::uint32_t>(name.size() + value.size());
    if (storageBytes_ - liveBytes() < bytes) growStorage(bytes);
    if (count_ == slotCount_) growSlots();
    LW_CHECK(count_ < slotCount_);
    newest_ = (newest_ + 1) % slotCount_;
    slots_[newest_] =
        Slot{Entry{static_cast<std::uint16_t>(name.size()), static_cast<std::uint16_t>(value.size()), kind, valueCheck},
             static_cast<std::uint16_t>(writeAt_)};
    copyIn(name);
    copyIn(value);
    size_ += static_cast<std::uint32_t>(entrySize);
    ++count_;
}

void HpackDynamicTable::growStorage(std::uint32_t incoming) {
    std::uint32_t grown = std::max(storageBytes_ * 2, kFirstStorageBytes);
    while (grown < liveBytes() + incoming)
        grown *= 2;
    grown = std::min(grown, limit_);
    auto storage = std::make_unique<char[]>(grown);
    // The live entries, oldest first, from the start of the new ring.
    std::uint32_t at = 0;
    for (std::uint32_t index = count_; index >= 1; --index) {
        Slot& slot = slots_[slotOf(index)];
        const std::uint32_t length = slot.entry.nameLength + slot.entry.valueLength;
        copyOut(slot.start, length, storage.get() + at);
        slot.start = static_cast<std::uint16_t>(at);
        at += length;
    }
    storage_ = std::move(storage);
    storageBytes_ = grown;
    writeAt_ = at % grown;
}

void HpackDynamicTable::growSlots() {
    const std::uint32_t grown = std::min(std::max(2 * slotCount_, kFirstSlots), maxSlots_);
    auto slots = std::make_unique<Slot[]>(grown);
    // Oldest first from slot 0, so that the newest is at count_ - 1 (or, empty, the next insertion lands at 0).
    for (std::uint32_t i = 0; i < count_; ++i)
        slots[i] = slots_[slotOf(count_ - i)];
    slots_ = std::move(slots);
    slotCount_ = grown;
    newest_ = count_ == 0 ? grown - 1 : count_ - 1;
}

void HpackDynamicTable::clear() noexcept {
    size_ = 0;
    count_ = 0;
}

void HpackDynamicTable::evictOldest() noexcept {
    const Entry& oldest = slots_[slotOf(count_)].entry;
    size_ -= oldest.nameLength + oldest.valueLength + kHpackEntryOverhead;
    --count_;
}

void HpackDynamicTable::copyName(std::uint32_t index, char* out) const noexcept {
    const Slot& slot = slots_[slotOf(index)];
    copyOut(slot.start, slot.entry.nameLength, out);
}

void HpackDynamicTable::copyEntry(std::uint32_t index, char* out) const noexcept {
    const Slot& slot = slots_[slotOf(index)];
    copyOut(slot.start, slot.entry.nameLength + slot.entry.valueLength, out);  // the value follows its name
}

void HpackDynamicTable::copyOut(std::uint32_t from, std::uint32_t length, char* out) const noexcept {
    // Empty names and values are common; memcpy must not see the null pointers they may have.
    if (length == 0) return;
    const std::uint32_t first = std::min(length, storageBytes_ - from);
    std::memcpy(out, storage_.get() + from, first);
    if (first != length) std::memcpy(out + first, storage_.get(), length - first);
}

void HpackDynamicTable::copyIn(std::string_view bytes) noexcept {
    const auto length = static_cast<std::uint32_t>(bytes.size());
    if (length == 0) return;
    const std::uint32_t first = std::min(length, storageBytes_ - writeAt_);
    std::memcpy(storage_.get() + writeAt_, bytes.data(), first);
    if (first != length) std::memcpy(storage_.get(), bytes.data() + first, length - first);
    writeAt_ = (writeAt_ + length) % storageBytes_;
}

}  // namespace loopwire::h2
