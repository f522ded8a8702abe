// Every bound lwload puts on a run and on what a server may send it, as a named constant.
//
// A load generator that can be pointed at a server by a script must never run unbounded: the run-time caps here
// are enforced by Options (refused at parse time) and by the workers (checked after every epoll_wait). The
// peer-input limits keep a broken or hostile server from growing lwload's memory; each has its own error value.
#pragma once

#include <cstddef>
#include <cstdint>

namespace loopwire::lwload::limits {

// Warm-up plus measured duration, and the time limit of a --requests run. Past it: refused at parse time.
inline constexpr double kMaxRunSeconds = 600.0;
// Connections in one run (over all threads).
inline constexpr std::uint32_t kMaxConnections = 100000;
// Worker threads, each with its own epoll instance.
inline constexpr std::uint32_t kMaxThreads = 256;
// Requests written back to back on one connection before the first response is awaited.
inline constexpr std::uint32_t kMaxPipeline = 1024;
// --requests N.
inline constexpr std::uint64_t kMaxRequests = 1'000'000'000'000ULL;
// A request body (--body-size or --body-file).
inline constexpr std::size_t kMaxBodyBytes = 64 * 1024 * 1024;
// A WebSocket message sent by lwload (--size), and any message a server sends back.
inline constexpr std::size_t kMaxMessageBytes = 64 * 1024 * 1024;
// Messages a fanout run keeps in flight at most (--window).
inline constexpr std::uint32_t kMaxFanoutWindow = 1024;
// fanout --settle: the longest wait between the last subscriber joining and the first message. Past it: a usage
// error (the wait counts against the join time, kMaxFanoutJoinNs).
inline constexpr std::uint32_t kMaxFanoutSettleMs = 5000;
// How long a fanout run waits, past its planned end, for every subscriber to join before the measured time
// begins; a run whose subscribers cannot all join ends then with nothing counted.
inline constexpr std::int64_t kMaxFanoutJoinNs = 5'000'000'000;
// Connections of a fanout run that connect and handshake at the same time. A thousand opened at once overflow a
// server's accept queue (uSockets and Node listen with a backlog of 511 or 512), and TCP retries the dropped
// ones only a second later.
inline constexpr std::uint32_t kMaxJoiningConnections = 128;

// One line of a response head (status line, header field, chunk-size line, trailer field), CRLF excluded.
inline constexpr std::size_t kMaxLineBytes = 8 * 1024;
// The whole response head: status line and header fields, or the trailer section of a chunked body.
inline constexpr std::size_t kMaxHeadBytes = 64 * 1024;
// Header fields in one response head (and trailer fields in one trailer section).
inline constexpr std::size_t kMaxHeaderCount = 256;
// Hex digits of a chunk size, leading zeros included.
inline constexpr std::size_t kMaxChunkSizeDigits = 16;
// Interim (1xx) responses before the final one.
inline constexpr std::size_t kMaxInterimResponses = 16;
// The WebSocket upgrade response head.
inline constexpr std::size_t kMaxHandshakeBytes = 16 * 1024;

// The receive buffer of a worker thread, shared by all its connections (the parsers keep no reference to it).
inline constexpr std::size_t kRecvBufferBytes = 64 * 1024;
// Events taken from epoll per epoll_wait.
inline constexpr int kMaxEpollEvents = 512;
// How often each worker checks for timed-out requests and reconnects connections that are backing off. It also
// bounds how late a worker notices the end of the run or a SIGINT.
inline constexpr std::int64_t kSweepIntervalNs = 50'000'000;
// How long a connection waits after an error (failed connect, reset, protocol error, refused handshake) before
// it tries again.
inline constexpr std::int64_t kReconnectBackoffNs = 100'000'000;

}  // namespace loopwire::lwload::limits
