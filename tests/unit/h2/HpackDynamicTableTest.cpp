#include "h2/HpackDynamicTable.h"

#include <gtest/gtest.h>

#include <string>

namespace loopwire::h2 {
namespace {

std::string entryText(const HpackDynamicTable& table, std::uint32_t index) {
    const HpackDynamicTable::Entry entry = table.entry(index);
    std::string bytes(entry.nameLength + entry.valueLength, '\0');
    table.copyEntry(index, bytes.data());
    return bytes.substr(0, entry.nameLength) + ": " + bytes.substr(entry.nameLength);
}

// Entries keep their order and bytes while the slot ring grows (16, 32, 64, 128) and while the byte ring wraps.
TEST(HpackDynamicTable, SlotsGrowAndEntriesKeepTheirOrder) {
    HpackDynamicTable table(4096);
    for (int i = 0; i < 300; ++i) {
        const std::string name = "n" + std::to_string(i);
        table.insert(FieldKind::Regular, ValueCheck::Valid, name, "v");
        // The newest is 1; the oldest still in the table is count().
        ASSERT_EQ(entryText(table, 1), name + ": v");
        const int oldest = i + 1 - static_cast<int>(table.count());
        ASSERT_EQ(entryText(table, table.count()), "n" + std::to_string(oldest) + ": v");
    }
    EXPECT_LE(table.size(), table.capacity());
    EXPECT_EQ(table.count(), 4096u / (32 + 5));  // each entry "nNNN: v" counts 4 + 1 + 32 bytes, or 5 + 32 past 99
}

TEST(HpackDynamicTable, ShrinkingAndClearingKeepTheRingsConsistent) {
    HpackDynamicTable table(512);
    for (int i = 0; i < 20; ++i)
        table.insert(FieldKind::Host, ValueCheck::Invalid, "host", std::to_string(i));
    EXPECT_TRUE(table.setCapacity(100));
    EXPECT_EQ(table.count(), 2u);  // 4 + 2 + 32 = 38 each
    EXPECT_EQ(entryText(table, 1), "host: 19");
    EXPECT_EQ(table.entry(1).kind, FieldKind::Host);
    EXPECT_EQ(table.entry(1).valueCheck, ValueCheck::Invalid);
    EXPECT_FALSE(table.setCapacity(513));
    table.clear();
    EXPECT_EQ(table.count(), 0u);
    EXPECT_TRUE(table.setCapacity(512));
    for (int i = 0; i < 20; ++i)
        table.insert(FieldKind::Regular, ValueCheck::Valid, "x", std::to_string(i));
    EXPECT_EQ(entryText(table, 1), "x: 19");
}

}  // namespace
}  // namespace loopwire::h2
