// Reading a Redis Cluster node's MOVED and ASK error replies.
#include "broker/RedisRedirection.h"

#include <gtest/gtest.h>

#include <string_view>

namespace loopwire::broker {
namespace {

TEST(RedisRedirection, ReadsMovedAndAsk) {
    RedisRedirection moved;
    ASSERT_TRUE(moved.read("MOVED 3999 127.0.0.1:6381"));
    EXPECT_FALSE(moved.ask);
    EXPECT_EQ(moved.slot, 3999);
    EXPECT_EQ(moved.host, "127.0.0.1");
    EXPECT_EQ(moved.port, 6381);
    RedisRedirection ask;
    ASSERT_TRUE(ask.read("ASK 16383 redis-2.internal:7000"));
    EXPECT_TRUE(ask.ask);
    EXPECT_EQ(ask.slot, 16383);
    EXPECT_EQ(ask.host, "redis-2.internal");
    EXPECT_EQ(ask.port, 7000);
}

TEST(RedisRedirection, ReadsIpv6AndEmptyHosts) {
    RedisRedirection bare;
    ASSERT_TRUE(bare.read("MOVED 0 ::1:7001"));
    EXPECT_EQ(bare.host, "::1");
    EXPECT_EQ(bare.port, 7001);
    RedisRedirection bracketed;
    ASSERT_TRUE(bracketed.read("MOVED 0 [fe80::1]:7001"));
    EXPECT_EQ(bracketed.host, "fe80::1");
    RedisRedirection empty;
    ASSERT_TRUE(empty.read("MOVED 12 :7002"));
    EXPECT_EQ(empty.host, "");
    EXPECT_EQ(empty.port, 7002);
}

TEST(RedisRedirection, RefusesEverythingElse) {
    for (std::string_view error :
         {"ERR unknown command", "MOVED", "MOVED ", "MOVED 3999", "MOVED 3999 host", "MOVED 16384 h:1", "MOVED -1 h:1",
          "MOVED x h:1", "MOVED 1 h:0", "MOVED 1 h:65536", "MOVED 1 h:", "MOVED 1 h:7x", "MOVED  h:1", "ASKING 1 h:1",
          "moved 1 h:1", "MOVED 99999999999999999999 h:1"}) {
        RedisRedirection redirection;
        EXPECT_FALSE(redirection.read(error)) << error;
        EXPECT_EQ(redirection.port, 0) << "left as it was: " << error;
    }
}

}  // namespace
}  // namespace loopwire::broker
