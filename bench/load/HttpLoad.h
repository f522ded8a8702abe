// HttpLoad: the HTTP/1.1 worker. One thread, one epoll instance, a slice of the connections.
//
// Each connection writes a batch of `pipeline` requests (pre-built bytes, concatenated once per run), reads and
// parses every response, and writes the next batch when the whole batch has been answered. A response with
// "Connection: close" (or a body that runs to the end of the connection) is counted, then the connection is
// reopened at once. Latency is the time from writing a batch to the end of each of its responses.
//
// With TLS (https://, config.tls) the connection's TlsSession carries every byte, and a connection is open once its
// handshake is done. With `reconnect`, each connection is closed once its batch is answered and a new one opened:
// connect, handshake, batch, close, again; latency then runs from the connect.
//
// Errors (see ErrorCounts) close the connection; it is reopened after kReconnectBackoffNs, so that a server that
// refuses, resets or garbles every connection is not hammered in a busy loop. A timed-out connection is reopened
// at once. Requests lost with a connection are not counted; in a --requests run they are sent again.
//
// Contract
// - Construct on any thread; run() on the thread that owns the worker, once. stats() and endNs() are read after
//   run() has returned (after join()).
// - No allocation once run() has opened its connections: one receive buffer per worker, shared by its
//   connections (the parser keeps no reference to it); one parser per connection.
#pragma once

#include "ResponseParser.h"
#include "RunStats.h"
#include "Socket.h"
#include "Tls.h"
#include "WorkerLoop.h"

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace loopwire::lwload {

struct HttpWorkerConfig {
    const ResolvedTarget* target = nullptr;
    std::string_view requestBatch;  // `pipeline` copies of the request, back to back; outlives the worker
    std::size_t requestBytes = 0;   // the size of one request
    std::uint32_t pipeline = 1;
    std::uint32_t connections = 0;    // this worker's share
    bool headRequest = false;         // the method is HEAD: responses have no body
    bool reconnect = false;           // close each connection once its batch is answered, and open a new one
    const TlsContext* tls = nullptr;  // https://: the TLS settings; outlives the worker. nullptr: http://
    RunPlan plan;
};

class HttpWorker {
public:
    explicit HttpWorker(const HttpWorkerConfig& config);

    void run();

    const RunStats& stats() const noexcept { return stats_; }
    RunStats& stats() noexcept { return stats_; }
    std::int64_t endNs() const noexcept { return endNs_; }
    // The first protocol error seen, for the diagnostic lwload prints on stderr; nullptr when none.
    const char* firstProtocolError() const noexcept { return firstProtocolError_; }

    // For runWorkerLoop.
    void onEvent(void* data, std::uint32_t events, std::int64_t now);
    void sweep(std::int64_t now);

private:
    // Connecting covers the TCP connect and, with TLS, the handshake.
    enum class State : std::uint8_t { Closed, Connecting, Open };

    struct Connection {
        int fd = -1;
        std::uint32_t generation = 0;  // bumped on every close, so a caller can tell the socket was replaced
        State state = State::Closed;
        bool wantWrite = false;     // EPOLLOUT is registered
        std::uint32_t pending = 0;  // responses still expected for the batch in flight
        std::size_t writeOffset = 0;
        std::size_t writeLength = 0;
        std::int64_t sentNs = 0;     // when the batch was written (when connecting: when the connect began)
        std::int64_t openedNs = 0;   // when the connect began
        std::int64_t retryAtNs = 0;  // State::Closed: when to connect again
        ResponseParser parser;
        TlsSession tls;  // active on an https:// connection once its TCP connect has completed
    };

    void open(Connection& c, std::int64_t now);
    void closeSocket(Connection& c);
    void reopen(Connection& c, std::int64_t now, bool backoff);
    void startOver(Connection& c, std::int64_t now);
    void continueOpen(Connection& c, std::uint32_t events, std::int64_t now);
    void onConnected(Connection& c, std::int64_t now);
    void onReadable(Connection& c);
    bool onData(Connection& c, std::string_view data, std::int64_t now);
    void onEof(Connection& c, std::int64_t now);
    void countResponse(Connection& c, std::int64_t now);
    void issue(Connection& c, std::int64_t now);
    void flush(Connection& c, std::int64_t now);
    void protocolError(Connection& c, const char* what, std::int64_t now);

    HttpWorkerConfig config_;
    RunPlan plan_;
    Epoll epoll_;
    std::vector<Connection> connections_;
    std::unique_ptr<char[]> recvBuffer_;
    RunStats stats_;
    std::uint64_t outstanding_ = 0;  // requests written (or being written) and not yet answered
    std::int64_t endNs_ = 0;
    bool measuring_ = false;
    bool running_ = false;
    const char* firstProtocolError_ = nullptr;
};

}  // namespace loopwire::lwload
