#include "ws/ClosePayload.h"

#include <gtest/gtest.h>

#include <string>

namespace loopwire::ws {
namespace {

std::string payload(std::uint16_t code, std::string_view reason = {}) {
    std::string out;
    out.push_back(static_cast<char>(code >> 8));
    out.push_back(static_cast<char>(code & 0xFF));
    out.append(reason);
    return out;
}

TEST(ClosePayload, AnEmptyPayloadReadsAsNoStatus) {
    ClosePayload read = ClosePayload::read("");
    EXPECT_EQ(read.code, kCloseNoStatus);
    EXPECT_EQ(read.failCode, 0);
    EXPECT_TRUE(read.reason.empty());
}

TEST(ClosePayload, ACodeAndAUtf8Reason) {
    const std::string bytes = payload(1000, "bye, κόσμε");
    ClosePayload read = ClosePayload::read(bytes);
    EXPECT_EQ(read.code, 1000);
    EXPECT_EQ(read.reason, "bye, κόσμε");
    EXPECT_EQ(read.failCode, 0);
}

TEST(ClosePayload, TheCodesAPeerMaySend) {
    // The valid and invalid codes of the Autobahn testsuite's cases 7.7 and 7.9, and the edges of each range.
    for (int code : {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999}) {
        EXPECT_TRUE(ClosePayload::isSendableCode(static_cast<std::uint16_t>(code))) << code;
        EXPECT_EQ(ClosePayload::read(payload(static_cast<std::uint16_t>(code))).failCode, 0) << code;
    }
    for (int code : {0, 999, 1004, 1005, 1006, 1012, 1013, 1014, 1015, 1016, 1100, 2000, 2999, 5000, 65535}) {
        EXPECT_FALSE(ClosePayload::isSendableCode(static_cast<std::uint16_t>(code))) << code;
        EXPECT_EQ(ClosePayload::read(payload(static_cast<std::uint16_t>(code))).failCode, kCloseProtocolError) << code;
    }
}

TEST(ClosePayload, TheCodesLoopwireWritesAreTheSendableOnesAndTheIanaRegisteredOnes) {
    for (int code : {1000, 1003, 1007, 1011, 1012, 1013, 1014, 3000, 4999}) {
        EXPECT_TRUE(ClosePayload::isWritableCode(static_cast<std::uint16_t>(code))) << code;
    }
    // Issue 18: codes RFC 6455 keeps off the wire never go out (end() sends a close frame without a code instead).
    for (int code : {0, 999, 1004, 1005, 1006, 1015, 1016, 2000, 2999, 5000, 65535}) {
        EXPECT_FALSE(ClosePayload::isWritableCode(static_cast<std::uint16_t>(code))) << code;
    }
}

TEST(ClosePayload, AOneBytePayloadIsAProtocolErrorAndABadReasonInvalidData) {
    EXPECT_EQ(ClosePayload::read("\x03").failCode, kCloseProtocolError);
    EXPECT_EQ(ClosePayload::read(payload(1000, "\xed\xa0\x80")).failCode, kCloseInvalidPayload);
    EXPECT_EQ(ClosePayload::read(payload(1000, "cut \xe2\x82")).failCode, kCloseInvalidPayload);
}

TEST(ClosePayload, WriteFormatsCodeAndReasonAndCutsOnACharacterBoundary) {
    char out[2 + kMaxCloseReasonBytes];
    std::size_t size = ClosePayload::write(1001, "going away", out);
    EXPECT_EQ(std::string(out, size), payload(1001, "going away"));
    EXPECT_EQ(ClosePayload::write(kCloseNoStatus, "ignored", out), 0u);
    EXPECT_EQ(ClosePayload::write(0, "", out), 0u);

    // 122 ASCII bytes then a two-byte character: it does not fit whole in 123, so it is left out.
    const std::string longReason = std::string(122, 'r') + "é" + "tail";
    size = ClosePayload::write(4000, longReason, out);
    EXPECT_EQ(size, 2u + 122u);
    ClosePayload read = ClosePayload::read(std::string_view(out, size));
    EXPECT_EQ(read.failCode, 0);
    EXPECT_EQ(read.reason, std::string(122, 'r'));
    // An ASCII reason is cut at exactly 123 bytes.
    EXPECT_EQ(ClosePayload::write(4000, std::string(200, 'a'), out), 2u + kMaxCloseReasonBytes);
}

}  // namespace
}  // namespace loopwire::ws
