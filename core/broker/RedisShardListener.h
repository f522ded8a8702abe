// RedisShardListener: what a RedisBroker in sharded mode (SSUBSCRIBE/SPUBLISH) tells the RedisClusterBroker that
// owns it, besides the messages and events it gives the App's PubSubBrokerListener directly: that it is ready, the
// cluster's slot map it was asked for, and the replies that say a slot lives elsewhere.
//
// Called from the link's loop callbacks (never from inside one of its methods called by the owner), with views that
// live until the call returns. The owner may call the link back from them, and any other link.
#pragma once

#include "broker/RedisHistoryRead.h"

#include <cstdint>
#include <string_view>

namespace loopwire::resp {
struct RespValue;
}

namespace loopwire::broker {

class RedisBroker;

class RedisShardListener {
public:
    // The link is connected (again) and its topics are resubscribed.
    virtual void onLinkReady(RedisBroker& link) = 0;
    // The link's connection ended; what it had in flight (a slot map asked for) will not be answered.
    virtual void onLinkDown(RedisBroker& link) = 0;
    // The reply to requestSlotMap(): CLUSTER SLOTS's array, or an error (a server that is not a cluster node).
    virtual void onSlotMap(RedisBroker& link, const resp::RespValue& reply) = 0;
    // A SPUBLISH was answered MOVED (ask: ASK) by the node the link is connected to: command is the whole command,
    // to be sent to host:port (empty host: the link's own).
    virtual void onPublishRedirected(RedisBroker& link, std::uint16_t slot, std::string_view host, std::uint16_t port,
                                     bool ask, std::string_view command) = 0;
    // An SSUBSCRIBE for slot was answered MOVED: the link has dropped its topics in that slot, which are to be
    // subscribed at host:port.
    virtual void onSubscriptionMoved(RedisBroker& link, std::uint16_t slot, std::string_view host,
                                     std::uint16_t port) = 0;
    // A history read was answered MOVED (ask: ASK) by the link's node: read is to be finished by the link of
    // host:port (empty host: the link's own), through RedisBroker::adoptRead. read.asking says which.
    virtual void onReadRedirected(RedisBroker& link, std::uint16_t slot, std::string_view host, std::uint16_t port,
                                  RedisHistoryRead read) = 0;
    // Every command the link had sent before requestBarrier(slot) has been answered.
    virtual void onBarrier(RedisBroker& link, std::uint16_t slot) = 0;
    // The node unsubscribed the link from topic without being asked (its slot moved to another node): the link has
    // dropped the topic.
    virtual void onSubscriptionLost(RedisBroker& link, std::string_view topic) = 0;

protected:
    ~RedisShardListener() = default;
};

}  // namespace loopwire::broker
