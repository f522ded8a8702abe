// ResponseParser: the incremental, strict parser of HTTP/1.x responses that lwload counts with.
//
// Pure: bytes in, results out; never sees a socket. A load generator that miscounts is worse than none, so it
// parses every byte a server sends: the status line, every header field (syntax checked; Content-Length,
// Transfer-Encoding and Connection interpreted), and the body, delimited by Content-Length, by chunked coding
// (sizes, extensions, CRLFs and trailers checked) or by the end of the connection. Interim 1xx responses are
// skipped. Anything else is an error, counted by the caller as a protocol error.
//
// Contract
// - feed(input) consumes a prefix of input and stops at the end of a response (Complete), at an error (Error) or
//   at the end of input (NeedMore: all of input was consumed). Bytes after result.consumed belong to the next
//   response. Call it again with the rest, after reset() when the previous call returned Complete.
// - The parser keeps no reference to input: a line split between two reads is copied into a line buffer owned
//   by the parser, whose capacity is kept across reset(); once it has grown to the longest split line seen, no
//   call allocates. Body bytes are skipped without a copy.
// - After Complete: statusCode(), keepAlive() (false for "Connection: close", for HTTP/1.0 without keep-alive and
//   for a body delimited by the end of the connection) and bodyBytes() describe the response.
// - finish() is called when the server closes the connection. It completes a response whose body runs to the
//   end of the connection; between responses it returns NeedMore (a clean close); otherwise Error Truncated.
// - After Error the parser stays in the error state until reset().
// - setHeadRequest(true): the responses answer HEAD requests, so they carry no body whatever their headers say.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace loopwire::lwload {

enum class ResponseStatus : std::uint8_t { Complete, NeedMore, Error };

enum class ResponseError : std::uint8_t {
    None,
    BadLineEnding,        // a line ended with LF alone
    LineTooLong,          // a line longer than kMaxLineBytes
    HeadTooLarge,         // head (or trailer section) longer than kMaxHeadBytes
    TooManyHeaders,       // more than kMaxHeaderCount fields
    BadStatusLine,        // not "HTTP/1.x SP 3DIGIT [SP reason]"
    BadHeader,            // a field line that is not "token: value", or an obs-fold
    BadContentLength,     // not a decimal number, too large, or two different values
    BadTransferEncoding,  // chunked applied twice or not last
    ConflictingFraming,   // both Content-Length and Transfer-Encoding
    BadChunkSize,         // not hex, more than kMaxChunkSizeDigits digits, or a bad extension
    BadChunkEnd,          // chunk data not followed by CRLF
    UnexpectedUpgrade,    // 101 Switching Protocols to a plain HTTP request
    TooManyInterim,       // more than kMaxInterimResponses 1xx responses before the final one
    Truncated,            // the connection ended inside a response
};

const char* responseErrorName(ResponseError error) noexcept;

struct ResponseResult {
    ResponseStatus status;
    ResponseError error;   // meaningful when status == Error
    std::size_t consumed;  // bytes of input consumed by this call
};

class ResponseParser {
public:
    ResponseResult feed(std::string_view input);
    ResponseResult finish() noexcept;
    void reset() noexcept;

    void setHeadRequest(bool head) noexcept { headRequest_ = head; }

    // True when no byte of the next response has been seen (only meaningful before Complete).
    bool idle() const noexcept { return state_ == State::StatusLine && !started_; }

    int statusCode() const noexcept { return statusCode_; }
    bool keepAlive() const noexcept { return keepAlive_; }
    std::uint64_t bodyBytes() const noexcept { return bodyBytes_; }

private:
    enum class State : std::uint8_t {
        StatusLine,
        HeaderLine,
        Body,  // bodyRemaining_ bytes to skip
        BodyUntilClose,
        ChunkSizeLine,
        ChunkData,     // bodyRemaining_ bytes of the current chunk to skip
        ChunkDataEnd,  // the CRLF after chunk data
        TrailerLine,
        Done,
        Failed,
    };

    // Takes the next line (without its CRLF) starting at input[pos]. Returns false and consumes the rest of input
    // when no LF follows; true with line set otherwise. line points into input or into lineBuffer_.
    bool takeLine(std::string_view input, std::size_t& pos, std::string_view& line, ResponseError& error);
    ResponseError onLine(std::string_view line) noexcept;
    ResponseError onStatusLine(std::string_view line) noexcept;
    ResponseError onHeaderLine(std::string_view line) noexcept;
    ResponseError onEndOfHead() noexcept;
    ResponseError onChunkSizeLine(std::string_view line) noexcept;
    ResponseError onTrailerLine(std::string_view line) noexcept;
    void resetHead() noexcept;

    State state_ = State::StatusLine;
    bool started_ = false;
    bool headRequest_ = false;
    bool keepAlive_ = true;
    bool http10_ = false;
    bool closeToken_ = false;
    bool keepAliveToken_ = false;
    bool hasContentLength_ = false;
    bool hasTransferEncoding_ = false;
    bool chunked_ = false;
    bool lineBuffered_ = false;  // lineBuffer_ holds the start of the current line
    bool crSeen_ = false;        // ChunkDataEnd: the CR has been seen
    int statusCode_ = 0;
    std::uint32_t headerCount_ = 0;
    std::uint32_t interimCount_ = 0;
    std::size_t headBytes_ = 0;
    std::uint64_t contentLength_ = 0;
    std::uint64_t bodyRemaining_ = 0;
    std::uint64_t bodyBytes_ = 0;
    ResponseError error_ = ResponseError::None;
    std::string lineBuffer_;
};

}  // namespace loopwire::lwload
