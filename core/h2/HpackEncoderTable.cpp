// The dynamic table of the response encoder; see HpackEncoderTable.h.
//
// Why only the date: every other field a server adds varies per response (content-length) or is the handler's, and
// indexing those would cost a lookup per field for little; the date is 30 of the 38 bytes a small response's
// header block took. Why a table of 4 KiB at most: the client's decoder holds what the encoder inserts, and this
// encoder inserts one 65-byte entry a second.
#include "HpackEncoderTable.h"

#include "HpackStaticTable.h"

#include <algorithm>
#include <cstring>

namespace loopwire::h2 {

namespace {

constexpr std::uint8_t kIndexedField = 0x80;            // 1 and a 7-bit index
constexpr std::uint8_t kLiteralWithIndexing = 0x40;     // 01 and a 6-bit name index
constexpr std::uint8_t kLiteralWithoutIndexing = 0x00;  // 0000 and a 4-bit name index
constexpr std::uint8_t kTableSizeUpdate = 0x20;         // 001 and a 5-bit size
constexpr std::uint32_t kFirstDynamicIndex = 62;        // RFC 7541 section 2.3.3: after the 61 static entries

char* writeString(char* out, std::string_view text) noexcept {
    out = writeHpackInteger(out, 7, 0, static_cast<std::uint32_t>(text.size()));
    std::memcpy(out, text.data(), text.size());
    return out + text.size();
}

}  // namespace

void HpackEncoderTable::setPeerLimit(std::uint32_t peerLimit) noexcept {
    const std::uint32_t size = std::min(peerLimit, kMaxTableBytes);
    if (size == size_ && !updatePending_) return;
    smallestSinceBlock_ = updatePending_ ? std::min(smallestSinceBlock_, size) : std::min(size_, size);
    size_ = size;
    updatePending_ = true;
}

char* HpackEncoderTable::writeBlockStart(char* out) noexcept {
    if (!updatePending_) return out;
    updatePending_ = false;
    // The table the client keeps after a shrink may have lost the date; it is inserted again.
    dateIndexed_ = false;
    if (smallestSinceBlock_ < size_) out = writeHpackInteger(out, 5, kTableSizeUpdate, smallestSinceBlock_);
    return writeHpackInteger(out, 5, kTableSizeUpdate, size_);
}

char* HpackEncoderTable::writeDate(char* out, std::string_view date) noexcept {
    const auto nameIndex = static_cast<std::uint32_t>(StaticName::Date);
    if (date.size() != kHttpDateBytes || size_ < kDateEntryBytes)
        return writeString(writeHpackInteger(out, 4, kLiteralWithoutIndexing, nameIndex), date);
    if (dateIndexed_ && std::memcmp(indexedDate_, date.data(), kHttpDateBytes) == 0)
        return writeHpackInteger(out, 7, kIndexedField, kFirstDynamicIndex);
    std::memcpy(indexedDate_, date.data(), kHttpDateBytes);
    dateIndexed_ = true;
    return writeString(writeHpackInteger(out, 6, kLiteralWithIndexing, nameIndex), date);
}

}  // namespace loopwire::h2
