// HttpError: every way a request can be refused, as a value.
//
// The parser and the chunked decoder return these; the connection answers each with the prepared response of
// statusFor(error) and closes the connection (after the response is written), because after a framing error
// the position of the next request in the byte stream is unknown.
#pragma once

#include <cstdint>
#include <string_view>

namespace loopwire {

enum class HttpError : std::uint8_t {
    None = 0,
    BadRequestLine,            // 400: the request line is not `method SP target SP HTTP/x.y CRLF`
    BadMethod,                 // 400: empty method, a non-token byte, or longer than kMaxMethodBytes
    BadTarget,                 // 400: empty target or a byte not allowed in a request-target
    TargetTooLong,             // 414: request-target longer than kMaxRequestTargetBytes
    UnsupportedVersion,        // 505: HTTP/2.0, HTTP/0.9 and anything but HTTP/1.0 and HTTP/1.1
    HeaderSectionTooLarge,     // 431: the head is longer than kMaxHeaderSectionBytes
    TooManyHeaders,            // 431: more than kMaxHeaderCount header fields
    BadHeaderName,             // 400: empty name, a non-token byte, or whitespace before the colon
    BadHeaderValue,            // 400: NUL, or a control byte other than HTAB, in a field value
    ObsoleteLineFolding,       // 400: a header line that starts with SP or HTAB (obs-fold)
    BareLineEnding,            // 400: a line ended by a lone CR or a lone LF
    MissingHost,               // 400: an HTTP/1.1 request without Host
    RepeatedHost,              // 400: more than one Host field
    BadContentLength,          // 400: Content-Length that is not 1*DIGIT, overflows, or differs between fields
    ContentLengthWithChunked,  // 400: both Transfer-Encoding and Content-Length
    BadTransferEncoding,       // 400: Transfer-Encoding whose last coding is not chunked, or chunked twice
    BadChunkSize,              // 400: a chunk-size that is not hex digits
    ChunkSizeOverflow,         // 400: a chunk-size with more than kMaxChunkSizeDigits digits or over 2^63-1
    ChunkExtensionTooLong,     // 400: chunk extensions longer than kMaxChunkExtensionBytes
    BadChunkExtension,         // 400: a malformed chunk extension
    BadChunkTerminator,        // 400: chunk data not followed by CRLF
    TrailerSectionTooLarge,    // 431: trailers longer than kMaxTrailerSectionBytes
    BadTrailer,                // 400: a malformed trailer field
};

// The status code sent for an error: 400, 414, 431 or 505. 0 for HttpError::None.
std::uint16_t statusFor(HttpError error) noexcept;

// A short stable name for logs and tests, e.g. "bad-header-name".
std::string_view nameOf(HttpError error) noexcept;

// The complete prepared response (status line, Content-Length, Connection: close, blank line, short body)
// for an error. Static storage; never allocates.
std::string_view cannedResponseFor(HttpError error) noexcept;

}  // namespace loopwire
