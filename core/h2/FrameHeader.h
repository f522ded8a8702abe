// FrameHeader: the 9 bytes before every HTTP/2 frame (RFC 9113 section 4.1), the frame types and flags the server
// acts on, and the error codes of RFC 9113 section 7.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::h2 {

inline constexpr std::size_t kFrameHeaderBytes = 9;
// SETTINGS_MAX_FRAME_SIZE's initial and smallest value (RFC 9113 section 6.5.2); loopwire never announces more, so
// it is also the largest frame a client may send it.
inline constexpr std::uint32_t kDefaultMaxFrameSize = 16384;
// The largest value SETTINGS_MAX_FRAME_SIZE may take.
inline constexpr std::uint32_t kLargestMaxFrameSize = (1u << 24) - 1;
// What a client sends first on every connection (RFC 9113 section 3.4), before its SETTINGS frame.
inline constexpr std::string_view kConnectionPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

enum class FrameType : std::uint8_t {
    Data = 0x0,
    Headers = 0x1,
    Priority = 0x2,
    RstStream = 0x3,
    Settings = 0x4,
    PushPromise = 0x5,
    Ping = 0x6,
    GoAway = 0x7,
    WindowUpdate = 0x8,
    Continuation = 0x9,
};
// Types past Continuation are extensions; a receiver ignores the ones it does not know (RFC 9113 section 4.1).
inline constexpr std::uint8_t kLastKnownFrameType = 0x9;

namespace flags {
inline constexpr std::uint8_t kEndStream = 0x1;   // DATA, HEADERS
inline constexpr std::uint8_t kAck = 0x1;         // SETTINGS, PING
inline constexpr std::uint8_t kEndHeaders = 0x4;  // HEADERS, CONTINUATION
inline constexpr std::uint8_t kPadded = 0x8;      // DATA, HEADERS
inline constexpr std::uint8_t kPriority = 0x20;   // HEADERS
}  // namespace flags

enum class ErrorCode : std::uint32_t {
    NoError = 0x0,
    ProtocolError = 0x1,
    InternalError = 0x2,
    FlowControlError = 0x3,
    SettingsTimeout = 0x4,
    StreamClosed = 0x5,
    FrameSizeError = 0x6,
    RefusedStream = 0x7,
    Cancel = 0x8,
    CompressionError = 0x9,
    ConnectError = 0xa,
    EnhanceYourCalm = 0xb,
    InadequateSecurity = 0xc,
    Http11Required = 0xd,
};

std::string_view describe(ErrorCode code) noexcept;

struct FrameHeader {
    std::uint32_t length = 0;  // of the payload, 24 bits
    std::uint8_t type = 0;     // a FrameType, or an extension's type
    std::uint8_t flags = 0;
    std::uint32_t streamId = 0;  // 31 bits; the reserved bit is dropped as the RFC says

    FrameType frameType() const noexcept { return static_cast<FrameType>(type); }
    bool has(std::uint8_t flag) const noexcept { return (flags & flag) != 0; }
};

// data: at least kFrameHeaderBytes.
inline FrameHeader readFrameHeader(const unsigned char* data) noexcept {
    FrameHeader header;
    header.length = (std::uint32_t{data[0]} << 16) | (std::uint32_t{data[1]} << 8) | data[2];
    header.type = data[3];
    header.flags = data[4];
    header.streamId =
        ((std::uint32_t{data[5]} << 24) | (std::uint32_t{data[6]} << 16) | (std::uint32_t{data[7]} << 8) | data[8]) &
        0x7fffffffu;
    return header;
}

// Writes kFrameHeaderBytes; returns the end.
inline char* writeFrameHeader(char* out, std::uint32_t length, FrameType type, std::uint8_t flagBits,
                              std::uint32_t streamId) noexcept {
    out[0] = static_cast<char>(length >> 16);
    out[1] = static_cast<char>(length >> 8);
    out[2] = static_cast<char>(length);
    out[3] = static_cast<char>(type);
    out[4] = static_cast<char>(flagBits);
    out[5] = static_cast<char>((streamId >> 24) & 0x7f);
    out[6] = static_cast<char>(streamId >> 16);
    out[7] = static_cast<char>(streamId >> 8);
    out[8] = static_cast<char>(streamId);
    return out + kFrameHeaderBytes;
}

inline std::uint32_t readUint32(const unsigned char* data) noexcept {
    return (std::uint32_t{data[0]} << 24) | (std::uint32_t{data[1]} << 16) | (std::uint32_t{data[2]} << 8) | data[3];
}

}  // namespace loopwire::h2
