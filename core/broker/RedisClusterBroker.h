// RedisClusterBroker: an App's pub/sub link to a Redis Cluster in sharded mode (PubSubOptions::sharded): each
// topic's channel is subscribed (SSUBSCRIBE) and published to (SPUBLISH) only on the master that owns its hash slot,
// so that a message costs one node's work, not every node's as classic pub/sub over the cluster bus does.
//
// It holds one RedisBroker in sharded mode per master (links_), which does all the connection's work (TLS,
// handshake, pings, backoff, queue), and the slot map: which link carries each of the 16,384 slots. The first link
// (the seed) connects to the URL's hosts; once it is ready it is asked for CLUSTER SLOTS, and a link is made for every
// master named there. Until then every slot is the seed's. The map follows the cluster as it changes:
// - a SPUBLISH answered MOVED is resent to the node named, and so is every later one the old node answers so; the
//   publishes made meanwhile wait (moves_) until the old node has answered everything sent to it before (a PING
//   after them), and then follow to the new owner, which takes the slot: per publisher and topic, order is kept
//   across the move. ASK resends the one command, after ASKING, without changing the map. A command redirected to
//   the node that sent it back is dropped, counted;
// - an SSUBSCRIBE answered MOVED moves the slot's topics to the node named;
// - a subscription the node ended by itself (its slot moved away) is made again where the map says, which an
//   out-of-date map corrects through MOVED;
// - each of those, and a link that goes down, asks for the map again (one request at a time); links the new map
//   does not name are closed once they are not connected, their queued publishes sent where the map now says.
// On a standalone Redis (CLUSTER SLOTS refused), the seed carries every slot.
//
// Messages and events go from every link straight to the App's listener; stats() adds the links' counters up.
// Loop thread only.
#pragma once

#include "base/ByteBuffer.h"
#include "broker/BrokerUrl.h"
#include "broker/PubSubBroker.h"
#include "broker/RedisShardListener.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace loopwire::broker {

class RedisClusterBroker final : public PubSubBroker, private RedisShardListener {
public:
    // Masters one App links to at most; a slot map naming more is refused (reported, the map kept as it was).
    static constexpr std::size_t kMaxLinks = 256;

    RedisClusterBroker(Loop& loop, BrokerUrl url, const PubSubOptions& options, PubSubBrokerListener& listener);
    ~RedisClusterBroker() override;

    void start();

    void publish(std::string_view topic, std::string_view message, bool binary, bool compress) override;
    void setInterest(std::string_view topic, bool interested) override;
    bool deliversThroughBroker(std::string_view topic) const noexcept override {
        return options_.history.covers(topic);
    }
    // On the link of the slot's owner; a read answered MOVED or ASK goes where the reply points (at most
    // RedisHistoryRead::kMaxRedirects times), and a link closed because the map no longer names its node hands its
    // reads to the links that own their slots now.
    void readHistory(std::string_view topic, PubSubPosition since, PubSubHistoryHandler handler) override;
    PubSubStats stats() const noexcept override;
    void close() noexcept override;
    void finishClose() override;

private:
    struct Topic {
        std::uint16_t slot = 0;
        RedisBroker* link = nullptr;  // where it is subscribed (asked to be)
    };
    // A slot whose publishes wait for `from`'s answers to what it was sent before a MOVED to `to`.
    struct SlotMove {
        RedisBroker* from = nullptr;
        RedisBroker* to = nullptr;
        ByteBuffer held;  // SPUBLISH commands made meanwhile, in order
        std::size_t heldMessages = 0;
    };
    struct StringHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
    };

    void onLinkReady(RedisBroker& link) override;
    void onLinkDown(RedisBroker& link) override;
    void onSlotMap(RedisBroker& link, const resp::RespValue& reply) override;
    void onPublishRedirected(RedisBroker& link, std::uint16_t slot, std::string_view host, std::uint16_t port, bool ask,
                             std::string_view command) override;
    void onSubscriptionMoved(RedisBroker& link, std::uint16_t slot, std::string_view host, std::uint16_t port) override;
    void onReadRedirected(RedisBroker& link, std::uint16_t slot, std::string_view host, std::uint16_t port,
                          RedisHistoryRead read) override;
    void onSubscriptionLost(RedisBroker& link, std::string_view topic) override;
    void onBarrier(RedisBroker& link, std::uint16_t slot) override;

    // Ends the move of slot: the new owner takes the slot and the held publishes.
    void finishMove(std::uint16_t slot);

    RedisShardListener* shardListener() noexcept { return this; }
    RedisBroker& owner(std::uint16_t slot) const noexcept { return *links_[owner_[slot]]; }
    // The link to host:port (empty host: from's), made when there is none; null past kMaxLinks.
    RedisBroker* linkTo(std::string_view host, std::uint16_t port, const RedisBroker& from);
    std::uint16_t indexOf(const RedisBroker& link) const noexcept;
    // Subscribes topic on `to` (unsubscribing it where it was).
    void place(const std::string& name, Topic& topic, RedisBroker& to);
    // Moves every topic to the link that owns its slot now.
    void placeAll();
    void requestSlotMap();
    // Closes the links, other than the seed and `keep`, that own no slot, are not connected and have no read's
    // result still to hand over; their queued publishes and their reads go to the links that own their slots now.
    void retireIdleLinks(const RedisBroker& keep);
    // Sends each whole SPUBLISH of commands to the owner of its channel's slot.
    void route(std::string_view commands);
    // Adds one's counters (not its state) to total's.
    static void addCounters(PubSubStats& total, const PubSubStats& one) noexcept;

    Loop& loop_;
    BrokerUrl url_;
    PubSubOptions options_;
    PubSubBrokerListener& listener_;
    std::uint64_t origin_;
    std::string epoch_;
    std::vector<std::unique_ptr<RedisBroker>> links_;  // [0]: the seed, on the URL's hosts
    std::vector<std::uint16_t> owner_;                 // per slot: its link's index in links_
    std::unordered_map<std::string, Topic, StringHash, std::equal_to<>> topics_;
    RedisBroker* mapLink_ = nullptr;  // the link asked for the slot map, until it answers or goes down
    bool mapWanted_ = true;           // the map is to be asked for as soon as a link is ready
    ByteBuffer redirected_;           // a command being resent (a copy: the link's own buffer may move)
    std::unordered_map<std::uint16_t, SlotMove> moves_;
    std::uint64_t droppedHere_ =
        0;  // publishes dropped by the owner itself: redirected back to their node, or past the queue while held
    PubSubStats retired_;  // the counters of the links closed so far (their queues were moved)
    bool closed_ = false;
};

}  // namespace loopwire::broker
