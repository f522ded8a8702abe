// WebSocketServer: the WebSocket side of one App: its routes' contexts, its open sockets, its topic tree and the
// compressors and decompressors shared by the sockets of its loop.
//
// Created by the first App::ws() and owned by the HttpServer (as its ServerExtension), so that closing the App
// closes the WebSockets too. Publishing: publish() formats a message into a frame once (and compresses it once, for
// the subscribers that can take a frame compressed without context), stores it in the topic tree and asks the loop
// for a flush; the flush (or a direct send to any subscriber, which must not overtake an earlier publish) drains
// the tree: each subscriber gets its messages of the batch in one write. With a broker (connectBroker), every
// publish is also handed to it, what other Apps publish arrives through it and is delivered like a local publish,
// and the broker is told when a topic gains its first local subscriber or loses its last. Loop thread only.
#pragma once

#include "base/ByteBuffer.h"
#include "broker/PubSubBroker.h"
#include "http/HttpServer.h"
#include "loop/Loop.h"
#include "net/Socket.h"
#include "pubsub/TopicTree.h"
#include "ws/Deflater.h"
#include "ws/Inflater.h"

#include <loopwire/PubSubOptions.h>
#include <loopwire/WebSocket.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace loopwire {

class WebSocketConnection;
class WebSocketContext;

class WebSocketServer final : public ServerExtension, private FlushListener, private PubSubBrokerListener {
public:
    static constexpr ServerExtensionKind kKind = ServerExtensionKind::WebSockets;

    // The window the shared compressor of published messages uses: a subscriber takes the compressed frame when
    // it agreed to that window (the default) and to no context takeover.
    static constexpr std::uint8_t kPublishWindowBits = 15;

    explicit WebSocketServer(HttpServer& http);
    ~WebSocketServer() override;

    // The server of app, created on first use.
    static WebSocketServer& of(HttpServer& http);

    Loop& loop() const noexcept { return http_.loop(); }
    HttpServer& http() const noexcept { return http_; }
    SocketGroup& sockets() noexcept { return sockets_; }
    TopicTree<WebSocketConnection>& topics() noexcept { return topics_; }

    // Keeps a route's context for the App's lifetime; returns it.
    WebSocketContext& addContext(std::unique_ptr<WebSocketContext> context);

    void close() noexcept override;
    // Ends every WebSocket with 1001 (Going Away), as end() does: App::close(options).
    void drain() noexcept override;
    // The close a drain sends.
    static constexpr int kDrainCloseCode = 1001;
    static constexpr std::string_view kDrainCloseReason = "server shutting down";
    std::size_t connectionCount() const noexcept override { return sockets_.size(); }

    // See the class comment. sender: a socket that publishes (it does not get the message), or null. Returns
    // whether local subscribers will get it, or a broker took it.
    bool publish(std::string_view topic, std::string_view message, OpCode opCode, bool compress,
                 const WebSocketConnection* sender);
    // A subscription change of a socket (TopicTree's Change): tells the broker when the topic's local count
    // leaves or reaches 0.
    void subscriptionChanged(std::string_view topic, TopicTree<WebSocketConnection>::Change change);

    // Connects this App's pub/sub to the broker options.url names, replacing a previous one; false, with error
    // saying why, and the previous link untouched, when the options are not usable. events: told of what happens
    // to the link (may be empty).
    bool connectBroker(const PubSubOptions& options, PubSubEventHandler events, std::string& error);
    void disconnectBroker() noexcept;
    // See App::getHistory.
    bool readHistory(std::string_view topic, PubSubPosition since, PubSubHistoryHandler handler);
    PubSubStats brokerStats() const noexcept;
    // Closes connection once the loop's current batch is over (a connection closeOnBackpressureLimit set dropping);
    // it stays allocated until then, since the loop frees sockets only after its flushes.
    void closeAfterBatch(WebSocketConnection& connection);
    // Delivers what was published so far, now. Cheap when nothing waits.
    void drainTopics() {
        if (topics_.hasWaiting() && !draining_) deliverPublished();
    }

    // A deflater shared by the sockets of this loop, for the window agreed (9 to 15), without context takeover;
    // null when zlib failed. Created on first use.
    ws::Deflater* sharedDeflater(std::uint8_t windowBits);
    // The inflater shared by the sockets whose clients keep no context; null when zlib failed.
    ws::Inflater* sharedInflater();
    // Scratch buffers shared by the sockets of the loop: a message is compressed into, or inflated into, one of
    // them and sent or delivered at once. They shrink back after a large message.
    ByteBuffer& deflateScratch() noexcept { return deflateScratch_; }
    ByteBuffer& inflateScratch() noexcept { return inflateScratch_; }
    void trimScratch() noexcept;

private:
    void onFlush() override;
    void deliverPublished();
    // Delivers to this App's subscribers only.
    bool publishLocal(std::string_view topic, std::string_view message, OpCode opCode, bool compress,
                      const WebSocketConnection* sender);
    void onBrokerMessage(std::string_view topic, std::string_view message, BrokerMessageKind kind,
                         bool compress) override;
    void onBrokerEvent(const PubSubEvent& event) override;

    HttpServer& http_;
    SocketGroup sockets_;
    TopicTree<WebSocketConnection> topics_;
    std::vector<std::unique_ptr<WebSocketContext>> contexts_;
    std::array<std::unique_ptr<ws::Deflater>, kPublishWindowBits + 1> sharedDeflaters_;
    std::unique_ptr<ws::Inflater> sharedInflater_;
    ByteBuffer deflateScratch_;
    ByteBuffer inflateScratch_;
    ByteBuffer frameScratch_;  // a published message's record, built before the tree stores it
    bool draining_ = false;
    // Publishes made while draining (by a handler the drain ran): published once the drain is over.
    struct QueuedPublish {
        std::string topic;
        std::string message;
        OpCode opCode;
        bool compress;
        const WebSocketConnection* sender;
    };
    std::vector<QueuedPublish> queued_;
    std::vector<WebSocketConnection*> closeAfterBatch_;
    std::unique_ptr<PubSubBroker> broker_;
    std::vector<std::unique_ptr<PubSubBroker>> retiredBrokers_;  // closed, freed at the next flush
    PubSubEventHandler brokerEvents_;
};

}  // namespace loopwire
