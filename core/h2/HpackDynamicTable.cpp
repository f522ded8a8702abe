// The decoder's dynamic table; see HpackDynamicTable.h.
//
// The entries' bytes live in one ring of `limit` bytes, written in insertion order, so the live entries always form
// one arc ending at writeAt_ and evicting the oldest frees the start of that arc. The ring cannot overflow: the
// entries kept, the new one included, have size at most capacity <= limit, and each counts 32 bytes more than it
// stores. Entry descriptions live in a second ring of limit / 32 slots, which is the most entries that fit.
#include "HpackDynamicTable.h"

#include "../base/Check.h"

#include <algorithm>
#include <cstring>

namespace loopwire::h2 {

HpackDynamicTable::HpackDynamicTable(std::uint32_t limit) noexcept
    : limit_(std::min(limit, kMaxHpackTableLimit)),
      capacity_(limit_),
      slotCount_(std::max<std::uint32_t>(limit_ / kHpackEntryOverhead, 1)) {}

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
    if (!storage_) {
        storage_ = std::make_unique<char[]>(limit_);
        slots_ = std::make_unique<Slot[]>(slotCount_);
    }
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
    const std::uint32_t first = std::min(length, limit_ - from);
    std::memcpy(out, storage_.get() + from, first);
    if (first != length) std::memcpy(out + first, storage_.get(), length - first);
}

void HpackDynamicTable::copyIn(std::string_view bytes) noexcept {
    const auto length = static_cast<std::uint32_t>(bytes.size());
    if (length == 0) return;
    const std::uint32_t first = std::min(length, limit_ - writeAt_);
    std::memcpy(storage_.get() + writeAt_, bytes.data(), first);
    if (first != length) std::memcpy(storage_.get(), bytes.data() + first, length - first);
    writeAt_ = (writeAt_ + length) % limit_;
}

}  // namespace loopwire::h2
