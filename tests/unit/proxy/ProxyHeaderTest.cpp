// Tests for core/proxy/ProxyHeader: versions 1 and 2, every family and command, TLVs, the limits, malformed and
// truncated headers, and bytes that are no header at all. Every case goes through grind(): the message whole, with
// the bytes of a request behind it, and every prefix of it, each placed against a guard page.
#include "proxy/ProxyHeader.h"

#include "../../ProxyHeaders.h"
#include "../GuardedBuffer.h"
#include "base/Limits.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <string>
#include <vector>

namespace loopwire::proxy {

inline void PrintTo(ProxyError error, std::ostream* os) { *os << nameOf(error); }
inline void PrintTo(ProxyStatus status, std::ostream* os) {
    static constexpr const char* kNames[] = {"Complete", "NeedMore", "Absent", "Error"};
    *os << kNames[static_cast<int>(status)];
}

namespace {

using namespace test::proxy_headers;

constexpr std::string_view kRequest = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

struct Verdict {
    ProxyResult result;
    ProxyHeader header;
};

// Parses message whole (with a request behind it, which must not be consumed), then each prefix of it on its own:
// a prefix must ask for more, or fail with the same error the whole message fails with, or (for bytes that are no
// header) be found absent as soon as it can be. Every call's input ends against a guard page.
Verdict grind(const std::string& message) {
    test::GuardedBuffer buffer(message.size() + kRequest.size());
    Verdict whole;
    const std::string withRequest = message + std::string(kRequest);
    char* placed = buffer.place(withRequest);
    whole.result = whole.header.parse({placed, withRequest.size()});
    if (whole.result.status == ProxyStatus::Complete) {
        EXPECT_EQ(whole.result.consumed, message.size());
        // The same header alone, ending against the guard page.
        ProxyHeader alone;
        placed = buffer.place(message);
        ProxyResult exact = alone.parse({placed, message.size()});
        EXPECT_EQ(exact.status, ProxyStatus::Complete);
        EXPECT_EQ(exact.consumed, message.size());
    }
    bool decided = false;
    for (std::size_t length = 0; length < message.size(); ++length) {
        ProxyHeader partial;
        placed = buffer.place(std::string_view(message).substr(0, length));
        ProxyResult result = partial.parse({placed, length});
        if (whole.result.status == ProxyStatus::Error && result.status == ProxyStatus::Error) {
            EXPECT_EQ(result.error, whole.result.error) << "prefix of " << length;
            decided = true;
        } else if (whole.result.status == ProxyStatus::Absent && result.status == ProxyStatus::Absent) {
            decided = true;
        } else {
            EXPECT_FALSE(decided) << "prefix of " << length << " undecided after a shorter one decided";
            EXPECT_EQ(result.status, ProxyStatus::NeedMore) << "prefix of " << length;
        }
    }
    return whole;
}

std::string addressText(const ProxyHeader& header, bool source) {
    char text[INET6_ADDRSTRLEN];
    const std::uint8_t* address = source ? header.sourceAddress : header.destinationAddress;
    const int family = header.family == ProxyHeader::Family::Inet4 ? AF_INET : AF_INET6;
    return ::inet_ntop(family, address, text, sizeof text) ? text : "";
}

TEST(ProxyHeader, Version1Tcp4) {
    Verdict verdict = grind("PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\r\n");
    ASSERT_EQ(verdict.result.status, ProxyStatus::Complete);
    EXPECT_EQ(verdict.header.version, 1);
    EXPECT_EQ(verdict.header.family, ProxyHeader::Family::Inet4);
    EXPECT_EQ(addressText(verdict.header, true), "203.0.113.7");
    EXPECT_EQ(addressText(verdict.header, false), "192.0.2.1");
    EXPECT_EQ(verdict.header.sourcePort, 51234);
    EXPECT_EQ(verdict.header.destinationPort, 443);
    EXPECT_TRUE(verdict.header.namesClient());
}

TEST(ProxyHeader, Version1Tcp6) {
    Verdict verdict = grind("PROXY TCP6 2001:db8::7 2001:db8::1 5000 80\r\n");
    ASSERT_EQ(verdict.result.status, ProxyStatus::Complete);
    EXPECT_EQ(verdict.header.family, ProxyHeader::Family::Inet6);
    EXPECT_EQ(addressText(verdict.header, true), "2001:db8::7");
    EXPECT_EQ(verdict.header.sourcePort, 5000);
    EXPECT_EQ(verdict.header.addressLength(), 16u);
}

TEST(ProxyHeader, Version1UnknownLeavesThePeer) {
    for (const char* message : {"PROXY UNKNOWN\r\n", "PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n"}) {
        Verdict verdict = grind(message);
        ASSERT_EQ(verdict.result.status, ProxyStatus::Complete) << message;
        EXPECT_EQ(verdict.header.family, ProxyHeader::Family::Unknown);
        EXPECT_FALSE(verdict.header.namesClient());
    }
}

TEST(ProxyHeader, Version1MalformedLines) {
    struct Case {
        const char* message;
        ProxyError error;
    };
    for (const Case& bad : std::vector<Case>{
             {"PROXY TCP4 203.0.113.7 192.0.2.1 51234\r\n", ProxyError::BadLine},
             {"PROXY TCP4  203.0.113.7 192.0.2.1 51234 443\r\n", ProxyError::BadLine},
             {"PROXY TCP4 203.0.113.7 192.0.2.1 51234 443 extra\r\n", ProxyError::BadLine},
             {"PROXY UDP4 203.0.113.7 192.0.2.1 51234 443\r\n", ProxyError::BadLine},
             {"PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\n", ProxyError::BadLine},
             // Found by the fuzzer: a bare LF inside a line that a CRLF ends later.
             {"PROXY TCP4 203.0.113.7 192.CP4 203.0.113.7 1920.\n\r\n", ProxyError::BadLine},
             {"PROXY TCP4 203.0.113.777 192.0.2.1 51234 443\r\n", ProxyError::BadAddress},
             {"PROXY TCP4 2001:db8::7 192.0.2.1 51234 443\r\n", ProxyError::BadAddress},
             {"PROXY TCP6 203.0.113.7 2001:db8::1 51234 443\r\n", ProxyError::BadAddress},
             {"PROXY TCP4 203.0.113.7 192.0.2.1 65536 443\r\n", ProxyError::BadPort},
             {"PROXY TCP4 203.0.113.7 192.0.2.1 051234 443\r\n", ProxyError::BadPort},
             {"PROXY TCP4 203.0.113.7 192.0.2.1 51234 4x3\r\n", ProxyError::BadPort},
         }) {
        Verdict verdict = grind(bad.message);
        EXPECT_EQ(verdict.result.status, ProxyStatus::Error) << bad.message;
        EXPECT_EQ(verdict.result.error, bad.error) << bad.message;
    }
}

TEST(ProxyHeader, Version1LineIsAtMost107Bytes) {
    // 107 bytes, CRLF included, is the longest line: one byte more and no CRLF in sight is refused.
    std::string longest = "PROXY UNKNOWN " + std::string(107 - 16, 'x') + "\r\n";
    ASSERT_EQ(longest.size(), 107u);
    EXPECT_EQ(grind(longest).result.status, ProxyStatus::Complete);
    std::string tooLong = "PROXY UNKNOWN " + std::string(107 - 15, 'x') + "\r\n";
    Verdict verdict = grind(tooLong);
    EXPECT_EQ(verdict.result.status, ProxyStatus::Error);
    EXPECT_EQ(verdict.result.error, ProxyError::TooLong);
}

TEST(ProxyHeader, Version2Inet4WithTlvs) {
    Verdict verdict =
        grind(v2(1, 0x11, inetBlock() + tlv(0x04, "") + tlv(0xEA, "vpce-0123456789abcdef") + tlv(0x01, "h2")));
    ASSERT_EQ(verdict.result.status, ProxyStatus::Complete);
    EXPECT_EQ(verdict.header.version, 2);
    EXPECT_EQ(verdict.header.family, ProxyHeader::Family::Inet4);
    EXPECT_EQ(addressText(verdict.header, true), "203.0.113.7");
    EXPECT_EQ(addressText(verdict.header, false), "192.0.2.1");
    EXPECT_EQ(verdict.header.sourcePort, 51234);
    EXPECT_EQ(verdict.header.destinationPort, 443);
}

TEST(ProxyHeader, Version2Inet6) {
    Verdict verdict = grind(v2(1, 0x21, inet6Block()));
    ASSERT_EQ(verdict.result.status, ProxyStatus::Complete);
    EXPECT_EQ(verdict.header.family, ProxyHeader::Family::Inet6);
    EXPECT_EQ(addressText(verdict.header, true), "2001:db8::7");
    EXPECT_EQ(verdict.header.sourcePort, 5000);
    EXPECT_EQ(verdict.header.destinationPort, 80);
}

TEST(ProxyHeader, Version2LocalUnixAndUnspecifiedNameNoClient) {
    struct Case {
        std::string message;
        ProxyHeader::Family family;
    };
    for (const Case& each : std::vector<Case>{
             // LOCAL (a health check): the block is discarded whatever it holds.
             {v2(0, 0x00, ""), ProxyHeader::Family::Unknown},
             {v2(0, 0x11, inetBlock()), ProxyHeader::Family::Unknown},
             {v2(0, 0x11, "x"), ProxyHeader::Family::Unknown},
             {v2(1, 0x00, "ignored"), ProxyHeader::Family::Unknown},
             {v2(1, 0x31, std::string(216, '\0') + tlv(0x02, "example.com")), ProxyHeader::Family::Unix},
         }) {
        Verdict verdict = grind(each.message);
        ASSERT_EQ(verdict.result.status, ProxyStatus::Complete);
        EXPECT_EQ(verdict.header.family, each.family);
        EXPECT_FALSE(verdict.header.namesClient());
    }
}

TEST(ProxyHeader, Version2MalformedHeaders) {
    std::string badVersion = v2(1, 0x11, inetBlock());
    badVersion[12] = 0x11;
    struct Case {
        std::string message;
        ProxyError error;
    };
    for (const Case& bad : std::vector<Case>{
             {badVersion, ProxyError::BadVersion},
             {v2(2, 0x11, inetBlock()), ProxyError::BadCommand},
             {v2(1, 0x41, inetBlock()), ProxyError::BadFamily},
             {v2(1, 0x13, inetBlock()), ProxyError::BadFamily},
             {v2(1, 0x12, inetBlock()), ProxyError::BadFamily},  // a datagram proxy header on a stream
             {v2(1, 0x11, inetBlock().substr(0, 11)), ProxyError::ShortAddress},
             {v2(1, 0x21, inetBlock()), ProxyError::ShortAddress},
             {v2(1, 0x31, std::string(215, '\0')), ProxyError::ShortAddress},
             {v2(1, 0x11, inetBlock() + "\x04\x00"), ProxyError::BadTlv},
             {v2(1, 0x11, inetBlock() + tlv(0x04, "abc").substr(0, 5)), ProxyError::BadTlv},
             {v2(1, 0x11, inetBlock() + std::string(limits::kMaxProxyHeaderBytes, '\0')), ProxyError::TooLong},
         }) {
        Verdict verdict = grind(bad.message);
        EXPECT_EQ(verdict.result.status, ProxyStatus::Error) << nameOf(bad.error);
        EXPECT_EQ(verdict.result.error, bad.error);
    }
}

TEST(ProxyHeader, Version2AtTheLimitIsAccepted) {
    const std::size_t tlvBytes = limits::kMaxProxyHeaderBytes - 16 - 12 - 3;
    Verdict verdict = grind(v2(1, 0x11, inetBlock() + tlv(0xE0, std::string(tlvBytes, 'v'))));
    EXPECT_EQ(verdict.result.status, ProxyStatus::Complete);
    EXPECT_EQ(verdict.result.consumed, limits::kMaxProxyHeaderBytes);
}

TEST(ProxyHeader, OtherBytesAreNoHeader) {
    for (const std::string& message :
         {std::string(kRequest), std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), std::string("POST / HTTP/1.1\r\n"),
          std::string("\x16\x03\x01\x02\x00\x01", 6), std::string("\r\nGET / HTTP/1.1\r\n"), std::string("PROXY")}) {
        ProxyHeader header;
        ProxyResult result = header.parse(message);
        if (message == "PROXY") {
            EXPECT_EQ(result.status, ProxyStatus::NeedMore);
        } else {
            EXPECT_EQ(result.status, ProxyStatus::Absent) << message;
        }
    }
    EXPECT_EQ(ProxyHeader().parse({}).status, ProxyStatus::NeedMore);
    EXPECT_EQ(ProxyHeader().parse("PROXY\r\n").status, ProxyStatus::Absent);
}

}  // namespace
}  // namespace loopwire::proxy
