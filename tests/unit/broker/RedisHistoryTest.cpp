// The Redis side of a topic's history: the keys' slot tags, the commands that run the scripts, the reading of a
// read's reply and the recovered verdict (the integration test runs the scripts on a real Redis).
#include "broker/RedisHistory.h"
#include "broker/RedisSlot.h"
#include "broker/RespReader.h"

#include <gtest/gtest.h>

#include <string>

namespace loopwire::broker {
namespace {

TEST(RedisHistory, HasAShortTagForEverySlot) {
    for (std::uint32_t slot = 0; slot < RedisSlot::kSlotCount; ++slot) {
        const std::string_view tag = RedisHistory::slotTag(static_cast<std::uint16_t>(slot));
        ASSERT_FALSE(tag.empty()) << slot;
        ASSERT_LE(tag.size() + 5, RedisHistory::kMaxKeyHeadBytes);
        ASSERT_EQ(RedisSlot::of(tag, {}), slot);
    }
}

std::vector<std::string> argumentsOf(const ByteBuffer& out) {
    std::vector<std::string> arguments;
    resp::RespReader reader(out.view());
    resp::RespValue command;
    if (!reader.next(command)) return arguments;
    resp::RespReader elements = command.elements();
    resp::RespValue argument;
    while (elements.next(argument))
        arguments.emplace_back(argument.text);
    return arguments;
}

TEST(RedisHistory, PutsBothKeysInTheChannelsSlot) {
    ByteBuffer out;
    PubSubHistoryOptions history;
    history.size = 50;
    history.ttlSeconds = 60;
    RedisHistory::appendPublish(out, "sha", "SPUBLISH", history, "0011223344556677", "app:", "room/{7}x", "ENVELOPE",
                                "hello");
    const std::vector<std::string> arguments = argumentsOf(out);
    ASSERT_EQ(arguments.size(), 12u);
    EXPECT_EQ(arguments[0], "EVALSHA");
    EXPECT_EQ(arguments[2], "2");
    const std::uint16_t slot = RedisSlot::of("app:", "room/{7}x");
    EXPECT_EQ(RedisSlot::of(arguments[3], {}), slot);
    EXPECT_EQ(RedisSlot::of(arguments[4], {}), slot);
    EXPECT_TRUE(arguments[3].ends_with("}m:app:room/{7}x"));
    EXPECT_TRUE(arguments[4].ends_with("}h:app:room/{7}x"));
    EXPECT_EQ(arguments[5], "50");
    EXPECT_EQ(arguments[6], "60");
    EXPECT_EQ(arguments[8], "SPUBLISH");
    EXPECT_EQ(arguments[9], "app:room/{7}x");
    EXPECT_EQ(arguments[11], "hello");
}

TEST(RedisHistory, ReadsAReadsReply) {
    const std::string bytes =
        "*5\r\n$16\r\nloopwire:history\r\n$2\r\n42\r\n$4\r\nabcd\r\n$1\r\n7\r\n"
        "*2\r\n*2\r\n$3\r\n6-0\r\n*4\r\n$1\r\ne\r\n$3\r\nENV\r\n$1\r\nm\r\n$3\r\nsix\r\n"
        "*2\r\n$3\r\n7-0\r\n*4\r\n$1\r\ne\r\n$3\r\nENV\r\n$1\r\nm\r\n$5\r\nseven\r\n";
    resp::RespReader reader(bytes);
    resp::RespValue value;
    ASSERT_TRUE(reader.next(value));
    ASSERT_TRUE(RedisHistory::isReadReply(value));
    RedisHistory::Reply reply;
    ASSERT_TRUE(RedisHistory::readReply(value, reply));
    EXPECT_EQ(reply.id, 42u);
    EXPECT_EQ(reply.epoch, "abcd");
    EXPECT_EQ(reply.offset, 7u);
    ASSERT_EQ(reply.entries.size(), 2u);
    EXPECT_EQ(reply.entries[1].offset, 7u);
    EXPECT_EQ(reply.entries[1].message, "seven");
    EXPECT_TRUE(RedisHistory::recovered(reply, {"abcd", 5}));
    EXPECT_FALSE(RedisHistory::recovered(reply, {"abcd", 4})) << "offset 5 was trimmed";
    EXPECT_FALSE(RedisHistory::recovered(reply, {"other", 5}));
    EXPECT_FALSE(RedisHistory::recovered(reply, {"", 0})) << "not from offset 1";
}

TEST(RedisHistory, RefusesRepliesOfAnotherShape) {
    for (const std::string& bytes : {
             std::string("*5\r\n$16\r\nloopwire:history\r\n$1\r\nx\r\n$1\r\ne\r\n$1\r\n1\r\n*0\r\n"),
             std::string("*4\r\n$16\r\nloopwire:history\r\n$1\r\n1\r\n$1\r\ne\r\n$1\r\n1\r\n"),
             // offsets that do not increase
             std::string("*5\r\n$16\r\nloopwire:history\r\n$1\r\n1\r\n$1\r\ne\r\n$1\r\n3\r\n*2\r\n"
                         "*2\r\n$3\r\n3-0\r\n*0\r\n*2\r\n$3\r\n2-0\r\n*0\r\n"),
         }) {
        resp::RespReader reader(bytes);
        resp::RespValue value;
        ASSERT_TRUE(reader.next(value));
        RedisHistory::Reply reply;
        EXPECT_FALSE(RedisHistory::readReply(value, reply)) << bytes;
    }
    const std::string other = "*2\r\n$7\r\nmessage\r\n$1\r\nx\r\n";
    resp::RespReader reader(other);
    resp::RespValue value;
    ASSERT_TRUE(reader.next(value));
    EXPECT_FALSE(RedisHistory::isReadReply(value));
}

TEST(RedisHistory, CallsAnEmptyHistoryRecoveredOnlyForAClientWithoutAPosition) {
    RedisHistory::Reply empty;
    EXPECT_TRUE(RedisHistory::recovered(empty, {"", 0}));
    EXPECT_FALSE(RedisHistory::recovered(empty, {"abcd", 3}));
}

}  // namespace
}  // namespace loopwire::broker
