// Tests for core/net/IpNetwork: what a trusted PROXY source list takes, and which peers each entry contains.
#include "net/IpNetwork.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>

namespace loopwire {
namespace {

SocketAddress peer(const char* text) {
    std::uint8_t bytes[16];
    if (::inet_pton(AF_INET, text, bytes) == 1) return SocketAddress::fromBytes(bytes, 4, 1234);
    EXPECT_EQ(::inet_pton(AF_INET6, text, bytes), 1) << text;
    return SocketAddress::fromBytes(bytes, 16, 1234);
}

bool contains(const char* network, const char* address) {
    std::optional<IpNetwork> parsed = IpNetwork::parse(network);
    EXPECT_TRUE(parsed) << network;
    return parsed && parsed->contains(peer(address));
}

TEST(IpNetwork, AnAddressIsItsOwnNetwork) {
    EXPECT_TRUE(contains("192.0.2.7", "192.0.2.7"));
    EXPECT_FALSE(contains("192.0.2.7", "192.0.2.8"));
    EXPECT_TRUE(contains("2001:db8::7", "2001:db8::7"));
    EXPECT_FALSE(contains("2001:db8::7", "2001:db8::8"));
}

TEST(IpNetwork, APrefixContainsItsAddressesOnly) {
    EXPECT_TRUE(contains("10.0.0.0/8", "10.255.1.2"));
    EXPECT_FALSE(contains("10.0.0.0/8", "11.0.0.1"));
    EXPECT_TRUE(contains("192.168.4.0/22", "192.168.7.255"));
    EXPECT_FALSE(contains("192.168.4.0/22", "192.168.8.0"));
    EXPECT_TRUE(contains("2001:db8::/32", "2001:db8:ffff::1"));
    EXPECT_FALSE(contains("2001:db8::/32", "2001:db9::1"));
    EXPECT_TRUE(contains("0.0.0.0/0", "203.0.113.7"));
    EXPECT_TRUE(contains("::/0", "::1"));
}

TEST(IpNetwork, AnIpv4NetworkContainsTheMappedFormOfItsAddresses) {
    // A dual-stack listener reports IPv4 peers as ::ffff:a.b.c.d.
    EXPECT_TRUE(contains("127.0.0.0/8", "::ffff:127.0.0.1"));
    EXPECT_FALSE(contains("127.0.0.0/8", "::ffff:128.0.0.1"));
    EXPECT_FALSE(contains("127.0.0.0/8", "::1"));
    EXPECT_FALSE(contains("::1", "127.0.0.1"));
}

TEST(IpNetwork, TextThatIsNoNetworkIsRefused) {
    for (const char* bad : {"", "/8", "10.0.0.0/", "10.0.0.0/33", "2001:db8::/129", "10.0.0.0/8x", "10.1.0.0/8",
                            "2001:db8::1/32", "example.com", "10.0.0", "10.0.0.0/0008", "::ffff:zz"}) {
        EXPECT_FALSE(IpNetwork::parse(bad)) << bad;
    }
    EXPECT_FALSE(IpNetwork::parse("10.0.0.0/8")->contains(SocketAddress()));
}

}  // namespace
}  // namespace loopwire
