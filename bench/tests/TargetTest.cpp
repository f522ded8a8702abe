#include "Target.h"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <arpa/inet.h>

namespace loopwire::lwload {
namespace {

TEST(Target, ParsesHttpAndWsUrls) {
    TargetUrl url;
    std::string error;
    ASSERT_TRUE(parseUrl("http://127.0.0.1:8080/path?q=1#frag", url, error)) << error;
    EXPECT_EQ(url.scheme, Scheme::Http);
    EXPECT_EQ(url.host, "127.0.0.1");
    EXPECT_EQ(url.port, 8080);
    EXPECT_EQ(url.path, "/path?q=1");
    EXPECT_EQ(url.authority, "127.0.0.1:8080");

    ASSERT_TRUE(parseUrl("ws://[::1]:9001", url, error)) << error;
    EXPECT_EQ(url.scheme, Scheme::WebSocket);
    EXPECT_EQ(url.host, "::1");
    EXPECT_EQ(url.port, 9001);
    EXPECT_EQ(url.path, "/");
    EXPECT_EQ(url.authority, "[::1]:9001");

    ASSERT_TRUE(parseUrl("HTTP://localhost?x", url, error)) << error;
    EXPECT_EQ(url.port, 80);
    EXPECT_EQ(url.path, "/?x");
}

TEST(Target, ParsesHttpsAndWssUrlsWithPort443ByDefault) {
    TargetUrl url;
    std::string error;
    ASSERT_TRUE(parseUrl("https://localhost/x", url, error)) << error;
    EXPECT_EQ(url.scheme, Scheme::Http);
    EXPECT_TRUE(url.tls);
    EXPECT_EQ(url.port, 443);
    EXPECT_EQ(url.path, "/x");
    EXPECT_EQ(url.authority, "localhost");

    ASSERT_TRUE(parseUrl("WSS://127.0.0.1:8443", url, error)) << error;
    EXPECT_EQ(url.scheme, Scheme::WebSocket);
    EXPECT_TRUE(url.tls);
    EXPECT_EQ(url.port, 8443);

    ASSERT_TRUE(parseUrl("ws://127.0.0.1", url, error)) << error;
    EXPECT_FALSE(url.tls);
    EXPECT_EQ(url.port, 80);
}

TEST(Target, RefusesMalformedUrls) {
    TargetUrl url;
    std::string error;
    for (const char* bad :
         {"ftp://127.0.0.1/", "https//127.0.0.1/", "wss:/127.0.0.1/", "127.0.0.1:80", "http://", "http://:80/",
          "http://127.0.0.1:/", "http://127.0.0.1:0/", "http://127.0.0.1:65536/", "http://127.0.0.1:80x/",
          "http://user@127.0.0.1/", "http://[::1/", "http://[::1]x/", "http://127.0.0.1/a b"}) {
        EXPECT_FALSE(parseUrl(bad, url, error)) << bad;
        EXPECT_FALSE(error.empty()) << bad;
    }
}

TEST(Target, LoopbackHostsOnly) {
    for (const char* host : {"127.0.0.1", "127.255.255.254", "127.1.2.3", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1",
                             "localhost", "LOCALHOST"}) {
        EXPECT_TRUE(isLoopbackHost(host)) << host;
    }
    for (const char* host : {"128.0.0.1", "10.0.0.1", "0.0.0.0", "::", "::2", "::ffff:10.0.0.1", "example.com",
                             "127.0.0.1.example.com", "localhost.example.com", "127.1", "1.2.3.127", "", "[::1]"}) {
        EXPECT_FALSE(isLoopbackHost(host)) << host;
    }
}

TEST(Target, LoopbackAddresses) {
    sockaddr_in v4{};
    v4.sin_family = AF_INET;
    inet_pton(AF_INET, "127.9.9.9", &v4.sin_addr);
    EXPECT_TRUE(isLoopbackAddress(reinterpret_cast<sockaddr*>(&v4)));
    inet_pton(AF_INET, "192.168.1.1", &v4.sin_addr);
    EXPECT_FALSE(isLoopbackAddress(reinterpret_cast<sockaddr*>(&v4)));

    sockaddr_in6 v6{};
    v6.sin6_family = AF_INET6;
    inet_pton(AF_INET6, "::1", &v6.sin6_addr);
    EXPECT_TRUE(isLoopbackAddress(reinterpret_cast<sockaddr*>(&v6)));
    inet_pton(AF_INET6, "2001:db8::1", &v6.sin6_addr);
    EXPECT_FALSE(isLoopbackAddress(reinterpret_cast<sockaddr*>(&v6)));
}

TEST(Target, ResolveRefusesRemoteTargetsWithoutLookingThemUp) {
    TargetUrl url;
    std::string error;
    ASSERT_TRUE(parseUrl("http://192.0.2.1:80/", url, error));
    ResolvedTarget resolved;
    EXPECT_FALSE(resolveTarget(url, false, resolved, error));
    EXPECT_NE(error.find("--allow-remote"), std::string::npos);

    ASSERT_TRUE(parseUrl("http://example.invalid/", url, error));
    EXPECT_FALSE(resolveTarget(url, false, resolved, error));
    EXPECT_NE(error.find("--allow-remote"), std::string::npos);

    // With --allow-remote a literal resolves without a lookup.
    ASSERT_TRUE(parseUrl("http://192.0.2.1:81/", url, error));
    ASSERT_TRUE(resolveTarget(url, true, resolved, error)) << error;
    EXPECT_EQ(resolved.address.ss_family, AF_INET);
}

TEST(Target, ResolvesLoopbackLiterals) {
    TargetUrl url;
    std::string error;
    ResolvedTarget resolved;
    ASSERT_TRUE(parseUrl("http://127.0.0.1:8080/", url, error));
    ASSERT_TRUE(resolveTarget(url, false, resolved, error)) << error;
    EXPECT_TRUE(isLoopbackAddress(reinterpret_cast<const sockaddr*>(&resolved.address)));
    EXPECT_EQ(ntohs(reinterpret_cast<const sockaddr_in*>(&resolved.address)->sin_port), 8080);
}

}  // namespace
}  // namespace loopwire::lwload
