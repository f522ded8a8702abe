#include "h2/HpackEncoderTable.h"

#include "h2/HpackDecoder.h"
#include "h2/HpackEncoder.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace loopwire::h2 {
namespace {

constexpr std::string_view kFirstDate = "Mon, 07 Dec 2026 23:00:00 GMT";
constexpr std::string_view kSecondDate = "Mon, 07 Dec 2026 23:00:01 GMT";

// A response's block as the stream writes it: the table's start, :status 200, the date.
std::string block(HpackEncoderTable& table, std::string_view date) {
    std::string out(
        HpackEncoderTable::kMaxBlockStartBytes + kMaxStatusBytes + HpackEncoderTable::dateFieldBytes(date.size()),
        '\0');
    char* at = writeStatusField(table.writeBlockStart(out.data()), 200);
    at = table.writeDate(at, date);
    out.resize(static_cast<std::size_t>(at - out.data()));
    return out;
}

// The client's decoder, one for all the blocks of a connection, in order.
class Client {
public:
    explicit Client(std::uint32_t tableLimit = kDefaultHpackTableLimit)
        : decoder_(tableLimit, 64 * 1024),
          scratch_(std::make_unique<char[]>(HpackDecoder::scratchBytesFor(64 * 1024, tableLimit))) {}

    // "name: value" per field of block; fails the test unless the block decodes.
    std::vector<std::string> read(const std::string& block) {
        decoder_.begin(block, scratch_.get());
        std::vector<std::string> fields;
        DecodedField f;
        HpackStatus s;
        while ((s = decoder_.next(f)) == HpackStatus::Field)
            fields.push_back(std::string(f.name) + ": " + std::string(f.value));
        EXPECT_EQ(s, HpackStatus::End);
        return fields;
    }
    std::size_t entries() const { return decoder_.table().count(); }

private:
    HpackDecoder decoder_;
    std::unique_ptr<char[]> scratch_;
};

std::vector<std::string> response(std::string_view date) { return {":status: 200", "date: " + std::string(date)}; }

TEST(HpackEncoderTable, TheDateIsInsertedOnceASecondAndThenOneByte) {
    HpackEncoderTable table;
    Client client;
    const std::string first = block(table, kFirstDate);
    EXPECT_EQ(first.size(), 1u + 2u + kFirstDate.size());   // :status, 0x61 and the length, the value
    EXPECT_EQ(static_cast<unsigned char>(first[1]), 0x61);  // literal with incremental indexing, name 33
    EXPECT_EQ(client.read(first), response(kFirstDate));
    const std::string again = block(table, kFirstDate);
    EXPECT_EQ(again, "\x88\xbe");  // :status 200, and dynamic index 62
    EXPECT_EQ(client.read(again), response(kFirstDate));
    EXPECT_EQ(client.entries(), 1u);
    // A new second: inserted, and the newest is index 62 again.
    EXPECT_EQ(client.read(block(table, kSecondDate)), response(kSecondDate));
    EXPECT_EQ(client.read(block(table, kSecondDate)), response(kSecondDate));
    EXPECT_EQ(client.entries(), 2u);
}

TEST(HpackEncoderTable, AClientThatAllowsNoTableGetsASizeUpdateAndLiterals) {
    HpackEncoderTable table;
    Client client;
    EXPECT_EQ(client.read(block(table, kFirstDate)), response(kFirstDate));
    table.setPeerLimit(0);
    const std::string shrunk = block(table, kFirstDate);
    EXPECT_EQ(shrunk[0], '\x20');  // a size update to 0 before any field
    EXPECT_EQ(client.read(shrunk), response(kFirstDate));
    EXPECT_EQ(client.entries(), 0u);
    const std::string later = block(table, kFirstDate);
    EXPECT_EQ(later[0], '\x88');                            // signalled once
    EXPECT_EQ(static_cast<unsigned char>(later[1]), 0x0f);  // a literal that is not indexed, name 33
    EXPECT_EQ(client.read(later), response(kFirstDate));
    EXPECT_EQ(client.entries(), 0u);
}

TEST(HpackEncoderTable, SeveralChangesBetweenBlocksSignalTheSmallestThenTheLast) {
    HpackEncoderTable table;
    Client client;
    table.setPeerLimit(0);
    table.setPeerLimit(4096);
    const std::string both = block(table, kFirstDate);
    EXPECT_EQ(both.substr(0, 4), std::string("\x20\x3f\xe1\x1f", 4));  // 0, then 4096
    EXPECT_EQ(client.read(both), response(kFirstDate));
    EXPECT_EQ(client.read(block(table, kFirstDate)), response(kFirstDate));
    EXPECT_EQ(client.entries(), 1u);
}

TEST(HpackEncoderTable, LargerLimitsChangeNothingAndSmallerOnesKeepIndexingWhileTheDateFits) {
    HpackEncoderTable table;
    Client client;
    table.setPeerLimit(65536);  // capped at kMaxTableBytes, RFC 7541's default: no update
    EXPECT_EQ(static_cast<unsigned char>(block(table, kFirstDate)[0]), 0x88);
    table.setPeerLimit(HpackEncoderTable::kDateEntryBytes);
    const std::string exact = block(table, kFirstDate);
    EXPECT_EQ(exact.substr(0, 3), std::string("\x3f\x22\x88", 3));  // 65 = 31 + 34, then :status
    EXPECT_EQ(client.read(exact), response(kFirstDate));
    EXPECT_EQ(client.read(block(table, kFirstDate)), response(kFirstDate));
    EXPECT_EQ(block(table, kFirstDate), "\x88\xbe");
    table.setPeerLimit(HpackEncoderTable::kDateEntryBytes - 1);  // too small for the date
    EXPECT_EQ(client.read(block(table, kSecondDate)), response(kSecondDate));
    EXPECT_EQ(client.entries(), 0u);
}

}  // namespace
}  // namespace loopwire::h2
