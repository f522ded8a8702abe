// Pub/sub across processes and machines: what App::connectPubSub takes and reports (docs/node/pubsub-cluster.md
// has the semantics).
//
// An App connected to a broker (Redis 6 or newer, standalone or a Redis Cluster; sharded pub/sub needs Redis 7)
// sends every publish to it besides delivering it to its own subscribers, and delivers what the other Apps on the
// same prefix publish to its subscribers. Everything
// here runs on the App's loop thread; nothing blocks it.
#pragma once

#include <loopwire/InlineFunction.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace loopwire {

// The broker link's state. Connecting covers the name lookup, the TCP connect and the handshake; Ready: the
// handshake and the resubscription are done and publishes go out as they are made; Disconnected: waiting to
// reconnect; Closed: disconnectPubSub() or close() ended it.
enum class PubSubState : std::uint8_t { Connecting, Ready, Disconnected, Closed };

// Short names for logs and the JavaScript API ("ready").
std::string_view nameOf(PubSubState state) noexcept;

struct PubSubStats {
    PubSubState state = PubSubState::Closed;
    std::uint64_t published = 0;     // messages handed to the broker (written to its connection)
    std::uint64_t delivered = 0;     // messages from other Apps (and this App's on topics with history) received
    std::uint64_t dropped = 0;       // publishes lost: the queue was full (see PubSubOptions::maxQueuedBytes)
    std::uint64_t reconnects = 0;    // connections made after the first one
    std::uint64_t errors = 0;        // error replies and failed connection attempts
    std::size_t queuedMessages = 0;  // publishes waiting for the broker (while it is away, or not reading)
    std::size_t queuedBytes = 0;
};

enum class PubSubEventKind : std::uint8_t {
    Ready,         // connected (again): subscriptions are restored and the queue is on its way
    Disconnected,  // the connection ended (message says why); the link reconnects on its own
    Error,         // a connection attempt failed, or the broker refused something (auth, a command)
    Dropped,       // publishes were dropped because the queue was full (the first of each run of drops)
};

struct PubSubEvent {
    PubSubEventKind kind = PubSubEventKind::Error;
    // A stable code for programs: "ECONNREFUSED" and the other errno names, "ETIMEDOUT", "EAI_NONAME" (a name
    // that does not resolve), "WRONGPASS", "NOAUTH", "NOPERM" (and any other error code Redis replies with),
    // "PROTOCOL" (the peer does not speak RESP3), "QUEUE_FULL", "CLOSED" (the peer closed the connection).
    std::string_view code;
    std::string_view message;  // for people: what happened, with the broker's address
};

using PubSubEventHandler = InlineFunction<void(const PubSubEvent&), 48>;

// History (docs/node/pubsub-cluster.md, "History and recovery"): the topics it covers keep their last messages in
// a Redis Stream, and every message published on them is numbered there. Such a message reaches every App's
// subscribers, the publishing App's included, when Redis has numbered it, never before; it reaches WebSockets
// stamped with its position, "<epoch>:<offset>:" in front of the message as it was published, so that a client
// that reconnects can say where it was and be given what it missed (App::getHistory).
struct PubSubHistoryOptions {
    // Largest size and ttlSeconds taken.
    static constexpr std::uint32_t kMaxSize = 1'000'000;
    static constexpr std::uint32_t kMaxTtlSeconds = 365 * 24 * 3600;
    // A read of the history (App::getHistory) not answered within this long, the broker being away included,
    // ends with the error ETIMEDOUT.
    static constexpr std::uint32_t kReadTimeoutMs = 10'000;

    // Messages kept per topic; 0: no history (the default).
    std::uint32_t size = 0;
    // A topic's history (and its epoch) ends this long after its last publish; 0: kept until Redis evicts it.
    std::uint32_t ttlSeconds = 0;
    // The topics that have history: those that start with this (empty: every topic).
    std::string topicPrefix;

    bool covers(std::string_view topic) const noexcept { return size > 0 && topic.starts_with(topicPrefix); }
};

// Where a client was in a topic's history: the epoch names one life of the history (it changes when Redis lost
// it, or its ttl ended it), the offset counts the messages published in it, from 1.
struct PubSubPosition {
    std::string_view epoch;
    std::uint64_t offset = 0;
};

struct PubSubHistoryMessage {
    std::uint64_t offset = 0;
    std::string_view message;  // stamped with its position, as WebSockets are sent it
    bool binary = false;
    bool compress = false;
};

// What App::getHistory answers. Views valid during the handler's call only.
struct PubSubHistory {
    // Empty when the read succeeded; else a code as in PubSubEvent ("ETIMEDOUT": no answer within
    // PubSubHistoryOptions::kReadTimeoutMs; "NOHISTORY": the App's options give this topic no history;
    // "PROTOCOL": the reply is not the read script's; "DISCONNECTED": the App disconnected its pub/sub (or
    // connected it again) before the answer came; or Redis's error code) and a message for people.
    std::string_view error;
    std::string_view errorMessage;
    // The topic's position now: its epoch ("" when it has no history yet) and the offset of its last message.
    PubSubPosition position;
    // True when `messages` is everything published after the position asked for (after offset 0 of the current
    // epoch when none was given); false when the history no longer covers it (another epoch, or trimmed): the
    // client must then start again from `position`.
    bool recovered = false;
    const PubSubHistoryMessage* messages = nullptr;
    std::size_t messageCount = 0;
};

using PubSubHistoryHandler = InlineFunction<void(const PubSubHistory&), 48>;

struct PubSubOptions {
    // Default for maxQueuedBytes.
    static constexpr std::size_t kDefaultMaxQueuedBytes = 8 * 1024 * 1024;

    // redis://[[user]:password@]host[:port][,host[:port]...][/db], or rediss:// for TLS; host may be a name, an
    // IPv4 address or an IPv6 one in brackets; the port defaults to 6379. Several hosts (up to 16, a cluster's nodes)
    // are tried in turn, the next when one fails. (The db number is accepted and ignored: Redis's pub/sub ignores
    // databases.)
    std::string url;
    // rediss:// (TLS): the server's certificate must chain to this CA file (PEM; empty: the system's store) and
    // name the URL's host; tlsVerify = false accepts any certificate (for tests and self-signed servers only).
    std::string tlsCaFile;
    bool tlsVerify = true;
    // Every channel this App uses is prefix + topic, so that applications that share a Redis stay apart.
    std::string prefix = "loopwire:";
    // Sharded pub/sub (Redis 7: SSUBSCRIBE, SPUBLISH): on a Redis Cluster, each topic's messages go only to the
    // master that owns its channel's hash slot, instead of being broadcast to every node by the cluster bus. The
    // URL names any nodes of the cluster (the slot map is read from them, and followed when slots move); the App
    // keeps one connection per master. On a standalone Redis 7, the one server carries everything. The Apps that
    // share a prefix must agree on this: sharded and classic messages do not reach each other.
    bool sharded = false;
    // Publishes made while the broker is away, or written faster than it reads, wait in a queue of at most this
    // many bytes (commands as sent); past it they are dropped and counted (PubSubStats::dropped).
    std::size_t maxQueuedBytes = kDefaultMaxQueuedBytes;
    // Reconnection: the first retry after reconnectMinDelayMs, each next one twice as late up to
    // reconnectMaxDelayMs, every delay drawn between half and all of that (jitter).
    std::uint32_t reconnectMinDelayMs = 100;
    std::uint32_t reconnectMaxDelayMs = 5000;
    // A connection attempt (lookup, connect and handshake) that takes longer fails with ETIMEDOUT.
    std::uint32_t connectTimeoutMs = 5000;
    // A connection from which nothing came for this long is sent a PING; one silent for twice as long is dropped
    // and made again.
    std::uint32_t pingIntervalMs = 5000;
    PubSubHistoryOptions history;
};

}  // namespace loopwire
