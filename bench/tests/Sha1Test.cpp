#include "Base64.h"
#include "Sha1.h"
#include "WsHandshake.h"

#include <gtest/gtest.h>

#include <string>

namespace loopwire::lwload {
namespace {

std::string hex(const Sha1::Digest& d) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (std::uint8_t b : d) {
        out.push_back(kHex[b >> 4]);
        out.push_back(kHex[b & 15]);
    }
    return out;
}

// FIPS 180-2 appendix A and the usual extra vectors.
TEST(Sha1, MatchesKnownVectors) {
    EXPECT_EQ(hex(Sha1::of("")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    EXPECT_EQ(hex(Sha1::of("abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
    EXPECT_EQ(hex(Sha1::of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
              "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    EXPECT_EQ(hex(Sha1::of("The quick brown fox jumps over the lazy dog")), "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12");
    EXPECT_EQ(hex(Sha1::of(std::string(1'000'000, 'a'))), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST(Sha1, AnySplitOfTheInputGivesTheSameDigest) {
    const std::string input(200, 'q');
    const Sha1::Digest whole = Sha1::of(input);
    for (std::size_t split = 0; split <= input.size(); ++split) {
        Sha1 sha;
        sha.update(std::string_view(input).substr(0, split));
        sha.update(std::string_view(input).substr(split));
        ASSERT_EQ(sha.digest(), whole) << split;
    }
    // Lengths around the padding boundary (55, 56, 63, 64 bytes).
    EXPECT_EQ(hex(Sha1::of(std::string(55, 'a'))), "c1c8bbdc22796e28c0e15163d20899b65621d65a");
    EXPECT_EQ(hex(Sha1::of(std::string(56, 'a'))), "c2db330f6083854c99d4b5bfb6e8f29f201be699");
    EXPECT_EQ(hex(Sha1::of(std::string(64, 'a'))), "0098ba824b5c16427bd7a1122a5a442a25ec644d");
}

// RFC 4648 section 10.
TEST(Base64, MatchesRfc4648Vectors) {
    EXPECT_EQ(base64Encode(""), "");
    EXPECT_EQ(base64Encode("f"), "Zg==");
    EXPECT_EQ(base64Encode("fo"), "Zm8=");
    EXPECT_EQ(base64Encode("foo"), "Zm9v");
    EXPECT_EQ(base64Encode("foob"), "Zm9vYg==");
    EXPECT_EQ(base64Encode("fooba"), "Zm9vYmE=");
    EXPECT_EQ(base64Encode("foobar"), "Zm9vYmFy");
    EXPECT_EQ(base64Encode(std::string("\xff\xfe\x00", 3)), "//4A");
}

// RFC 6455 section 1.3.
TEST(WsHandshake, AcceptOfTheRfcExampleKey) {
    EXPECT_EQ(computeAccept("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WsHandshake, KeyIsBase64OfSixteenBytes) {
    const std::uint8_t nonce[16] = {'t', 'h', 'e', ' ', 's', 'a', 'm', 'p', 'l', 'e', ' ', 'n', 'o', 'n', 'c', 'e'};
    EXPECT_EQ(makeKey(nonce), "dGhlIHNhbXBsZSBub25jZQ==");
}

TEST(WsHandshake, UpgradeRequestCarriesTheRequiredFields) {
    const std::string request =
        buildUpgradeRequest("/chat?x=1", "127.0.0.1:9001", "dGhlIHNhbXBsZSBub25jZQ==", "Origin: http://example\r\n");
    EXPECT_EQ(request,
              "GET /chat?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9001\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
              "Origin: http://example\r\n\r\n");
}

TEST(WsHandshake, ValidatesTheUpgradeResponse) {
    const std::string accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";
    const std::string good =
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";
    EXPECT_EQ(validateUpgradeResponse(good, accept).error, HandshakeError::None);
    EXPECT_EQ(validateUpgradeResponse("HTTP/1.1 101 x\r\nupgrade: WebSocket\r\nconnection: keep-alive, upgrade\r\n"
                                      "sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n",
                                      accept)
                  .error,
              HandshakeError::None);

    const HandshakeResult refused = validateUpgradeResponse("HTTP/1.1 403 Forbidden\r\n\r\n", accept);
    EXPECT_EQ(refused.error, HandshakeError::NotSwitching);
    EXPECT_EQ(refused.statusCode, 403);

    EXPECT_EQ(validateUpgradeResponse(
                  "HTTP/1.1 101 OK\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept + "\r\n\r\n", accept)
                  .error,
              HandshakeError::MissingUpgrade);
    EXPECT_EQ(validateUpgradeResponse(
                  "HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: " + accept + "\r\n\r\n", accept)
                  .error,
              HandshakeError::MissingConnection);
    EXPECT_EQ(validateUpgradeResponse("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                      "Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n",
                                      accept)
                  .error,
              HandshakeError::BadAccept);
    EXPECT_EQ(
        validateUpgradeResponse("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", accept).error,
        HandshakeError::BadAccept);
    EXPECT_EQ(validateUpgradeResponse("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                      "Sec-WebSocket-Accept: " +
                                          accept + "\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n",
                                      accept)
                  .error,
              HandshakeError::UnexpectedExtension);
    EXPECT_EQ(validateUpgradeResponse("HTTP/1.0 101 OK\r\n\r\n", accept).error, HandshakeError::BadResponse);
    EXPECT_EQ(validateUpgradeResponse("HTTP/1.1 101 OK\r\nbad line\r\n\r\n", accept).error,
              HandshakeError::BadResponse);
}

}  // namespace
}  // namespace loopwire::lwload
