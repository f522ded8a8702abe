#include "h2/HpackDecoder.h"

#include "h2/HpackHuffman.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace loopwire::h2 {
namespace {

// "40 0a 63 75" and so on, as RFC 7541 appendix C prints blocks.
std::string hex(std::string_view text) {
    std::string out;
    int high = -1;
    for (const char c : text) {
        int v;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else
            continue;
        if (high < 0) {
            high = v;
        } else {
            out.push_back(static_cast<char>(high * 16 + v));
            high = -1;
        }
    }
    return out;
}

struct Decoded {
    std::vector<std::string> fields;  // "name: value"
    HpackStatus status = HpackStatus::End;
    bool listTooLarge = false;
};

class Decoder {
public:
    explicit Decoder(std::uint32_t tableLimit = kDefaultHpackTableLimit, std::size_t maxListBytes = 16 * 1024)
        : decoder(tableLimit, maxListBytes),
          scratch(std::make_unique<char[]>(HpackDecoder::scratchBytesFor(maxListBytes, tableLimit))) {}

    Decoded decode(std::string_view block) {
        Decoded out;
        decoder.begin(block, scratch.get());
        DecodedField field;
        std::vector<DecodedField> views;
        while ((out.status = decoder.next(field)) == HpackStatus::Field)
            views.push_back(field);
        // Every view must still hold its bytes at the end of the block.
        for (const DecodedField& f : views)
            out.fields.push_back(std::string(f.name) + ": " + std::string(f.value));
        out.listTooLarge = decoder.listTooLarge();
        return out;
    }

    HpackDecoder decoder;
    std::unique_ptr<char[]> scratch;
};

using Fields = std::vector<std::string>;

TEST(HpackDecoder, LiteralWithIndexingEntersTheTable) {  // RFC 7541 C.2.1
    Decoder d;
    const Decoded r = d.decode(hex("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"));
    EXPECT_EQ(r.status, HpackStatus::End);
    EXPECT_EQ(r.fields, Fields{"custom-key: custom-header"});
    EXPECT_EQ(d.decoder.table().count(), 1u);
    EXPECT_EQ(d.decoder.table().size(), 55u);
}

TEST(HpackDecoder, LiteralsWithoutIndexingAndNeverIndexedLeaveTheTable) {  // C.2.2, C.2.3
    Decoder d;
    EXPECT_EQ(d.decode(hex("040c 2f73 616d 706c 652f 7061 7468")).fields, Fields{":path: /sample/path"});
    EXPECT_EQ(d.decode(hex("1008 7061 7373 776f 7264 0673 6563 7265 74")).fields, Fields{"password: secret"});
    EXPECT_EQ(d.decoder.table().count(), 0u);
}

TEST(HpackDecoder, IndexedFieldNamesItsStaticName) {  // C.2.4
    Decoder d;
    const std::string block = hex("82");
    d.decoder.begin(block, d.scratch.get());
    DecodedField field;
    ASSERT_EQ(d.decoder.next(field), HpackStatus::Field);
    EXPECT_EQ(field.name, ":method");
    EXPECT_EQ(field.value, "GET");
    EXPECT_EQ(field.kind, FieldKind::Method);
    EXPECT_EQ(field.valueCheck, ValueCheck::Valid);
    EXPECT_EQ(d.decoder.next(field), HpackStatus::End);
}

TEST(HpackDecoder, RequestsWithoutHuffman) {  // C.3
    Decoder d;
    EXPECT_EQ(d.decode(hex("8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d")).fields,
              (Fields{":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com"}));
    EXPECT_EQ(d.decoder.table().size(), 57u);
    EXPECT_EQ(d.decode(hex("8286 84be 5808 6e6f 2d63 6163 6865")).fields,
              (Fields{":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com",
                      "cache-control: no-cache"}));
    EXPECT_EQ(d.decoder.table().size(), 110u);
    EXPECT_EQ(d.decode(hex("8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65")).fields,
              (Fields{":method: GET", ":scheme: https", ":path: /index.html", ":authority: www.example.com",
                      "custom-key: custom-value"}));
    EXPECT_EQ(d.decoder.table().size(), 164u);
    EXPECT_EQ(d.decoder.table().count(), 3u);
}

TEST(HpackDecoder, RequestsWithHuffman) {  // C.4
    Decoder d;
    EXPECT_EQ(d.decode(hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff")).fields,
              (Fields{":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com"}));
    EXPECT_EQ(d.decode(hex("8286 84be 5886 a8eb 1064 9cbf")).fields,
              (Fields{":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com",
                      "cache-control: no-cache"}));
    EXPECT_EQ(d.decode(hex("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf")).fields,
              (Fields{":method: GET", ":scheme: https", ":path: /index.html", ":authority: www.example.com",
                      "custom-key: custom-value"}));
    EXPECT_EQ(d.decoder.table().size(), 164u);
}

// C.5: a 256-byte table, so that entries are evicted, and a dynamic entry whose name is a static one keeps its id.
TEST(HpackDecoder, ResponsesWithEviction) {
    Decoder d(256);
    EXPECT_EQ(d.decode(hex("4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 "
                           "303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 "
                           "6f6d"))
                  .fields,
              (Fields{":status: 302", "cache-control: private", "date: Mon, 21 Oct 2013 20:13:21 GMT",
                      "location: https://www.example.com"}));
    EXPECT_EQ(d.decoder.table().size(), 222u);
    EXPECT_EQ(d.decode(hex("4803 3330 37c1 c0bf")).fields,
              (Fields{":status: 307", "cache-control: private", "date: Mon, 21 Oct 2013 20:13:21 GMT",
                      "location: https://www.example.com"}));
    EXPECT_EQ(d.decoder.table().size(), 222u);
    EXPECT_EQ(d.decode(hex("88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 "
                           "5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 "
                           "5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31"))
                  .fields,
              (Fields{":status: 200", "cache-control: private", "date: Mon, 21 Oct 2013 20:13:22 GMT",
                      "location: https://www.example.com", "content-encoding: gzip",
                      "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"}));
    EXPECT_EQ(d.decoder.table().size(), 215u);
    EXPECT_EQ(d.decoder.table().count(), 3u);

    const std::string newest = hex("be");  // 62, the newest entry: set-cookie
    d.decoder.begin(newest, d.scratch.get());
    DecodedField field;
    ASSERT_EQ(d.decoder.next(field), HpackStatus::Field);
    EXPECT_EQ(field.name, "set-cookie");
    const std::string oldest = hex("c0");  // 64: date, named by its static index when it entered
    d.decoder.begin(oldest, d.scratch.get());
    ASSERT_EQ(d.decoder.next(field), HpackStatus::Field);
    EXPECT_EQ(field.name, "date");
    EXPECT_EQ(field.kind, FieldKind::Regular);
    EXPECT_EQ(field.valueCheck, ValueCheck::Valid);  // checked once, when it entered
}

TEST(HpackDecoder, RefusesIndexZeroAndIndicesPastTheTables) {
    Decoder d;
    EXPECT_EQ(d.decode(hex("80")).status, HpackStatus::BadIndex);
    Decoder e;
    EXPECT_EQ(e.decode(hex("be")).status, HpackStatus::BadIndex);  // 62 with an empty dynamic table
    Decoder f;
    EXPECT_EQ(f.decode(hex("7f00 0161")).status, HpackStatus::BadIndex);  // literal, name index 63
    Decoder g;
    EXPECT_EQ(g.decode(hex("bd")).fields, Fields{"www-authenticate: "});  // 61, the last static entry
}

TEST(HpackDecoder, RefusesTruncatedRepresentations) {
    for (const char* block : {"40", "400a 6375", "4001 61", "0f", "ff", "ff80"}) {
        Decoder d;
        EXPECT_EQ(d.decode(hex(block)).status, HpackStatus::Truncated) << block;
    }
}

TEST(HpackDecoder, RefusesIntegersTooLargeOrTooLong) {
    Decoder d;
    EXPECT_EQ(d.decode(hex("ff ff ff ff ff 0f")).status, HpackStatus::IntegerTooLarge);
    Decoder e;
    EXPECT_EQ(e.decode(hex("ff 80 80 80 80 00")).status, HpackStatus::IntegerTooLarge);  // zero groups
    Decoder f;
    EXPECT_EQ(f.decode(hex("00 7f ff ff ff 7f")).status, HpackStatus::IntegerTooLarge);  // a name length
}

TEST(HpackDecoder, RefusesBadHuffman) {
    Decoder d;
    EXPECT_EQ(d.decode(hex("0081 18")).status, HpackStatus::BadHuffman);  // padding not ones
    Decoder e;
    EXPECT_EQ(e.decode(hex("0001 61 84 ffff ffff")).status, HpackStatus::BadHuffman);  // EOS
}

TEST(HpackDecoder, TableSizeUpdateOnlyFirstAndWithinTheLimit) {
    Decoder d;
    EXPECT_EQ(d.decode(hex("20 3f e1 1f 82")).fields, Fields{":method: GET"});  // 0, then 4096
    EXPECT_EQ(d.decoder.table().capacity(), 4096u);
    Decoder e;
    EXPECT_EQ(e.decode(hex("3f e2 1f")).status, HpackStatus::TableSizeTooLarge);  // 4097
    Decoder f;
    EXPECT_EQ(f.decode(hex("82 20")).status, HpackStatus::TableSizeMisplaced);
    // Shrinking evicts: a table holding 57 bytes emptied by a size update of 0.
    Decoder g;
    g.decode(hex("8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d"));
    ASSERT_EQ(g.decoder.table().count(), 1u);
    EXPECT_EQ(g.decode(hex("20")).status, HpackStatus::End);
    EXPECT_EQ(g.decoder.table().count(), 0u);
    EXPECT_EQ(g.decode(hex("be")).status, HpackStatus::BadIndex);
}

TEST(HpackDecoder, EntryLargerThanTheTableEmptiesIt) {
    Decoder d(64);
    d.decode(hex("4001 61 01 62"));  // a: b, 34 bytes
    ASSERT_EQ(d.decoder.table().count(), 1u);
    const std::string block = hex("4001 63 20") + std::string(32, 'v');  // 1 + 32 + 32 = 65 > 64
    EXPECT_EQ(d.decode(block).status, HpackStatus::End);
    EXPECT_EQ(d.decoder.table().count(), 0u);
    EXPECT_EQ(d.decoder.table().size(), 0u);
}

TEST(HpackDecoder, HeaderListLimitStopsFieldsButKeepsTheTableInStep) {
    // A limit of 100 bytes: two fields of 40 bytes fit (80), the third goes over.
    Decoder d(kDefaultHpackTableLimit, 100);
    std::string block;
    for (const char* name : {"aaaa", "bbbb", "cccc"}) {
        block += hex("40 04") + name + hex("04") + "vvvv";  // 4 + 4 + 32 = 40 each, indexed
    }
    const Decoded r = d.decode(block);
    EXPECT_EQ(r.status, HpackStatus::End);
    EXPECT_TRUE(r.listTooLarge);
    EXPECT_EQ(d.decoder.table().count(), 3u);  // the table took all three
    // The next block may use them, and is within the limit.
    const Decoded next = d.decode(hex("be bf"));
    EXPECT_FALSE(next.listTooLarge);
    EXPECT_EQ(next.fields, (Fields{"cccc: vvvv", "bbbb: vvvv"}));
}

TEST(HpackDecoder, HuffmanStringOverTheListLimitStillEntersTheTable) {
    // The limit is 64 bytes of list; the table is 4096. A 200-byte value, Huffman-coded, with indexing.
    Decoder d(kDefaultHpackTableLimit, 64);
    const std::string value(200, 'x');
    std::string encoded(huffmanEncodedLength(value), '\0');
    huffmanEncode(value, encoded.data());
    std::string block = hex("40 01") + "n";
    block += static_cast<char>(0x80 | 0x7f);
    block += static_cast<char>(encoded.size() - 0x7f);
    block += encoded;
    const Decoded r = d.decode(block);
    EXPECT_EQ(r.status, HpackStatus::End);
    EXPECT_TRUE(r.listTooLarge);
    ASSERT_EQ(d.decoder.table().count(), 1u);
    EXPECT_EQ(d.decoder.table().size(), 1 + 200 + 32u);
    Decoder big;  // the same entry read back where the limit allows it
    EXPECT_EQ(big.decode(block).fields, Fields{"n: " + value});
}

TEST(HpackDecoder, DynamicNameReferencedByAnInsertionThatEvictsIt) {
    // Table of 64: "abcd: 1234" (40) in it; a literal with indexing naming it (index 62) with a value long enough
    // that inserting evicts the entry its name came from.
    Decoder d(64);
    d.decode(hex("40 04") + "abcd" + hex("04") + "1234");
    const Decoded r = d.decode(hex("7e 14") + std::string(20, 'z'));  // 4 + 20 + 32 = 56: evicts the first
    EXPECT_EQ(r.fields, Fields{"abcd: " + std::string(20, 'z')});
    EXPECT_EQ(d.decoder.table().count(), 1u);
    EXPECT_EQ(d.decode(hex("be")).fields, Fields{"abcd: " + std::string(20, 'z')});
}

TEST(HpackDecoder, ViewsFromTheDynamicTableSurviveLaterEvictionsInTheBlock) {
    Decoder d(100);
    d.decode(hex("40 04") + "keep" + hex("04") + "safe");  // 40 bytes
    // An indexed reference to it, then two insertions of 92 bytes each: the first evicts it, the second wraps
    // around the 100-byte ring over the bytes it had.
    std::string block = hex("be");
    block += hex("40 04") + "xxxx" + hex("38") + std::string(56, 'y');
    block += hex("40 04") + "wwww" + hex("38") + std::string(56, 'z');
    const Decoded r = d.decode(block);
    EXPECT_EQ(r.fields, (Fields{"keep: safe", "xxxx: " + std::string(56, 'y'), "wwww: " + std::string(56, 'z')}));
    EXPECT_EQ(d.decode(hex("be")).fields, Fields{"wwww: " + std::string(56, 'z')});
}

TEST(HpackDecoder, KindsAndValueChecksTravelWithTheTable) {
    Decoder d;
    // Literal "host: a b " with indexing (its value ends with a space: invalid), then "content-length: 5" with a
    // literal name and indexing, then both again by index.
    const std::string first =
        hex("40 04") + "host" + hex("04") + "a b " + hex("40 0e") + "content-length" + hex("01") + "5";
    d.decoder.begin(first, d.scratch.get());
    DecodedField field;
    ASSERT_EQ(d.decoder.next(field), HpackStatus::Field);
    EXPECT_EQ(field.kind, FieldKind::Host);
    EXPECT_EQ(field.valueCheck, ValueCheck::Invalid);
    ASSERT_EQ(d.decoder.next(field), HpackStatus::Field);
    EXPECT_EQ(field.kind, FieldKind::ContentLength);
    EXPECT_EQ(field.valueCheck, ValueCheck::Valid);
    const std::string again = hex("be bf");
    d.decoder.begin(again, d.scratch.get());
    ASSERT_EQ(d.decoder.next(field), HpackStatus::Field);
    EXPECT_EQ(field.kind, FieldKind::ContentLength);
    EXPECT_EQ(field.valueCheck, ValueCheck::Valid);
    ASSERT_EQ(d.decoder.next(field), HpackStatus::Field);
    EXPECT_EQ(field.kind, FieldKind::Host);
    EXPECT_EQ(field.valueCheck, ValueCheck::Invalid);
    // A literal without indexing is left unchecked; its name is classified.
    const std::string literal = hex("00 06") + "Cookie" + hex("01") + "x";
    d.decoder.begin(literal, d.scratch.get());
    ASSERT_EQ(d.decoder.next(field), HpackStatus::Field);
    EXPECT_EQ(field.kind, FieldKind::BadName);  // upper case
    EXPECT_EQ(field.valueCheck, ValueCheck::Unchecked);
}

TEST(FieldKind, ClassifiesNamesAndTheStaticTable) {
    EXPECT_EQ(classifyName("te"), FieldKind::Te);
    EXPECT_EQ(classifyName("transfer-encoding"), FieldKind::ConnectionSpecific);
    EXPECT_EQ(classifyName("keep-alive"), FieldKind::ConnectionSpecific);
    EXPECT_EQ(classifyName(":protocol"), FieldKind::Protocol);
    EXPECT_EQ(classifyName(":other"), FieldKind::UnknownPseudo);
    EXPECT_EQ(classifyName("x:y"), FieldKind::BadName);
    EXPECT_EQ(classifyName(""), FieldKind::BadName);
    EXPECT_EQ(classifyName("x-\"quoted\""), FieldKind::Regular);
    EXPECT_EQ(staticFieldKind(1), FieldKind::Authority);
    EXPECT_EQ(staticFieldKind(3), FieldKind::Method);
    EXPECT_EQ(staticFieldKind(8), FieldKind::Status);
    EXPECT_EQ(staticFieldKind(28), FieldKind::ContentLength);
    EXPECT_EQ(staticFieldKind(32), FieldKind::Cookie);
    EXPECT_EQ(staticFieldKind(38), FieldKind::Host);
    EXPECT_EQ(staticFieldKind(57), FieldKind::ConnectionSpecific);
    EXPECT_EQ(staticFieldKind(58), FieldKind::Regular);
    EXPECT_TRUE(isValidFieldValue("a b"));
    EXPECT_FALSE(isValidFieldValue("a\rb"));
    EXPECT_FALSE(isValidFieldValue("\tx"));
}

}  // namespace
}  // namespace loopwire::h2
