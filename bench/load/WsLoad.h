// WsLoad: the WebSocket echo worker. One thread, one epoll instance, a slice of the connections.
//
// Each connection performs the opening handshake (checking Sec-WebSocket-Accept), then sends one message,
// waits for its echo, compares the echo byte for byte with what it sent, and sends the next message. Messages
// differ: the first 8 payload bytes carry the connection's message counter, so a stale or misrouted echo is a
// verify error, not a success. Server frames may be fragmented; pings are answered with pongs; a close from
// the server is counted as a read error. After any error the connection is reopened after kReconnectBackoffNs;
// after a timeout, at once.
//
// With TLS (wss://, config.tls) the connection's TlsSession carries every byte, and the upgrade request is sent once
// the TLS handshake is done.
//
// Contract
// - Construct on any thread; run() on the thread that owns the worker, once. stats() and endNs() are read after
//   run() has returned (after join()).
// - Each connection holds its masked frame, built once at construction (the mask is random per connection and
//   reused for every message: servers cannot tell, and re-masking each message would cost the generator what it
//   must not). Sending a message rewrites the 8 counter bytes only. No allocation per message.
#pragma once

#include "RunStats.h"
#include "Socket.h"
#include "Tls.h"
#include "WorkerLoop.h"
#include "WsClientState.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace loopwire::lwload {

struct WsWorkerConfig {
    const ResolvedTarget* target = nullptr;
    std::string_view path;          // request-target of the upgrade request
    std::string_view authority;     // Host header value
    std::string_view extraHeaders;  // complete field lines, each ending in CRLF
    std::uint64_t messageBytes = 20;
    bool text = false;
    std::uint32_t connections = 0;    // this worker's share
    std::uint64_t seed = 1;           // for keys and masks
    const TlsContext* tls = nullptr;  // wss://: the TLS settings; outlives the worker. nullptr: ws://
    RunPlan plan;
};

class WsWorker {
public:
    explicit WsWorker(const WsWorkerConfig& config);

    void run();

    const RunStats& stats() const noexcept { return stats_; }
    RunStats& stats() noexcept { return stats_; }
    std::int64_t endNs() const noexcept { return endNs_; }
    const char* firstProtocolError() const noexcept { return firstProtocolError_; }

    // For runWorkerLoop.
    void onEvent(void* data, std::uint32_t events, std::int64_t now);
    void sweep(std::int64_t now);

    static constexpr std::size_t kCounterBytes = 8;

private:
    // Connecting covers the TCP connect and, with TLS, the TLS handshake; Handshake is the WebSocket upgrade.
    enum class State : std::uint8_t { Closed, Connecting, Handshake, Open };

    struct Connection {
        int fd = -1;
        std::uint32_t generation = 0;
        State state = State::Closed;
        bool wantWrite = false;
        bool frameWriting = false;  // the message frame is (partly) unsent
        bool awaiting = false;      // a message was sent and its echo is not complete
        bool mismatch = false;      // the echo so far differs from the message
        std::int64_t sentNs = 0;    // when the message was sent (connecting, handshaking: when that began)
        std::int64_t retryAtNs = 0;
        std::uint64_t counter = 0;
        std::uint64_t received = 0;               // echo payload bytes received so far
        std::uint8_t prefix[kCounterBytes] = {};  // unmasked counter bytes of the message in flight
        std::size_t headerBytes = 0;              // frame header length: the payload starts there
        std::size_t frameOffset = 0;
        std::vector<std::uint8_t> frame;  // the whole masked frame
        WsClientState ws;                 // handshake, waiting control frame, parser, mask
        TlsSession tls;                   // active on a wss:// connection once its TCP connect has completed
    };

    void open(Connection& c, std::int64_t now);
    void continueOpen(Connection& c, std::uint32_t events, std::int64_t now);
    void closeSocket(Connection& c);
    void reopen(Connection& c, std::int64_t now, bool backoff);
    void startHandshake(Connection& c, std::int64_t now);
    void onReadable(Connection& c);
    bool onHandshakeData(Connection& c, std::string_view data, std::int64_t now);
    bool onFrameData(Connection& c, std::string_view data, std::int64_t now);
    void verifyPiece(Connection& c, std::string_view piece) noexcept;
    void sendMessage(Connection& c, std::int64_t now);
    void flush(Connection& c, std::int64_t now);
    void protocolError(Connection& c, const char* what, std::int64_t now);

    WsWorkerConfig config_;
    RunPlan plan_;
    Epoll epoll_;
    Random random_;
    std::vector<std::uint8_t> pattern_;  // the unmasked payload, counter bytes aside
    std::vector<Connection> connections_;
    std::unique_ptr<char[]> recvBuffer_;
    RunStats stats_;
    std::uint64_t outstanding_ = 0;
    std::int64_t endNs_ = 0;
    std::size_t prefixBytes_ = 0;  // min(messageBytes, kCounterBytes)
    bool measuring_ = false;
    bool running_ = false;
    const char* firstProtocolError_ = nullptr;
};

}  // namespace loopwire::lwload
