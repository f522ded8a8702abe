// The RESP reader: the values of whole replies, read in place.
#include "broker/RespReader.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace loopwire::resp {
namespace {

RespValue first(std::string_view reply) {
    RespReader reader(reply);
    RespValue value;
    EXPECT_TRUE(reader.next(value)) << reply;
    return value;
}

TEST(RespReader, ReadsScalars) {
    EXPECT_EQ(first("+OK\r\n").type, RespType::SimpleString);
    EXPECT_EQ(first("+OK\r\n").text, "OK");
    EXPECT_TRUE(first("-ERR no\r\n").isError());
    EXPECT_EQ(first("-ERR no\r\n").text, "ERR no");
    EXPECT_EQ(first(":-42\r\n").integer, -42);
    EXPECT_EQ(first(":9223372036854775807\r\n").integer, INT64_MAX);
    EXPECT_EQ(first("#t\r\n").integer, 1);
    EXPECT_EQ(first("#f\r\n").integer, 0);
    EXPECT_TRUE(first("_\r\n").isNull());
    EXPECT_EQ(first(",1.5\r\n").text, "1.5");
}

TEST(RespReader, ReadsBulkStringsWithAnyBytes) {
    const std::string reply("$5\r\na\r\n\0b\r\n", 12);  // the views point into it
    RespValue value = first(reply);
    EXPECT_TRUE(value.isString());
    EXPECT_EQ(value.text, std::string_view("a\r\n\0b", 5));
    EXPECT_TRUE(first("$-1\r\n").isNull());
    EXPECT_EQ(first("$0\r\n\r\n").text, "");
    EXPECT_EQ(first("=15\r\ntxt:Some string\r\n").text, "Some string");
    EXPECT_TRUE(first("!5\r\nERR x\r\n").isError());
}

TEST(RespReader, ReadsAPushElementByElement) {
    RespValue push = first(">3\r\n$7\r\nmessage\r\n$4\r\nchat\r\n$5\r\nhello\r\n");
    ASSERT_EQ(push.type, RespType::Push);
    EXPECT_EQ(push.integer, 3);
    RespReader fields = push.elements();
    RespValue kind, channel, payload, extra;
    ASSERT_TRUE(fields.next(kind));
    ASSERT_TRUE(fields.next(channel));
    ASSERT_TRUE(fields.next(payload));
    EXPECT_FALSE(fields.next(extra));
    EXPECT_EQ(kind.text, "message");
    EXPECT_EQ(channel.text, "chat");
    EXPECT_EQ(payload.text, "hello");
}

TEST(RespReader, SkipsOverNestedElements) {
    const std::string_view reply = "*3\r\n*2\r\n:1\r\n*1\r\n$1\r\nx\r\n%1\r\n+k\r\n+v\r\n:7\r\n";
    RespValue outer = first(reply);
    RespReader elements = outer.elements();
    RespValue nested, map, last;
    ASSERT_TRUE(elements.next(nested));
    EXPECT_EQ(nested.type, RespType::Array);
    ASSERT_TRUE(elements.next(map));
    EXPECT_EQ(map.type, RespType::Map);
    EXPECT_EQ(map.integer, 2);
    ASSERT_TRUE(elements.next(last));
    EXPECT_EQ(last.integer, 7);
    RespReader entries = map.elements();
    RespValue key, value;
    ASSERT_TRUE(entries.next(key));
    ASSERT_TRUE(entries.next(value));
    EXPECT_EQ(key.text, "k");
    EXPECT_EQ(value.text, "v");
}

TEST(RespReader, HasNoElementsForScalarsAndEmptyAggregates) {
    RespValue value;
    EXPECT_FALSE(first("+OK\r\n").elements().next(value));
    EXPECT_FALSE(first("*0\r\n").elements().next(value));
    EXPECT_FALSE(first("*-1\r\n").elements().next(value));
    EXPECT_TRUE(first("*-1\r\n").isNull());
}

TEST(RespReader, StopsAtBytesThatEndEarly) {
    RespValue value;
    RespReader truncated("*2\r\n$5\r\nhel");
    EXPECT_FALSE(truncated.next(value));
    RespReader nothing("");
    EXPECT_FALSE(nothing.next(value));
    RespReader bulk("$5\r\nhe");
    EXPECT_FALSE(bulk.next(value));
}

}  // namespace
}  // namespace loopwire::resp
