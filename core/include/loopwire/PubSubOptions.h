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
    std::uint64_t delivered = 0;     // messages from other Apps received for this App's topics
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
};

}  // namespace loopwire
