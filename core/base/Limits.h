// Every limit loopwire enforces on peer input, as a named constant with a safe default.
//
// Each constant has its own error value and its own unit test. They are compile-time constants so the parsers
// can size fixed arrays with them; the per-connection timeouts, which users tune, are runtime options instead
// (see loopwire::ServerOptions).
#pragma once

#include <cstddef>
#include <cstdint>

namespace loopwire::limits {

// Request line plus header fields plus the blank line. Past it: 431 Request Header Fields Too Large.
inline constexpr std::size_t kMaxHeaderSectionBytes = 16 * 1024;
// Header fields in one request. Past it: 431.
inline constexpr std::size_t kMaxHeaderCount = 100;
// The request-target of the request line. Past it: 414 URI Too Long.
inline constexpr std::size_t kMaxRequestTargetBytes = 8 * 1024;
// The method token. Past it: 400 (the longest registered method, UNSUBSCRIBE, is 11 bytes; 501 would invite retries).
inline constexpr std::size_t kMaxMethodBytes = 32;
// Hex digits of a chunk size, leading zeros included. Past it, or a value over 2^63-1: 400.
inline constexpr std::size_t kMaxChunkSizeDigits = 16;
// Bytes of chunk extensions (after the size, before CRLF) in one chunk header line. Past it: 400.
inline constexpr std::size_t kMaxChunkExtensionBytes = 1024;
// Trailer section after the last chunk. Past it: 431.
inline constexpr std::size_t kMaxTrailerSectionBytes = 4 * 1024;
// Unsent response bytes one connection may hold before it stops parsing (and reading) further pipelined
// requests; it goes on once they have drained. Bounds what a peer that pipelines without reading costs.
inline constexpr std::size_t kMaxOutputBacklogBytes = 64 * 1024;
// Parameters (":name" segments) in one route pattern.
inline constexpr std::size_t kMaxRouteParameters = 16;

// A PROXY protocol header (version 2: its 16 fixed bytes and what its length field announces). Past it: the
// connection is closed. The address blocks take at most 216 bytes; the rest is TLVs, which balancers keep short.
inline constexpr std::size_t kMaxProxyHeaderBytes = 16 + 2048;

// Frames in one fragmented WebSocket message. Past it: close 1009. Bytes are bounded by maxPayloadLength
// already; this bounds the work of a message made of empty fragments (and leaves room for 4 MiB in 64-byte
// fragments).
inline constexpr std::size_t kMaxWebSocketFragments = 256 * 1024;

}  // namespace loopwire::limits
