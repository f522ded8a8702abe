// SocketAddress: the binary form and the text form uWebSockets.js returns from getRemoteAddressAsText, which
// frameworks parse (so the text is exactly theirs, not the shortest form).
#include "net/SocketAddress.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <string>

namespace loopwire {
namespace {

SocketAddress ipv4(const char* text, std::uint16_t port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    inet_pton(AF_INET, text, &address.sin_addr);
    return SocketAddress::fromSockaddr(reinterpret_cast<const sockaddr*>(&address));
}

SocketAddress ipv6(const char* text, std::uint16_t port) {
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    address.sin6_port = htons(port);
    inet_pton(AF_INET6, text, &address.sin6_addr);
    return SocketAddress::fromSockaddr(reinterpret_cast<const sockaddr*>(&address));
}

std::string textOf(const SocketAddress& address) {
    char out[SocketAddress::kMaxTextLength];
    return std::string(address.toText(out));
}

TEST(SocketAddress, Ipv4IsDottedDecimal) {
    SocketAddress address = ipv4("127.0.0.1", 8080);
    EXPECT_EQ(textOf(address), "127.0.0.1");
    EXPECT_EQ(address.bytes(), std::string_view("\x7f\x00\x00\x01", 4));
    EXPECT_EQ(address.port(), 8080);
    EXPECT_EQ(textOf(ipv4("255.255.255.255", 1)), "255.255.255.255");
}

TEST(SocketAddress, Ipv4MappedIsTheFullIpv6FormAsInUWebSockets) {
    SocketAddress address = ipv6("::ffff:127.0.0.1", 1);
    EXPECT_EQ(textOf(address), "0000:0000:0000:0000:0000:ffff:7f00:0001");
    EXPECT_EQ(address.bytes().size(), 16u);
}

TEST(SocketAddress, Ipv6IsEightGroupsOfFourLowerCaseDigits) {
    EXPECT_EQ(textOf(ipv6("::1", 1)), "0000:0000:0000:0000:0000:0000:0000:0001");
    std::string longest = textOf(ipv6("fe80::abcd:ef01:2345:6789", 1));
    EXPECT_EQ(longest, "fe80:0000:0000:0000:abcd:ef01:2345:6789");
    EXPECT_EQ(longest.size() + 1, SocketAddress::kMaxTextLength);
}

TEST(SocketAddress, UnixSocketsHaveNoAddress) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    SocketAddress unix = SocketAddress::fromSockaddr(reinterpret_cast<const sockaddr*>(&address));
    EXPECT_TRUE(unix.bytes().empty());
    EXPECT_EQ(textOf(unix), "");
    EXPECT_EQ(unix.port(), 0);
}

}  // namespace
}  // namespace loopwire
