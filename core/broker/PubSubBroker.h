// PubSubBroker: the seam between an App's pub/sub (the WebSocket layer's topic tree) and the engine that carries it
// to the other Apps of a cluster. Redis is the engine built (RedisBroker); a second one (NATS) would implement the
// same two classes and be chosen by its URL's scheme in createBroker.
//
// The WebSocket layer calls, on the loop thread: publish() for every publish made on this App (after delivering it
// locally), and setInterest() each time a topic's local subscriber count goes from 0 to 1 (true) or from 1 to 0
// (false). The broker calls its listener back from its own loop callbacks, never from inside publish() or
// setInterest() or readHistory(): onBrokerMessage() for each message another App published on a topic of interest, and
// onBrokerEvent() for what the application is told (inside a batch of loop callbacks, see Loop::runBatch).
#pragma once

#include <loopwire/PubSubOptions.h>

#include <memory>
#include <string>
#include <string_view>

namespace loopwire {

class Loop;

// How a message that came through the broker is to be sent to WebSockets.
enum class BrokerMessageKind : std::uint8_t {
    Text,
    Binary,
    Unmarked,  // from a program other than loopwire: text if it is valid UTF-8, else binary
};

class PubSubBrokerListener {
public:
    // message lives until the call returns.
    virtual void onBrokerMessage(std::string_view topic, std::string_view message, BrokerMessageKind kind,
                                 bool compress) = 0;
    virtual void onBrokerEvent(const PubSubEvent& event) = 0;

protected:
    ~PubSubBrokerListener() = default;
};

class PubSubBroker {
public:
    virtual ~PubSubBroker() = default;

    // Sends message to the other Apps, or queues it while the broker is away (see PubSubOptions::maxQueuedBytes).
    // No allocation once the queue has grown to the traffic.
    virtual void publish(std::string_view topic, std::string_view message, bool binary, bool compress) = 0;
    // See the file comment. Changes are batched: what one batch of callbacks changes goes out once after it, and a
    // topic subscribed and unsubscribed within the batch costs the broker nothing.
    virtual void setInterest(std::string_view topic, bool interested) = 0;
    // Whether publishes on topic reach this App's subscribers through the broker only (a topic with history, whose
    // messages are delivered once numbered): the WebSocket layer then does not deliver them itself.
    virtual bool deliversThroughBroker(std::string_view topic) const noexcept = 0;
    // Reads topic's history after since (see PubSubHistory); handler is called once, from a loop callback, never
    // from inside this call, with the result or the error (after PubSubHistoryOptions::kReadTimeoutMs at the
    // latest).
    virtual void readHistory(std::string_view topic, PubSubPosition since, PubSubHistoryHandler handler) = 0;
    virtual PubSubStats stats() const noexcept = 0;
    // Ends the link for good: the connection closes and nothing more is reported. The reads not answered yet end
    // with DISCONNECTED, their handlers called by finishClose().
    virtual void close() noexcept = 0;
    // After close(), from a loop callback that is not one of the broker's own, once, before the broker is freed:
    // calls the handlers close() ended, in one batch of loop callbacks. A broker freed without it drops them.
    virtual void finishClose() = 0;
};

// The broker for options.url, connecting at once; null, with error saying why, when the URL is not one.
std::unique_ptr<PubSubBroker> createBroker(Loop& loop, const PubSubOptions& options, PubSubBrokerListener& listener,
                                           std::string& error);

}  // namespace loopwire
