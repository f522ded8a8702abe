// ClosePayload: the body of a WebSocket Close frame (RFC 6455 section 5.5.1), read and written.
//
// A close payload is empty, or a two-byte status code followed by a UTF-8 reason. read() checks what a peer sent:
// a one-byte payload, a code no endpoint may send (section 7.4: below 1000, 1004 to 1006, 1012 to 2999, which the
// RFC reserves, 5000 and up) and a reason that is not UTF-8 are errors, each with the code the server closes with
// (1002, or 1007 for the reason). write() formats the payload the server sends, cutting the reason to fit a
// control frame (123 bytes) on a character boundary. Pure: no allocation, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::ws {

// Codes with a meaning of their own (RFC 6455 section 7.4.1).
constexpr std::uint16_t kCloseNormal = 1000;
constexpr std::uint16_t kCloseGoingAway = 1001;
constexpr std::uint16_t kCloseProtocolError = 1002;
constexpr std::uint16_t kCloseUnsupportedData = 1003;
constexpr std::uint16_t kCloseNoStatus = 1005;  // never sent: what an empty close payload reads as
constexpr std::uint16_t kCloseAbnormal = 1006;  // never sent: a connection that ended without a close frame
constexpr std::uint16_t kCloseInvalidPayload = 1007;
constexpr std::uint16_t kClosePolicyViolation = 1008;
constexpr std::uint16_t kCloseMessageTooBig = 1009;
constexpr std::uint16_t kCloseInternalError = 1011;

// The longest reason a close frame can carry: 125 bytes of control payload less the code.
constexpr std::size_t kMaxCloseReasonBytes = 123;

struct ClosePayload {
    std::uint16_t code = kCloseNoStatus;
    std::string_view reason;  // a view into the payload read
    // 0 when the payload is valid; else the code to close the connection with (1002 or 1007).
    std::uint16_t failCode = 0;

    static ClosePayload read(std::string_view payload) noexcept;

    // Whether a peer may send code in a close frame (what read() accepts).
    static bool isSendableCode(std::uint16_t code) noexcept;
    // Whether loopwire puts code in a close frame it sends: the codes above, and 1012 to 1014, which IANA has
    // registered since RFC 6455 (service restart, try again later, bad gateway) and which browsers and the `ws`
    // library accept.
    static bool isWritableCode(std::uint16_t code) noexcept;

    // Writes the payload of a close frame with code and reason into out (at least 2 + kMaxCloseReasonBytes
    // bytes); returns its length. kCloseNoStatus (or 0) writes an empty payload. A longer reason is cut to the
    // last whole character that fits.
    static std::size_t write(std::uint16_t code, std::string_view reason, char* out) noexcept;
};

}  // namespace loopwire::ws
