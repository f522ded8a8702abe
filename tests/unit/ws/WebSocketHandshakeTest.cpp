#include "ws/WebSocketHandshake.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace loopwire::ws {
namespace {

HandshakeRequest valid() {
    HandshakeRequest request;
    request.method = "GET";
    request.upgrade = "websocket";
    request.connection = "Upgrade";
    request.key = "dGhlIHNhbXBsZSBub25jZQ==";
    request.version = "13";
    return request;
}

std::string accept(std::string_view key) {
    char out[kAcceptBytes];
    computeAccept(key, out);
    return std::string(out, sizeof out);
}

TEST(WebSocketHandshake, TheAcceptValueOfRfc6455) {
    // RFC 6455 section 1.3's example.
    EXPECT_EQ(accept("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    // Surrounding whitespace is not part of the key.
    EXPECT_EQ(accept(" dGhlIHNhbXBsZSBub25jZQ==\t"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    EXPECT_EQ(accept("x3JJHMbDL1EzLkh9GBhXDw=="), "HSmrc0sMlYUkAGmm5OPpG2HaGWk=");
}

TEST(WebSocketHandshake, AValidRequestPasses) {
    EXPECT_EQ(check(valid()), HandshakeError::None);
    EXPECT_EQ(statusFor(HandshakeError::None), 0);
    HandshakeRequest browser = valid();
    browser.upgrade = "WebSocket";
    browser.connection = "keep-alive, Upgrade";
    browser.version = " 13 ";
    EXPECT_EQ(check(browser), HandshakeError::None);
}

TEST(WebSocketHandshake, ARequestAsksForAWebSocketByItsUpgradeTokenOrItsKey) {
    EXPECT_TRUE(asksForWebSocket(valid()));
    HandshakeRequest tokenOnly;
    tokenOnly.upgrade = "h2c, WebSocket";
    EXPECT_TRUE(asksForWebSocket(tokenOnly));
    HandshakeRequest keyOnly;
    keyOnly.key = "dGhlIHNhbXBsZSBub25jZQ==";
    EXPECT_TRUE(asksForWebSocket(keyOnly));
    HandshakeRequest other;
    other.upgrade = "h2c";
    EXPECT_FALSE(asksForWebSocket(other));
    EXPECT_FALSE(asksForWebSocket(HandshakeRequest{}));
}

TEST(WebSocketHandshake, EachWrongFieldIsRefusedWithItsStatus) {
    struct Case {
        void (*spoil)(HandshakeRequest&);
        HandshakeError error;
        int status;
    };
    const Case cases[] = {
        {[](HandshakeRequest& r) { r.method = "POST"; }, HandshakeError::NotGet, 400},
        {[](HandshakeRequest& r) { r.method = "get"; }, HandshakeError::NotGet, 400},
        {[](HandshakeRequest& r) { r.http11 = false; }, HandshakeError::NotHttp11, 400},
        {[](HandshakeRequest& r) { r.upgrade = ""; }, HandshakeError::NoUpgradeToken, 400},
        {[](HandshakeRequest& r) { r.upgrade = "websockets"; }, HandshakeError::NoUpgradeToken, 400},
        {[](HandshakeRequest& r) { r.connection = "keep-alive"; }, HandshakeError::NoConnectionToken, 400},
        {[](HandshakeRequest& r) { r.connection = "upgraded"; }, HandshakeError::NoConnectionToken, 400},
        {[](HandshakeRequest& r) { r.version = "8"; }, HandshakeError::BadVersion, 426},
        {[](HandshakeRequest& r) { r.version = ""; }, HandshakeError::BadVersion, 426},
        {[](HandshakeRequest& r) { r.version = "13, 8"; }, HandshakeError::BadVersion, 426},
        {[](HandshakeRequest& r) { r.key = ""; }, HandshakeError::BadKey, 400},
        {[](HandshakeRequest& r) { r.key = "dGhlIHNhbXBsZSBub25jZQ="; }, HandshakeError::BadKey, 400},
    };
    for (const Case& c : cases) {
        HandshakeRequest request = valid();
        c.spoil(request);
        EXPECT_EQ(check(request), c.error) << describe(c.error);
        EXPECT_EQ(statusFor(c.error), c.status);
        EXPECT_FALSE(describe(c.error).empty());
    }
}

TEST(WebSocketHandshake, AKeyIsTheBase64OfSixteenBytes) {
    EXPECT_TRUE(isValidKey("dGhlIHNhbXBsZSBub25jZQ=="));
    EXPECT_TRUE(isValidKey("AAAAAAAAAAAAAAAAAAAAAA=="));
    EXPECT_TRUE(isValidKey("/////////////////////w=="));
    // Wrong length, wrong padding, a byte outside the alphabet, and a last character with stray bits set.
    for (const char* key :
         {"dGhlIHNhbXBsZSBub25jZQ", "dGhlIHNhbXBsZSBub25jZQ===", "dGhlIHNhbXBsZSBub25jZQ=A", "dGhlIHNhbXBsZSBub25jZ===",
          "dGhlIHNhbXBsZSBub25jZ-==", "dGhlIHNhbXBsZSBub25jZR==", "dGhlIHNhbXBsZSBub25jZ\x80=="}) {
        EXPECT_FALSE(isValidKey(key)) << key;
    }
}

TEST(WebSocketHandshake, TheFirstOfferedProtocolTheServerSupportsIsChosen) {
    std::vector<std::string_view> supported = {"chat", "superchat"};
    auto supports = [&supported](std::string_view p) {
        for (std::string_view s : supported) {
            if (s == p) return true;
        }
        return false;
    };
    EXPECT_EQ(selectProtocol("superchat, chat", supports), "superchat");
    EXPECT_EQ(selectProtocol(" , chat ,superchat", supports), "chat");
    EXPECT_EQ(selectProtocol("mqtt, wamp", supports), "");
    EXPECT_EQ(selectProtocol("", supports), "");
}

}  // namespace
}  // namespace loopwire::ws
