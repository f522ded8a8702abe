#include "h2/HpackEncoder.h"

#include "h2/HpackDecoder.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace loopwire::h2 {
namespace {

std::string status(unsigned code) {
    char out[kMaxStatusBytes];
    return std::string(out, writeStatusField(out, code));
}

std::string field(std::string_view name, std::string_view value) {
    std::string out(fieldBytes(name.size(), value.size()), '\0');
    out.resize(static_cast<std::size_t>(writeHeaderField(out.data(), name, value) - out.data()));
    return out;
}

// What a decoder reads from block, "name: value" per field.
std::vector<std::string> decode(const std::string& block) {
    HpackDecoder decoder(kDefaultHpackTableLimit, 64 * 1024);
    auto scratch = std::make_unique<char[]>(HpackDecoder::scratchBytesFor(64 * 1024, kDefaultHpackTableLimit));
    decoder.begin(block, scratch.get());
    std::vector<std::string> fields;
    DecodedField f;
    HpackStatus s;
    while ((s = decoder.next(f)) == HpackStatus::Field)
        fields.push_back(std::string(f.name) + ": " + std::string(f.value));
    EXPECT_EQ(s, HpackStatus::End);
    EXPECT_EQ(decoder.table().count(), 0u);  // nothing the encoder writes enters a table
    return fields;
}

TEST(HpackEncoder, StaticStatusesAreOneByte) {
    EXPECT_EQ(status(200), "\x88");
    EXPECT_EQ(status(204), "\x89");
    EXPECT_EQ(status(206), "\x8a");
    EXPECT_EQ(status(304), "\x8b");
    EXPECT_EQ(status(400), "\x8c");
    EXPECT_EQ(status(404), "\x8d");
    EXPECT_EQ(status(500), "\x8e");
}

TEST(HpackEncoder, OtherStatusesAreLiteralsOnTheStatusName) {
    EXPECT_EQ(status(201), std::string("\x08\x03"
                                       "201",
                                       5));
    EXPECT_EQ(status(101).size(), kMaxStatusBytes);
    for (unsigned code : {100u, 101u, 201u, 302u, 418u, 503u, 599u, 999u})
        EXPECT_EQ(decode(status(code)), std::vector<std::string>{":status: " + std::to_string(code)});
}

TEST(HpackEncoder, StaticNamesGoOutAsIndices) {
    // content-type is 31: a 4-bit prefix of 15 and 16 in the next byte.
    EXPECT_EQ(field("content-type", "text/plain"), std::string("\x0f\x10\x0a"
                                                               "text/plain"));
    EXPECT_EQ(field("Content-Type", "text/plain"), field("content-type", "text/plain"));
    EXPECT_EQ(field("age", "1"), std::string("\x0f\x06\x01"
                                             "1"));  // 21
    EXPECT_EQ(decode(field("Date", "Mon, 21 Oct 2013 20:13:21 GMT")),
              std::vector<std::string>{"date: Mon, 21 Oct 2013 20:13:21 GMT"});
}

TEST(HpackEncoder, OtherNamesAreLowerCasedLiterals) {
    EXPECT_EQ(field("X-Request-ID", "42"), std::string("\x00\x0cx-request-id\x02"
                                                       "42",
                                                       17));
    EXPECT_EQ(decode(field("X-Request-ID", "42")), std::vector<std::string>{"x-request-id: 42"});
    // Longer than any static name.
    const std::string longName(40, 'N');
    EXPECT_EQ(decode(field(longName, "")), std::vector<std::string>{std::string(40, 'n') + ": "});
}

TEST(HpackEncoder, LongValuesUseMultiByteLengths) {
    const std::string value(300, 'v');
    const std::string block = field("server", value);
    EXPECT_LE(block.size(), fieldBytes(6, value.size()));
    EXPECT_EQ(decode(block), std::vector<std::string>{"server: " + value});
}

TEST(HpackEncoder, ABlockOfManyFieldsDecodesInOrder) {
    std::string block = status(200);
    block += field("content-length", "12");
    block += field("Vary", "Accept-Encoding");
    block += field("x-empty", "");
    EXPECT_EQ(decode(block),
              (std::vector<std::string>{":status: 200", "content-length: 12", "vary: Accept-Encoding", "x-empty: "}));
}

}  // namespace
}  // namespace loopwire::h2
