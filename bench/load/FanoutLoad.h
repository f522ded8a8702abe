// FanoutLoad: the WebSocket fan-out worker. One thread, one epoll instance, one publisher and every subscriber.
//
// The subscribers connect to the URL's path with "role=sub" added to its query, the publisher with "role=pub"
// (fanoutRolePath). The server is expected to subscribe each subscriber to one topic when it opens and to publish
// every message the publisher sends to that topic. The publisher sends messages of messageBytes bytes whose first
// kCounterBytes payload bytes carry the message counter (1, 2, ...), and keeps at most `window` messages not yet
// received by every subscriber. Each subscriber checks that it receives every message, in counter order, whole
// and unchanged; each message it receives so is one delivery, the figure of the run (RunStats::requests), with
// its latency measured from the moment the publisher wrote the message.
//
// Membership. A subscriber counts in a message when it was a member when the message was published. A subscriber
// becomes a member once its handshake is done and no message is in flight (a message published while it was
// joining may or may not reach it, so it is admitted only between messages); the publisher holds its next
// message while any open subscriber waits to be admitted or any is missing, so every message goes to the full
// audience. The publisher first publishes when every subscriber is a member; the measured time begins then (or
// at the end of the warm-up, if later) and lasts the planned duration: opening the connections is not measured.
// When a subscriber is lost (closed by the server, a protocol error, a timeout), the messages it still owed are
// written off and it reconnects; when the publisher is lost, every message in flight is written off and the
// subscribers ignore any that still arrive.
//
// TLS (wss://, config.tls): every connection's TlsSession carries its bytes; joining includes the TLS handshake.
//
// socket.io (config.socketIo): each WebSocket carries engine.io 4 packets. The server opens with "0{...}", which
// the connection answers with a socket.io connect to the main namespace ("40"); the server's "40{...}" completes
// joining (a subscriber's room is joined by then). Pings ("2") get pongs ("3"). The message is the event packet
// 42["m","<payload>"] (text), the payload with its counter inside; the server emits it to the room unchanged, so
// a subscriber compares the whole packet as it compares a plain message.
//
// Stamped (config.stamped): the server puts "<epoch>:<offset>:" in front of each message, as loopwire does on a
// topic with history; a subscriber takes the stamp off before comparing the message, and the offsets it receives
// must increase (a stamp that is not one, or an offset not above the last, is a verify error).
//
// Errors. A message that is missing (a later one came first), a duplicate, or one whose size, opcode or bytes
// differ is a verify error; a data message to the publisher is a protocol error; a subscriber that has not
// received a message --timeout after it was published is a timeout and is reconnected.
//
// Contract
// - Construct on any thread; run() on the thread that owns the worker, once. stats(), endNs(), measureStartNs()
//   and firstProtocolError() are read after run() has returned.
// - The publisher's masked frame is built once; publishing rewrites its counter bytes. Subscribers compare what
//   they receive in place, piece by piece. No allocation per message.
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

struct FanoutWorkerConfig {
    const ResolvedTarget* target = nullptr;
    // A second server (a cluster's other node): the subscribers of odd index connect to it, the others and the
    // publisher to target. nullptr: everyone to target.
    const ResolvedTarget* splitTarget = nullptr;
    std::string_view subscriberPath;  // request-target of the subscribers' upgrade requests
    std::string_view publisherPath;   // request-target of the publisher's
    std::string_view authority;       // Host header value
    std::string_view extraHeaders;    // complete field lines, each ending in CRLF
    std::uint64_t messageBytes = 20;  // at least kCounterBytes
    bool text = false;
    std::uint32_t subscribers = 0;
    std::uint32_t window = 8;  // messages in flight at most, 1 to limits::kMaxFanoutWindow
    std::uint64_t seed = 1;    // for keys and masks
    // How long the publisher waits, once every subscriber has joined, before its first message: a cluster's nodes
    // subscribe to a topic's channel when their first subscriber joins, and a message published before that
    // subscription reached the broker never reaches them (Redis's pub/sub keeps nothing).
    std::int64_t settleNs = 0;
    bool socketIo = false;            // speak socket.io (see above); text must be set
    bool stamped = false;             // messages come stamped with their position (see above); not with socketIo
    const TlsContext* tls = nullptr;  // wss://: the TLS settings; outlives the worker. nullptr: ws://
    RunPlan plan;
};

// path with `role=<role>` added to its query: "/x" -> "/x?role=sub", "/x?a=1" -> "/x?a=1&role=sub".
std::string fanoutRolePath(std::string_view path, std::string_view role);

class FanoutWorker {
public:
    explicit FanoutWorker(const FanoutWorkerConfig& config);

    void run();

    const RunStats& stats() const noexcept { return stats_; }
    RunStats& stats() noexcept { return stats_; }
    std::int64_t endNs() const noexcept { return endNs_; }
    // Where the measured time began and where it was to end; measureStartNs() == deadlineNs() when the publisher
    // never started (not every subscriber could join).
    std::int64_t measureStartNs() const noexcept { return started_ ? plan_.measureStartNs : plan_.deadlineNs; }
    std::int64_t deadlineNs() const noexcept { return plan_.deadlineNs; }
    const char* firstProtocolError() const noexcept { return firstProtocolError_; }

    // For runWorkerLoop.
    void onEvent(void* data, std::uint32_t events, std::int64_t now);
    void sweep(std::int64_t now);

    // The counter: kCounterBytes lower-case hex digits, least significant first (ASCII, so text messages stay
    // valid UTF-8).
    static constexpr std::size_t kCounterBytes = 8;
    // Bytes of a stamp at most (a 16-character epoch, 20 digits, two colons, and room to spare).
    static constexpr std::size_t kMaxStampBytes = 64;

private:
    // Connecting covers the TCP connect and, with TLS, the TLS handshake; Handshake is the WebSocket upgrade.
    enum class State : std::uint8_t { Closed, Connecting, Handshake, Open };

    // The stamp of the message being received, as read so far.
    struct Stamp {
        std::uint8_t colons = 0;  // seen so far (2: the stamp is over)
        std::uint8_t bytes = 0;
        std::uint64_t offset = 0;
    };

    struct Connection {
        int fd = -1;
        std::uint32_t generation = 0;
        State state = State::Closed;
        bool publisher = false;
        bool split = false;  // subscriber: connects to config.splitTarget
        bool wantWrite = false;
        bool member = false;              // subscriber: counted in every message published from now on
        bool mismatch = false;            // subscriber: the message being received differs from the expected bytes
        bool connected = false;           // socket.io: the server acknowledged the namespace connect
        std::uint8_t packetHead[2] = {};  // socket.io: the first bytes of the message being received
        std::uint8_t packetHeadBytes = 0;
        std::int64_t sinceNs = 0;                  // when connecting or the handshake began
        std::int64_t retryAtNs = 0;                // Closed: when to connect again
        std::uint64_t next = 0;                    // subscriber: counter of the next message it owes
        std::uint64_t firstCounted = 0;            // subscriber: messages below this were published before it joined
        std::uint64_t received = 0;                // subscriber: payload bytes of the message being received
        std::uint8_t counter[kCounterBytes] = {};  // subscriber: the counter bytes of the message being received
        Stamp stamp;                               // stamped: of the message being received
        std::uint64_t lastStampOffset = 0;         // stamped: of the last message received
        WsClientState ws;                          // handshake, waiting control frame, parser, mask
        TlsSession tls;                            // active on a wss:// connection once its TCP connect completed
    };

    // A message in flight: window_[counter % window].
    struct Slot {
        std::uint64_t counter = 0;
        std::uint32_t remaining = 0;  // members that have not received it yet
        std::int64_t sentNs = 0;
    };

    Connection& connectionAt(std::size_t index) noexcept;  // 0: the publisher, then the subscribers
    void setState(Connection& c, State state) noexcept;
    void openDue(std::int64_t now);
    void open(Connection& c, std::int64_t now);
    void continueOpen(Connection& c, std::uint32_t events, std::int64_t now);
    void closeSocket(Connection& c);
    void reopen(Connection& c, std::int64_t now, bool backoff);
    void startHandshake(Connection& c, std::int64_t now);
    void onReadable(Connection& c);
    bool onHandshakeData(Connection& c, std::string_view data, std::int64_t now);
    bool onFrameData(Connection& c, std::string_view data, std::int64_t now);
    void verifyPiece(Connection& c, std::string_view piece) noexcept;
    // stamped: reads what piece holds of the message's stamp; returns the rest.
    static std::string_view takeStamp(Connection& c, std::string_view piece) noexcept;
    // Open and, with socket.io, connected to the namespace: ready to publish, or to be admitted.
    bool joined(const Connection& c) const noexcept {
        return c.state == State::Open && (!config_.socketIo || c.connected);
    }
    // socket.io: a whole packet that is not an event (open, connect, ping); false when the connection was dropped.
    bool onSocketIoPacket(Connection& c, std::int64_t now);
    void onMessage(Connection& c, std::int64_t now);
    void settle(std::uint64_t counter) noexcept;
    void progress(std::int64_t now);
    void admitPending();
    void publish(std::int64_t now);
    void flush(Connection& c, std::int64_t now);
    void protocolError(Connection& c, const char* what, std::int64_t now);

    FanoutWorkerConfig config_;
    RunPlan plan_;  // config_.plan until the publisher starts, then with the measured time moved (see above)
    Epoll epoll_;
    Random random_;
    std::vector<std::uint8_t> pattern_;  // the unmasked payload, counter bytes aside (socket.io: the whole packet)
    std::size_t counterOffset_ = 0;      // where the counter bytes are in the payload (socket.io: after 42["m",")
    std::vector<std::uint8_t> frame_;    // the publisher's whole masked frame
    std::size_t headerBytes_ = 0;        // of frame_: the payload starts there
    std::size_t frameOffset_ = 0;
    bool frameWriting_ = false;  // frame_ is (partly) unsent
    Connection publisher_;
    std::int64_t settleUntilNs_ = 0;  // when everyone has joined: the end of config_.settleNs
    std::vector<Connection> subscribers_;
    std::vector<Slot> window_;
    std::unique_ptr<char[]> recvBuffer_;
    RunStats stats_;
    std::uint64_t lastSent_ = 0;     // counter of the last message published (0: none yet)
    std::uint64_t completed_ = 0;    // every message up to this one has been received by every member
    std::uint64_t outstanding_ = 0;  // deliveries owed by members for the messages in flight
    std::uint32_t members_ = 0;
    std::uint32_t pending_ = 0;   // open subscribers waiting to be admitted
    std::uint32_t closed_ = 0;    // connections in State::Closed (the publisher included)
    std::uint32_t joining_ = 0;   // connections in State::Connecting or State::Handshake
    std::size_t openCursor_ = 0;  // where openDue() resumes its scan
    std::int64_t endNs_ = 0;
    bool started_ = false;  // every subscriber was a member once and the publisher could publish
    bool measuring_ = false;
    bool running_ = false;
    const char* firstProtocolError_ = nullptr;
};

}  // namespace loopwire::lwload
