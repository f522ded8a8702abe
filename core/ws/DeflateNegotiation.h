// DeflateNegotiation: the server's side of permessage-deflate negotiation (RFC 7692 section 5 and 7.1): reads the
// client's Sec-WebSocket-Extensions offers and answers the first one it can honour within what the server is
// configured to do.
//
// The header is parsed by RFC 6455 section 9.1's grammar (extensions separated by commas, parameters by
// semicolons, values tokens or quoted strings); a header that does not parse is declined as a whole. An offer with
// an unknown parameter, a parameter given twice or a value out of range is skipped, and the next one considered
// (RFC 7692 section 5.1). Offers of other extensions are skipped. Pure: no allocation, no I/O.
//
// What each parameter does to the agreement:
//   server_no_context_takeover   the server must reset its compressor per message; the server also sets it
//                                itself when its compressor is shared (settings.serverNoContextTakeover).
//   server_max_window_bits=N     the server must compress with a window of at most 2^N; N = 8 is declined,
//                                because zlib's raw deflate cannot use a window under 2^9.
//   client_no_context_takeover   the client resets its compressor per message; the server asks for it, offered or
//                                not, when its decompressor is shared (settings.clientNoContextTakeover).
//   client_max_window_bits[=N]   the client accepts a window limit: the server answers the smaller of N (15 when
//                                absent) and its decompressor's window. Without it the client may use 2^15, and
//                                the agreement says so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::ws {

// The window bits permessage-deflate allows (RFC 7692 section 7.1.2), and the smallest zlib can compress with.
constexpr std::uint8_t kMinWindowBits = 8;
constexpr std::uint8_t kMaxWindowBits = 15;
constexpr std::uint8_t kMinCompressorWindowBits = 9;
// The longest response value format() writes.
constexpr std::size_t kMaxDeflateResponseBytes = 128;

// What the server is prepared to do (from the compression option of a WebSocket behaviour).
struct DeflateSettings {
    bool enabled = false;
    bool serverNoContextTakeover = false;               // a shared compressor keeps no context between messages
    std::uint8_t serverMaxWindowBits = kMaxWindowBits;  // the dedicated compressor's window
    bool clientNoContextTakeover = false;               // a shared decompressor needs messages without context
    std::uint8_t clientMaxWindowBits = kMaxWindowBits;  // the decompressor's window
};

struct DeflateAgreement {
    bool accepted = false;
    bool serverNoContextTakeover = false;
    std::uint8_t serverMaxWindowBits = kMaxWindowBits;  // the window the server compresses with
    bool clientNoContextTakeover = false;
    std::uint8_t clientMaxWindowBits = kMaxWindowBits;  // the window the client may use: the decompressor's
    bool announceServerWindow = false;                  // the client offered server_max_window_bits: answer with it
    bool announceClientWindow = false;                  // the client offered client_max_window_bits: answer with it

    // The agreement for the offers in header (the value of every Sec-WebSocket-Extensions field, joined with
    // commas); accepted is false when compression is off or no offer can be honoured.
    static DeflateAgreement negotiate(std::string_view header, const DeflateSettings& settings) noexcept;

    // Writes the Sec-WebSocket-Extensions value of the response into out (at least kMaxDeflateResponseBytes);
    // returns its length, 0 when not accepted.
    std::size_t format(char* out) const noexcept;
};

}  // namespace loopwire::ws
