// RedisBroker: an App's pub/sub link to one Redis server (6 or newer), on the App's own loop: the whole link to a
// standalone Redis (or to a cluster through one node, in classic pub/sub), or one master's link in sharded mode.
//
// One TCP connection speaking RESP3 (HELLO 3), so that the messages Redis pushes and the replies to PUBLISH share
// it; with rediss://, TLS over it (TlsClient), the handshake part of Handshaking. The link's life is one status changed
// in one place (changeStatus):
//   Resolving -> Connecting -> Handshaking -> Ready -> Waiting -> Resolving ... ; any -> Closed (close()).
// Resolving looks the host up (on a short-lived thread for a name; at once for an address), Connecting waits for
// the non-blocking connect, Handshaking for HELLO's reply; Ready subscribes every topic of interest, sends what
// was queued and from then on writes every publish as it is made; Waiting is the backoff after a failure
// (capped, jittered). Every attempt, from lookup to handshake, has options.connectTimeoutMs.
//
// Publishes are written into one outgoing buffer and leave in one send per batch of loop callbacks (a
// FlushListener), as do the subscription changes of the batch. A publish made while the link is away waits in
// the queue, and on a failure the whole PUBLISH commands not yet sent go back to it; the queue and the unsent
// bytes together are bounded by options.maxQueuedBytes, past which publishes are dropped and counted. Steady
// state: no allocation per message in either direction (the buffers keep their capacity).
//
// History (options.history): on a connection, the two scripts of RedisHistory are loaded first (SCRIPT LOAD);
// a publish on a topic with history is the publish script's EVALSHA, and its message is delivered when it comes
// back, the App that published it included (its envelope says so). A read of the history is the read script's
// EVALSHA, written after the batch's subscription changes; its reply carries its id, and it is sent again on the
// next connection when the link fails before the reply. In sharded mode a read answered MOVED or ASK goes to the
// owner (RedisShardListener::onReadRedirected), which hands it to the link of the node named; a link closed by
// close() ends its reads with DISCONNECTED, handed over by finishClose().
//
// Sharded mode (given a RedisShardListener: a link of RedisClusterBroker to one node of a Redis Cluster): the
// commands are SSUBSCRIBE, SUNSUBSCRIBE and SPUBLISH, a subscription command names the channels of one slot, and
// every command that gets an in-band reply is remembered in order (pending_), each SPUBLISH with a copy of its
// bytes until its reply, so that a MOVED or ASK can be resent by the owner to the node that has the slot. An
// SSUBSCRIBE or SUNSUBSCRIBE is followed by a PING, whose PONG says that it succeeded (its own replies are pushes;
// only a failure comes in band).
//
// Loop thread only. Owned by the WebSocket layer (WebSocketServer) or by a RedisClusterBroker, closed with the App.
#pragma once

#include "base/ByteBuffer.h"
#include "broker/BrokerUrl.h"
#include "broker/PubSubBroker.h"
#include "broker/RespFramer.h"
#include "broker/RedisHistoryRead.h"
#include "broker/RedisRedirection.h"
#include "broker/RedisShardListener.h"
#include "broker/ReconnectBackoff.h"
#include "loop/Loop.h"
#include "net/TlsClient.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct sockaddr;

namespace loopwire::broker {

struct ResolveRequest;

class RedisBroker final : public PubSubBroker, private IoWatcher, private FlushListener, private DeferredDeletable {
public:
    // Channels named in one SUBSCRIBE or UNSUBSCRIBE command; more are split into several.
    static constexpr std::size_t kMaxChannelsPerCommand = 1024;
    // The least room a read gets when the input buffer is empty, hence the buffer's first size; rediss:// reads its
    // ciphertext this much at a time.
    static constexpr std::size_t kReadChunkBytes = 64 * 1024;
    // Room a read gets, at least, behind the start of a reply the input buffer holds: the buffer grows when less is
    // left, not whenever a read ends inside a reply (which a loaded machine makes happen at any time).
    static constexpr std::size_t kMinReadRoomBytes = 16 * 1024;
    // Buffers that grew past this for a burst are freed once they are empty again.
    static constexpr std::size_t kMaxRetainedBufferBytes = 256 * 1024;
    // A reply (a message pushed by Redis) longer than this drops the connection (PROTOCOL): it bounds what a peer on
    // the Redis port can make the App buffer.
    static constexpr std::size_t kMaxReplyBytes = 64 * 1024 * 1024;
    // Sharded mode: commands awaiting their reply the link has room for from the start (more grow the ring).
    static constexpr std::size_t kInitialPendingCommands = 64;
    // How often the deadlines of history reads are looked at while some are waiting.
    static constexpr std::uint64_t kReadTickMs = 250;
    // Error replies reported to the application at most once per this long (the rest are only counted).
    static constexpr std::uint64_t kErrorReportIntervalMs = 1000;

    // origin: the id written into the envelope of every message this App publishes (see BrokerEnvelope); the
    // links of one RedisClusterBroker share it. shard: the owner in sharded mode, or null (classic pub/sub).
    RedisBroker(Loop& loop, BrokerUrl url, const PubSubOptions& options, PubSubBrokerListener& listener,
                std::uint64_t origin, std::string epoch, RedisShardListener* shard = nullptr);
    ~RedisBroker() override;

    // A random origin for a new App's link.
    static std::uint64_t newOrigin();
    // A random epoch (RedisHistory::kEpochBytes of hex) for a new App's topics with history.
    static std::string newEpoch();
    // Appends the command that publishes message on options.prefix + topic (SPUBLISH when sharded, else PUBLISH),
    // in the envelope of origin; on a topic with history (options.history), the publish script's EVALSHA, which
    // starts a new history in epoch when the topic has none.
    static void appendPublish(ByteBuffer& out, bool sharded, const PubSubOptions& options, std::uint64_t origin,
                              std::string_view epoch, std::string_view topic, std::string_view message, bool binary,
                              bool compress);

    // Begins the first connection attempt.
    void start();

    // Sharded mode, for the owner:
    // asks the node for CLUSTER SLOTS (answered through RedisShardListener::onSlotMap); false when not Ready.
    bool requestSlotMap();
    // sends (or queues) a whole SPUBLISH command another link had answered MOVED or ASK (asking: after ASKING).
    void publishCommand(std::string_view command, bool asking);
    // asks the node for a PONG after everything sent so far, answered through RedisShardListener::onBarrier; false
    // when not Ready.
    bool requestBarrier(std::uint16_t slot);
    // moves every SPUBLISH waiting for a connection into `into` (for a link that is to be closed).
    void takeQueued(ByteBuffer& into);
    // Moves every read not answered yet out (for a link that is to be closed: another link finishes them).
    std::vector<RedisHistoryRead> takeReads();
    // Finishes a read another link began, with its handler, deadline and redirect count (a new id of this link's).
    void adoptRead(RedisHistoryRead read);
    bool ready() const noexcept { return status_ == Status::Ready; }
    // Whether results of reads wait for the link's next flush to be handed to their handlers.
    bool hasAnswers() const noexcept { return !answered_.empty(); }
    // The host now connected to or tried.
    const BrokerUrl::Endpoint& endpoint() const noexcept { return url_.endpoints[endpoint_]; }

    void publish(std::string_view topic, std::string_view message, bool binary, bool compress) override;
    void setInterest(std::string_view topic, bool interested) override;
    bool deliversThroughBroker(std::string_view topic) const noexcept override {
        return options_.history.covers(topic);
    }
    void readHistory(std::string_view topic, PubSubPosition since, PubSubHistoryHandler handler) override;
    PubSubStats stats() const noexcept override;
    void close() noexcept override;
    void finishClose() override;
    // Closes the link and gives it to the loop, which frees it once the current batch of callbacks is over: a link
    // retired from inside another link's callback may have an event of its own later in that batch (IoWatcher's
    // rule). The caller gives up its ownership.
    void closeAndFreeAfterBatch() noexcept;

private:
    enum class Status : std::uint8_t { Resolving, Connecting, Handshaking, Ready, Waiting, Closed };
    // What an in-band reply still to come answers (sharded mode).
    enum class Awaiting : std::uint8_t {
        Publish,
        Subscribe,
        Unsubscribe,
        Ping,
        SlotMap,
        Asking,
        Barrier,
        Script,
        Read
    };
    struct Pending {
        Awaiting what;
        std::uint16_t slot = 0;   // Barrier: the slot it was asked for
        std::uint32_t bytes = 0;  // Publish: the command's size at the front of inflight_; Read: the read's id
    };
    // A read's result, waiting for the end of the batch to be handed to its handler.
    struct AnsweredRead {
        PubSubHistoryHandler handler;
        std::string error;
        std::string errorMessage;
        std::string epoch;
        std::uint64_t offset = 0;
        bool recovered = false;
        std::string stamped;                         // every message, stamped, one after the other
        std::vector<std::size_t> ends;               // where each ends in stamped
        std::vector<PubSubHistoryMessage> messages;  // their views into stamped are set when handed over
    };
    struct TopicState {
        std::uint16_t slot = 0;  // sharded mode: the channel's hash slot
        bool wanted = false;     // the App has local subscribers
        bool sent = false;       // Redis has been told to subscribe on this connection
        bool changed = false;    // listed in changed_
    };
    struct StringHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
    };
    struct PendingEvent {
        PubSubEventKind kind;
        std::string code;
        std::string message;
    };

    void changeStatus(Status next) noexcept;
    void onIo(std::uint32_t events) override;
    void onFlush() override;

    void beginAttempt();
    void onResolved(int error, const sockaddr* address, unsigned length);
    void onConnectFinished();
    void sendHello();
    // rediss://: feeds received ciphertext to the TLS client; false when the connection failed.
    bool receiveCipher(std::string_view cipher);
    void readAvailable();
    void handleReply(std::string_view reply);
    void handleHelloReply(std::string_view code, std::string_view text, bool isMap);
    void handlePush(std::string_view reply);
    void handleShardedReply(const resp::RespValue& value);
    // An error reply to a command: counted, and reported at most once per kErrorReportIntervalMs.
    void reportRefusal(std::string_view error);
    void handleMovedSubscription(std::string_view error);
    // Writes the reads not yet sent on this connection (after the subscriptions, so that a read made right after a
    // subscribe sees everything the subscription does not).
    void appendReads();
    void handleReadReply(const resp::RespValue& value);
    // SCRIPT LOAD of both history scripts, into out_.
    void appendScriptLoads();
    // See the .cpp: after a NOSCRIPT reply.
    void reloadScripts();
    // A sharded read answered MOVED or ASK: handed to the owner to send where the reply points, or ended with the
    // reply's error past RedisHistoryRead::kMaxRedirects.
    void redirectRead(std::size_t at, const RedisRedirection& redirection, std::string_view error);
    // Ends read index `at` of reads_ with an error.
    void failRead(std::size_t at, std::string_view code, std::string_view message);
    // Calls the handlers of answered, in order (inside a batch of loop callbacks).
    static void handOver(std::vector<AnsweredRead>& answered);
    void onReadTick();
    // Appends one whole PUBLISH (SPUBLISH) command to out_; in sharded mode it is kept until its reply.
    void appendPublishCommand(std::string_view command);
    void expect(Awaiting what, std::uint32_t bytes = 0, std::uint16_t slot = 0);
    Pending* frontPending() noexcept { return pendingHead_ < pending_.size() ? &pending_[pendingHead_] : nullptr; }
    void popPending() noexcept;
    void becomeReady();
    void writeOut();
    void writeOutTls();
    // One send of bytes: true with what the kernel took in written; false when it takes nothing now (the
    // descriptor is then watched for room) or the connection failed (fail() has run).
    bool sendSome(std::string_view bytes, std::size_t& written);
    void appendSubscriptions(bool all);
    void appendChannelCommand(std::string_view command, std::vector<const std::string*>& topics);
    void requeueUnsent();
    void onTimer();
    void onPingTick();
    // Drops the connection (code and message say why) and waits to try again.
    void fail(std::string_view code, std::string_view message);
    void closeConnection() noexcept;
    void report(PubSubEventKind kind, std::string_view code, std::string_view message);
    std::string describe(std::string_view what) const;

    Loop& loop_;
    BrokerUrl url_;
    PubSubOptions options_;
    PubSubBrokerListener& listener_;
    Status status_ = Status::Waiting;
    std::uint64_t origin_;
    std::string epoch_;  // the epoch of a history this App starts (see RedisHistory)

    ByteBuffer out_;     // commands for the current connection, not yet sent
    ByteBuffer queued_;  // PUBLISH commands waiting for a connection to be Ready
    ByteBuffer in_;      // received bytes not yet framed into a whole reply
    resp::RespFramer framer_;
    std::size_t queuedMessages_ = 0;
    std::size_t outPublishes_ = 0;     // PUBLISH commands in out_ (for the stats)
    std::size_t outPartialBytes_ = 0;  // bytes at out_'s front that end a command partly sent
    bool watchingWritable_ = false;
    std::unique_ptr<TlsClient> tls_;        // rediss://: the connection's TLS session
    std::unique_ptr<char[]> cipherBuffer_;  // rediss://: where ciphertext is read (kReadChunkBytes)
    bool helloSent_ = false;

    std::unordered_map<std::string, TopicState, StringHash, std::equal_to<>> topics_;
    std::vector<const std::string*> changed_;  // keys of topics_ whose interest changed in this batch

    Timer attemptTimer_;  // the attempt's deadline, or the backoff's end
    Timer pingTimer_;
    std::shared_ptr<ResolveRequest> resolving_;
    ReconnectBackoff backoff_;  // when the next attempt is made after a failure
    std::size_t endpoint_ = 0;  // the host of url_ tried now
    bool everReady_ = false;
    bool heardSinceTick_ = false;
    bool pingOutstanding_ = false;
    bool dropping_ = false;  // in a run of dropped publishes (reported once per run)
    std::uint64_t lastErrorReportMs_ = 0;
    std::vector<PendingEvent> events_;
    PubSubStats stats_;

    RedisShardListener* shard_;     // sharded mode: the owner; null: classic pub/sub
    std::vector<Pending> pending_;  // sharded mode: the commands sent whose in-band reply is to come, from pendingHead_
    std::size_t pendingHead_ = 0;
    ByteBuffer inflight_;  // sharded mode: the SPUBLISH commands of pending_, in order

    std::vector<RedisHistoryRead> reads_;
    std::vector<AnsweredRead> answered_;
    std::uint32_t nextReadId_ = 1;
    bool reloadingScripts_ = false;  // SCRIPT LOAD sent after a NOSCRIPT, not answered yet
    Timer readTimer_;                // while reads_ is not empty: their deadlines
};

}  // namespace loopwire::broker
