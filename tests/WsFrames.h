// WebSocket frames as a client makes and reads them, for the tests (tests/integration/WsTestClient over a socket,
// tests/unit/ws/ over a MemoryStream): the upgrade request, masked frames (well formed or deliberately not), close
// payloads, the server's frames taken from received bytes, and a few permessage-deflate helpers (zlib raw deflate,
// with the 00 00 FF FF tail stripped or restored as RFC 7692 section 7.2 says). Written apart from the server's
// codecs, so that a test does not check the server against itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace loopwire::test {

// The sample handshake of RFC 6455 section 1.3.
inline constexpr std::string_view kSampleKey = "dGhlIHNhbXBsZSBub25jZQ==";
inline constexpr std::string_view kSampleAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

// Opcodes as bytes, for frames the server must refuse as well as valid ones.
namespace op {
inline constexpr std::uint8_t kContinuation = 0x0;
inline constexpr std::uint8_t kText = 0x1;
inline constexpr std::uint8_t kBinary = 0x2;
inline constexpr std::uint8_t kClose = 0x8;
inline constexpr std::uint8_t kPing = 0x9;
inline constexpr std::uint8_t kPong = 0xA;
}  // namespace op

// The RSV bits of a frame's first byte.
inline constexpr std::uint8_t kRsv1 = 0x40;
inline constexpr std::uint8_t kRsv2 = 0x20;

// One frame as the server sent it.
struct Frame {
    bool fin = false;
    std::uint8_t rsv = 0;  // the RSV bits, in place (0x70 mask)
    std::uint8_t opcode = 0;
    bool masked = false;
    std::string payload;

    // For a close frame: its code (1005 when it has none) and reason.
    int closeCode() const;
    std::string closeReason() const;
};

// A GET upgrade request for path with the sample key; extraHeaders are whole header lines ("Name: value\r\n").
std::string upgradeRequest(std::string_view path = "/ws", std::string_view extraHeaders = {},
                           std::string_view key = kSampleKey);

// A client frame: masked (with a fixed, non-zero key) unless mask is false.
std::string clientFrame(std::uint8_t opcode, std::string_view payload, bool fin = true, std::uint8_t rsv = 0,
                        bool mask = true);
// A close frame's payload: the code (big-endian) and the reason.
std::string closePayload(int code, std::string_view reason = {});
// Takes the whole frame at the front of bytes (unmasked, when it was masked); nothing while it is partial.
std::optional<Frame> takeFrame(std::string& bytes);

// permessage-deflate: compresses a message as a client does (raw deflate, sync flush, tail removed), and inflates
// a message the server compressed.
std::string deflateMessage(std::string_view message);
std::optional<std::string> inflateMessage(std::string_view compressed);

}  // namespace loopwire::test
