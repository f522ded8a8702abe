// HttpParser: the zero-copy, incremental parser of HTTP/1.x request heads (request line and header fields).
//
// Pure: it sees bytes only, never a socket or the loop, and allocates nothing.
//
// Contract
// - parse(data, length, head) parses one request head that starts at data[0].
//   * Complete: head is filled and result.consumed is the length of the head, through the blank line that ends
//     it (leading empty lines before the request line, which RFC 9112 lets a server ignore, are included).
//     The body, if any, follows at data[consumed]; its framing is head.framing.
//   * NeedMore: the bytes so far are a valid prefix of a head. Call parse() again with the same bytes followed by
//     more (the buffer may have moved or grown); the parser resumes where it stopped and never rescans what it
//     has validated. "The same bytes" means the bytes as the previous call left them (it lowercased header
//     names in place), so a caller that moves them must copy its buffer, not re-read the original input.
//     A head longer than kMaxHeaderSectionBytes is an error, not NeedMore.
//   * Error: result.error says why. The error is reported as soon as the bytes that prove it have arrived, so an
//     invalid but incomplete head is refused without waiting for the rest.
//   After Complete or Error the parser is ready for the next request (it resets itself).
// - parse() writes to the buffer: header names are lowercased in place, so lookups take a lower-case key.
// - Every string_view in head points into data and is valid while those bytes are.
// - Strict RFC 9112 framing; see HttpError for every refusal and docs/decisions/http-parser.md for the rules.
#pragma once

#include "../base/Limits.h"
#include "HttpError.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire {

enum class ParseStatus : std::uint8_t { Complete, NeedMore, Error };

enum class BodyFraming : std::uint8_t {
    None,           // no body: neither Content-Length nor Transfer-Encoding (or Content-Length: 0)
    ContentLength,  // head.contentLength bytes follow
    Chunked,        // a chunked body follows; decode it with ChunkedDecoder
};

struct HttpHeader {
    std::string_view name;   // lower-case (lowercased in place)
    std::string_view value;  // without leading and trailing SP/HTAB
};

struct RequestHead {
    std::string_view method;     // as sent, case preserved (methods are case-sensitive)
    std::string_view target;     // the request-target as sent
    std::string_view path;       // target up to the first '?'
    std::string_view query;      // target after the first '?', without it; empty when there is none
    std::uint8_t httpMinor = 1;  // 0 for HTTP/1.0, 1 for HTTP/1.1
    BodyFraming framing = BodyFraming::None;
    std::uint64_t contentLength = 0;  // meaningful when framing == ContentLength
    bool keepAlive = true;            // HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with "keep-alive"
    bool expectContinue = false;      // "Expect: 100-continue" (case-insensitive)
    bool upgrade = false;             // method CONNECT, or an Upgrade field with "upgrade" in Connection
    std::uint16_t headerCount = 0;
    HttpHeader headers[limits::kMaxHeaderCount];

    // The value of the first field named lowerCaseName, or an empty view. O(headerCount).
    std::string_view header(std::string_view lowerCaseName) const noexcept;
};

struct ParseResult {
    ParseStatus status;
    HttpError error;       // meaningful when status == Error
    std::size_t consumed;  // meaningful when status == Complete
};

class HttpParser {
public:
    ParseResult parse(char* data, std::size_t length, RequestHead& head) noexcept;

    // Forgets a partial head (the connection dropped it).
    void reset() noexcept;

    // Whether header names and values are scanned 16 bytes at a time with SSE2 (on x86-64, where SSE2 is always
    // there; elsewhere only the portable 8-byte scan exists and this is false). Tests and the fuzzer turn it off
    // to run the portable path over the same inputs; every parser of the process follows. Not thread-safe.
    static bool vectorScanning() noexcept;
    static void setVectorScanningForTesting(bool enabled) noexcept;

private:
    // One validated header field line, as offsets from data[0]. Offsets fit in 16 bits because the whole head
    // is bounded by kMaxHeaderSectionBytes (checked in HttpParser.cpp).
    struct FieldOffsets {
        std::uint16_t nameStart;
        std::uint16_t nameLength;
        std::uint16_t valueStart;
        std::uint16_t valueLength;
    };

    // Inlined into parse(), for every field line runs it.
    [[gnu::always_inline]] inline HttpError onFieldName(std::string_view name) noexcept;
    HttpError onFieldLine(std::string_view value) noexcept;
    ParseResult complete(char* data, std::size_t consumed, RequestHead& head) noexcept;

    // Resumption state: how far the bytes are validated and what the parse found so far. Offsets, never
    // pointers, because the buffer may move between calls.
    std::uint8_t phase_ = 0;  // where in the grammar position_ is
    std::uint8_t httpMinor_ = 1;
    std::uint8_t fieldKind_ = 0;     // which special field, if any, the field line being read is
    std::uint16_t flags_ = 0;        // what the special fields said so far (see HttpParser.cpp)
    std::uint16_t headerCount_ = 0;  // complete field lines recorded in fields_
    std::uint32_t position_ = 0;     // bytes of data validated so far
    std::uint32_t methodStart_ = 0;  // first byte of the method (after leading empty lines)
    std::uint32_t targetStart_ = 0;
    std::uint32_t queryMark_ = 0;  // offset of the first '?' of the target; 0 when none seen
    std::uint32_t targetEnd_ = 0;
    std::uint32_t elementStart_ = 0;  // version start, or the name of the field line being read
    std::uint32_t nameEnd_ = 0;       // the colon of the field line being read
    std::uint32_t valueStart_ = 0;    // first byte of its value after OWS
    std::uint32_t valueEnd_ = 0;      // one past the last non-OWS byte of its value seen so far
    std::uint64_t contentLength_ = 0;
    std::uint64_t pendingLength_ = 0;  // the digits of the Content-Length value being read
    FieldOffsets fields_[limits::kMaxHeaderCount] = {};
};

}  // namespace loopwire
