// RespFramer: finds where each reply a Redis server sends ends, in the RESP2 and RESP3 protocols
// (redis.io/docs/latest/develop/reference/protocol-spec), so that the client acts on whole replies only.
//
// Pure: it reads bytes and returns a result, never sees a socket, and allocates nothing. next() is given every
// byte received since the current reply began (the caller keeps the bytes of an unfinished reply in front of the
// new ones) and answers with the one result shape of every loopwire parser:
//   - Complete: a whole reply ends `consumed` bytes in; read it with RespReader, then call next() on the rest;
//   - NeedMore: the bytes are the start of a reply; call again with the same bytes and more after them;
//   - Error: the bytes are no RESP (the error says how): the connection must be dropped.
// It resumes where it stopped: every element already seen whole is not read again, and a bulk string's payload
// is never scanned (only its length is checked), so a large message costs one header line per call.
//
// Every RESP3 type is framed but attributes ('|'), which Redis sends only to clients that ask for them (CLIENT
// TRACKING with OPTIN): one is an Error here. Limits (named, each with its error): a header line's length, a bulk
// string's length, an aggregate's element count and the nesting depth.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::resp {

// A type line longer than this (a simple string or error without its CRLF) is an error: LineTooLong.
inline constexpr std::size_t kMaxLineBytes = 16 * 1024;
// A bulk string (or bulk error, verbatim string) longer than this is an error: BulkTooLong. Redis's own default
// for proto-max-bulk-len.
inline constexpr std::int64_t kMaxBulkBytes = 512LL * 1024 * 1024;
// An aggregate (array, map, set, push) of more elements than this is an error: TooManyElements.
inline constexpr std::int64_t kMaxAggregateElements = 1LL << 24;
// Aggregates nested deeper than this are an error: TooDeep (CLUSTER SHARDS, the deepest reply used, nests 4).
inline constexpr std::size_t kMaxDepth = 8;

enum class RespError : std::uint8_t {
    None,
    UnknownType,      // a first byte that starts no RESP type (or an attribute, see above)
    BadLength,        // a length or count that is not a decimal integer of -1 or more
    BadInteger,       // an integer reply (':') that is not a decimal 64-bit integer
    BadBoolean,       // a boolean ('#') other than t or f
    MissingCrlf,      // a bulk string's payload not followed by CRLF, or a line ending in a lone CR
    LineTooLong,      // kMaxLineBytes
    BulkTooLong,      // kMaxBulkBytes
    TooManyElements,  // kMaxAggregateElements
    TooDeep,          // kMaxDepth
};

// A short name for each error ("bad-length"), for logs and tests.
std::string_view nameOf(RespError error) noexcept;

enum class RespStatus : std::uint8_t { Complete, NeedMore, Error };

struct RespResult {
    RespStatus status = RespStatus::NeedMore;
    std::size_t consumed = 0;  // the reply's length, when Complete
    RespError error = RespError::None;
};

class RespFramer {
public:
    // See the file comment. After Complete or Error the framer is ready for the next reply.
    RespResult next(std::string_view bytes) noexcept;
    // Forgets a reply in progress (the connection was dropped).
    void reset() noexcept {
        offset_ = 0;
        depth_ = 0;
    }

private:
    RespResult fail(RespError error) noexcept {
        reset();
        return {RespStatus::Error, 0, error};
    }

    std::size_t offset_ = 0;                           // where the first element not yet seen whole begins
    std::size_t depth_ = 0;                            // open aggregates
    std::array<std::int64_t, kMaxDepth> remaining_{};  // elements each open aggregate still expects
};

}  // namespace loopwire::resp
