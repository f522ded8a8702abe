// RunStats: what a worker counts, and the one JSON line lwload prints.
//
// Each worker thread owns a RunStats and is the only one to touch it while it runs; the main thread merges them
// after join(). Counting is plain increments: no atomics, no allocation.
#pragma once

#include "LatencyHistogram.h"

#include <cstdint>
#include <string>

namespace loopwire::lwload {

struct ErrorCounts {
    std::uint64_t connect = 0;   // connect() failed or timed out
    std::uint64_t read = 0;      // read failed, or the server closed the connection with requests outstanding
    std::uint64_t write = 0;     // write failed
    std::uint64_t protocol = 0;  // a response (frame, handshake) that does not parse, or an unsolicited one
    std::uint64_t timeout = 0;   // a request or echo outstanding for longer than --timeout
    std::uint64_t verify = 0;    // ws: an echo that differs from the message sent
    std::uint64_t tls = 0;       // https, wss: a TLS handshake that failed, or a record that does not decrypt

    std::uint64_t total() const noexcept { return connect + read + write + protocol + timeout + verify + tls; }
};

struct RunStats {
    std::uint64_t requests = 0;       // complete responses (ws: verified echoes; fanout: verified deliveries)
    std::uint64_t non2xx = 0;         // complete responses whose status is not 2xx (ws: refused upgrades)
    std::uint64_t bytesRead = 0;      // every byte read from the sockets
    std::uint64_t reconnects = 0;     // connections reopened (Connection: close, errors, timeouts)
    std::uint64_t tlsHandshakes = 0;  // https, wss: TLS handshakes completed
    std::uint64_t tlsResumed = 0;     // of which resumed a session (SSL_session_reused)
    ErrorCounts errors;
    LatencyHistogram latency;  // nanoseconds from writing a request (batch) to the end of its response

    void merge(const RunStats& other) noexcept;
    void reset() noexcept;
};

struct RunReport {
    const char* mode = "http";  // "http", "ws" or "fanout"
    std::string url;
    std::uint32_t connections = 0;
    std::uint32_t threads = 0;
    std::uint32_t pipeline = 1;
    double durationSeconds = 0.0;    // measured: from the end of the warm-up to the end of the run
    double clientCpuSeconds = 0.0;   // user + system CPU time lwload used, warm-up included
    std::uint64_t messageBytes = 0;  // ws and fanout only
    bool text = false;               // ws and fanout only
    bool tls = false;                // https://, wss://: the line gains its "tls" object
    bool reconnect = false;          // http --reconnect: one connection per request batch
    RunStats stats;
};

// One line of JSON, no trailing newline. Field order is fixed; see docs/lwload.md.
std::string formatJson(const RunReport& report);

}  // namespace loopwire::lwload
