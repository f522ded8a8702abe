// The hash slot of a channel, as Redis Cluster computes it (the cluster test checks it against CLUSTER KEYSLOT).
#include "broker/RedisSlot.h"

#include <gtest/gtest.h>

#include <string>

namespace loopwire::broker {
namespace {

TEST(RedisSlot, ComputesCrc16Xmodem) {
    EXPECT_EQ(RedisSlot::crc16("123456789"), 0x31C3);
    EXPECT_EQ(RedisSlot::crc16(""), 0);
    // Continued from an earlier piece, as for a prefix and a topic.
    EXPECT_EQ(RedisSlot::crc16("56789", RedisSlot::crc16("1234")), 0x31C3);
}

TEST(RedisSlot, GivesTheSlotsRedisGives) {
    // CLUSTER KEYSLOT of each name on Redis 7.
    EXPECT_EQ(RedisSlot::of("", "foo"), 12182);
    EXPECT_EQ(RedisSlot::of("", "bar"), 5061);
    EXPECT_EQ(RedisSlot::of("", "hello"), 866);
    EXPECT_EQ(RedisSlot::of("fo", "o"), 12182);
    EXPECT_LT(RedisSlot::of("loopwire:", "chat"), RedisSlot::kSlotCount);
}

// Every split of a name between prefix and topic gives the slot of the whole name.
void expectSameSlotAtEverySplit(const std::string& name, const std::string& hashed) {
    const std::uint16_t expected = RedisSlot::crc16(hashed) % RedisSlot::kSlotCount;
    for (std::size_t split = 0; split <= name.size(); ++split)
        EXPECT_EQ(RedisSlot::of(name.substr(0, split), name.substr(split)), expected) << name << " split at " << split;
}

TEST(RedisSlot, HashesOnlyTheHashTag) {
    expectSameSlotAtEverySplit("{user1000}.following", "user1000");
    expectSameSlotAtEverySplit("app:{room}:chat", "room");
    expectSameSlotAtEverySplit("foo{bar}{zap}", "bar");
    expectSameSlotAtEverySplit("foo{{bar}}zap", "{bar");
}

TEST(RedisSlot, HashesTheWholeNameWithoutATag) {
    for (const std::string name : {"plain", "foo{}{bar}", "open{only", "close}only", "}{", "{}", "{"})
        expectSameSlotAtEverySplit(name, name);
}

}  // namespace
}  // namespace loopwire::broker
