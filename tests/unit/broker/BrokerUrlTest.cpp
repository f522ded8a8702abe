// Broker URLs: what PubSubOptions::url accepts, and what it refuses with a message.
#include "broker/BrokerUrl.h"

#include <gtest/gtest.h>

namespace loopwire::broker {
namespace {

BrokerUrl parsed(std::string_view text) {
    BrokerUrl url;
    EXPECT_EQ(url.parse(text), "") << text;
    return url;
}

TEST(BrokerUrl, ReadsHostAndPort) {
    BrokerUrl url = parsed("redis://cache.internal:6380");
    EXPECT_EQ(url.endpoints[0].host, "cache.internal");
    EXPECT_EQ(url.endpoints[0].port, 6380);
    EXPECT_FALSE(url.hasPassword);
    EXPECT_EQ(parsed("redis://127.0.0.1").endpoints[0].port, BrokerUrl::kDefaultRedisPort);
    EXPECT_EQ(parsed("redis://localhost/0").endpoints[0].host, "localhost");
    EXPECT_EQ(parsed("redis://h:1/15").endpoints[0].port, 1);
    EXPECT_EQ(parsed("redis://h:65535").endpoints[0].port, 65535);
}

TEST(BrokerUrl, ReadsAnIpv6HostInBrackets) {
    BrokerUrl url = parsed("redis://[::1]:7000");
    EXPECT_EQ(url.endpoints[0].host, "::1");
    EXPECT_EQ(url.endpoints[0].port, 7000);
    EXPECT_EQ(parsed("redis://[fe80::1]").endpoints[0].port, BrokerUrl::kDefaultRedisPort);
}

TEST(BrokerUrl, ReadsUserAndPassword) {
    BrokerUrl url = parsed("redis://app:s%40cret@h:6379");
    EXPECT_EQ(url.user, "app");
    EXPECT_EQ(url.password, "s@cret");
    EXPECT_TRUE(url.hasPassword);
    BrokerUrl passwordOnly = parsed("redis://:secret@h");
    EXPECT_EQ(passwordOnly.user, "");
    EXPECT_EQ(passwordOnly.password, "secret");
    // A lone word before @ is a password, as redis-cli and ioredis read it.
    BrokerUrl bare = parsed("redis://secret@h");
    EXPECT_EQ(bare.user, "");
    EXPECT_EQ(bare.password, "secret");
    EXPECT_TRUE(bare.hasPassword);
    // The last @ ends the credentials.
    EXPECT_EQ(parsed("redis://u:p@ss@h").password, "p@ss");
}

TEST(BrokerUrl, ReadsRedisOverTls) {
    BrokerUrl url = parsed("rediss://:pw@cache.example:6380");
    EXPECT_TRUE(url.tls);
    EXPECT_EQ(url.endpoints[0].host, "cache.example");
    EXPECT_EQ(url.endpoints[0].port, 6380);
    BrokerUrl bad;
    EXPECT_NE(bad.parse("redisss://h"), "");
}

TEST(BrokerUrl, ReadsSeveralHosts) {
    BrokerUrl url = parsed("redis://:pw@a:7000,[::1]:7001,c/0");
    ASSERT_EQ(url.endpoints.size(), 3u);
    EXPECT_EQ(url.endpoints[0].host, "a");
    EXPECT_EQ(url.endpoints[0].port, 7000);
    EXPECT_EQ(url.endpoints[1].host, "::1");
    EXPECT_EQ(url.endpoints[1].port, 7001);
    EXPECT_EQ(url.endpoints[2].host, "c");
    EXPECT_EQ(url.endpoints[2].port, BrokerUrl::kDefaultRedisPort);
    EXPECT_EQ(url.password, "pw");
    std::string hosts = "redis://h0";
    for (std::size_t i = 1; i < BrokerUrl::kMaxEndpoints; ++i)
        hosts += ",h" + std::to_string(i);
    EXPECT_EQ(parsed(hosts).endpoints.size(), BrokerUrl::kMaxEndpoints);
    BrokerUrl tooMany;
    EXPECT_NE(tooMany.parse(hosts + ",one-more"), "");
}

TEST(BrokerUrl, RefusesWhatIsNotARedisUrl) {
    for (std::string_view text :
         {"http://h", "h:6379", "redis://", "redis://:6379", "redis://h:", "redis://h:0", "redis://h:65536",
          "redis://h:123456", "redis://h:12ab", "redis://[::1", "redis://[::1]x", "redis://h/db", "redis://:%zz@h",
          "redis://:%2@h", "redis://a,", "redis://,b", "redis://a,b:0"}) {
        BrokerUrl url;
        EXPECT_NE(url.parse(text), "") << text;
    }
    BrokerUrl plain = parsed("redis://h");
    EXPECT_FALSE(plain.tls);
}

}  // namespace
}  // namespace loopwire::broker
