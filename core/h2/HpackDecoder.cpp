// The HPACK decoder; see HpackDecoder.h.
//
// Views instead of copies: a literal sent as it is stays where it arrived, and static entries are static. Two kinds
// of string need bytes of their own: Huffman-coded literals, decoded into scratch, and dynamic entries, which are
// copied there because a later field of the same block may evict the entry and reuse its storage. Scratch only grows
// during a block, so every view handed out stays valid until the block ends.
//
// Past the header list limit the block must still be read to the end, to keep the dynamic table in step with the
// client's, but its fields are not kept: scratch is then reused from its start for each field, and holds at least a
// whole table's worth, so that any entry the table can keep can be decoded into it.
#include "HpackDecoder.h"

#include "HpackHuffman.h"
#include "HpackInteger.h"

#include "../base/Check.h"

#include <cstring>

namespace loopwire::h2 {

std::string_view describe(HpackStatus status) noexcept {
    switch (status) {
        case HpackStatus::Field:
            return "field";
        case HpackStatus::End:
            return "end of block";
        case HpackStatus::Truncated:
            return "representation cut off by the end of the header block";
        case HpackStatus::IntegerTooLarge:
            return "integer too large or not in its shortest form";
        case HpackStatus::BadIndex:
            return "index 0 or past the tables";
        case HpackStatus::BadHuffman:
            return "invalid Huffman-coded string";
        case HpackStatus::TableSizeTooLarge:
            return "dynamic table size update over the announced limit";
        case HpackStatus::TableSizeMisplaced:
            return "dynamic table size update after a field";
    }
    return "unknown";
}

namespace {

HpackStatus statusOf(IntegerRead read) noexcept {
    return read == IntegerRead::Truncated ? HpackStatus::Truncated : HpackStatus::IntegerTooLarge;
}

}  // namespace

void HpackDecoder::begin(std::string_view block, char* scratch) noexcept {
    block_ = reinterpret_cast<const unsigned char*>(block.data());
    size_ = block.size();
    at_ = 0;
    scratch_ = scratch;
    scratchUsed_ = 0;
    fieldStart_ = 0;
    listBytes_ = 0;
    fieldSeen_ = false;
}

HpackStatus HpackDecoder::next(DecodedField& field) noexcept {
    for (;;) {
        if (at_ == size_) return HpackStatus::End;
        if (listTooLarge()) scratchUsed_ = 0;
        fieldStart_ = scratchUsed_;
        const HpackStatus status = decodeOne(field);
        if (status != HpackStatus::Field) {
            if (status == HpackStatus::End) continue;  // a size update
            return status;
        }
        fieldSeen_ = true;
        if (listTooLarge()) continue;
        listBytes_ += field.name.size() + field.value.size() + kHpackEntryOverhead;
        if (!listTooLarge()) return HpackStatus::Field;
    }
}

HpackStatus HpackDecoder::decodeOne(DecodedField& field) noexcept {
    const unsigned char first = block_[at_];
    if (first & 0x80) return readIndexed(field);
    if (first & 0x40) return readLiteral(6, true, field);
    if (first & 0x20) {
        if (fieldSeen_) return HpackStatus::TableSizeMisplaced;
        std::uint32_t capacity = 0;
        if (const IntegerRead read = readHpackInteger(block_, size_, at_, 5, capacity); read != IntegerRead::Ok)
            return statusOf(read);
        if (!table_.setCapacity(capacity)) return HpackStatus::TableSizeTooLarge;
        return HpackStatus::End;
    }
    return readLiteral(4, false, field);  // without indexing (0000) or never indexed (0001)
}

HpackStatus HpackDecoder::readIndexed(DecodedField& field) noexcept {
    std::uint32_t index = 0;
    if (const IntegerRead read = readHpackInteger(block_, size_, at_, 7, index); read != IntegerRead::Ok)
        return statusOf(read);
    if (index == 0) return HpackStatus::BadIndex;
    if (index <= kStaticTableSize) {
        field.name = kStaticTable[index].name;
        field.value = kStaticTable[index].value;
        field.kind = staticFieldKind(index);
        field.valueCheck = ValueCheck::Valid;
        return HpackStatus::Field;
    }
    const std::uint32_t dynamicIndex = index - kStaticTableSize;
    if (dynamicIndex > table_.count()) return HpackStatus::BadIndex;
    const HpackDynamicTable::Entry entry = table_.entry(dynamicIndex);
    field.kind = entry.kind;
    field.valueCheck = entry.valueCheck;
    char* bytes = listTooLarge() ? nullptr : reserve(entry.nameLength + entry.valueLength);
    if (bytes == nullptr) {
        // Over the list limit (scratch full means that): this field is not kept, and it changes no table.
        makeRoom(field, 0);
        field.name = {};
        field.value = {};
        return HpackStatus::Field;
    }
    table_.copyEntry(dynamicIndex, bytes);
    field.name = std::string_view(bytes, entry.nameLength);
    field.value = std::string_view(bytes + entry.nameLength, entry.valueLength);
    return HpackStatus::Field;
}

HpackStatus HpackDecoder::readLiteral(unsigned prefixBits, bool indexed, DecodedField& field) noexcept {
    std::uint32_t nameIndex = 0;
    if (const IntegerRead read = readHpackInteger(block_, size_, at_, prefixBits, nameIndex); read != IntegerRead::Ok)
        return statusOf(read);
    bool oversized = false;
    if (nameIndex == 0) {
        if (const HpackStatus status = readString(field, field.name, oversized); status != HpackStatus::Field)
            return status;
        field.kind = classifyName(field.name);
    } else if (nameIndex <= kStaticTableSize) {
        field.name = kStaticTable[nameIndex].name;
        field.kind = staticFieldKind(nameIndex);
    } else {
        const std::uint32_t dynamicIndex = nameIndex - kStaticTableSize;
        if (dynamicIndex > table_.count()) return HpackStatus::BadIndex;
        const HpackDynamicTable::Entry entry = table_.entry(dynamicIndex);
        // The table may need this name (an insertion that evicts its entry), so it is always copied out, even
        // past the list limit; a table's entry always fits scratch.
        char* bytes = reserve(entry.nameLength);
        if (bytes == nullptr) {
            makeRoom(field, entry.nameLength);
            bytes = reserve(entry.nameLength);
            LW_CHECK(bytes != nullptr);
        }
        table_.copyName(dynamicIndex, bytes);
        field.name = std::string_view(bytes, entry.nameLength);
        field.kind = entry.kind;
    }
    field.valueCheck = ValueCheck::Unchecked;
    bool valueOversized = false;
    if (const HpackStatus status = readString(field, field.value, valueOversized); status != HpackStatus::Field)
        return status;
    if (indexed) {
        if (oversized || valueOversized) {
            table_.clear();  // the entry is larger than any table: RFC 7541 section 4.4 empties it
        } else {
            // Checked once here, for every later reference to the entry.
            field.valueCheck = isValidFieldValue(field.value) ? ValueCheck::Valid : ValueCheck::Invalid;
            table_.insert(field.kind, field.valueCheck, field.name, field.value);
        }
    }
    return HpackStatus::Field;
}

HpackStatus HpackDecoder::readString(DecodedField& field, std::string_view& out, bool& oversized) noexcept {
    if (at_ == size_) return HpackStatus::Truncated;
    const bool huffman = (block_[at_] & 0x80) != 0;
    std::uint32_t length = 0;
    if (const IntegerRead read = readHpackInteger(block_, size_, at_, 7, length); read != IntegerRead::Ok)
        return statusOf(read);
    if (length > size_ - at_) return HpackStatus::Truncated;
    const std::string_view encoded(reinterpret_cast<const char*>(block_ + at_), length);
    at_ += length;
    if (!huffman) {
        out = encoded;
        return HpackStatus::Field;
    }
    std::size_t room = scratchCapacity() - scratchUsed_;
    std::size_t decoded = huffmanDecode(encoded, scratch_ + scratchUsed_, room);
    if (decoded == kHuffmanTooLong && !listTooLarge() && makeRoom(field, 0)) {
        room = scratchCapacity() - scratchUsed_;
        decoded = huffmanDecode(encoded, scratch_ + scratchUsed_, room);
    }
    if (decoded == kHuffmanInvalid) return HpackStatus::BadHuffman;
    if (decoded == kHuffmanTooLong) {
        oversized = true;
        out = {};
        return HpackStatus::Field;
    }
    out = std::string_view(scratch_ + scratchUsed_, decoded);
    scratchUsed_ += decoded;
    return HpackStatus::Field;
}

char* HpackDecoder::reserve(std::size_t bytes) noexcept {
    if (bytes > scratchCapacity() - scratchUsed_) return nullptr;
    char* at = scratch_ + scratchUsed_;
    scratchUsed_ += bytes;
    return at;
}

bool HpackDecoder::makeRoom(DecodedField& field, std::size_t bytes) noexcept {
    // Scratch holds at most maxListBytes of kept fields before this one, so running out means the list is over.
    listBytes_ = maxListBytes_ + 1;
    const std::size_t nameBytes = scratchUsed_ - fieldStart_;  // the current field's name, if it is in scratch
    if (nameBytes != 0) {
        std::memmove(scratch_, scratch_ + fieldStart_, nameBytes);
        field.name = std::string_view(scratch_, nameBytes);
    }
    fieldStart_ = 0;
    scratchUsed_ = nameBytes;
    return bytes <= scratchCapacity() - scratchUsed_;
}

}  // namespace loopwire::h2
