// RedisHistoryRead: a history read (PubSubBroker::readHistory) on its way through a Redis link, from the call to
// its handler: what it asks for, when it gives up, and how far it has been redirected. It moves between the links of
// a RedisClusterBroker (a MOVED or ASK reply, a link closed) with its handler, deadline and redirect count; its id
// is the link's that holds it.
#pragma once

#include <loopwire/PubSubOptions.h>

#include <cstdint>
#include <string>

namespace loopwire::broker {

struct RedisHistoryRead {
    // MOVED or ASK replies a read follows from one node to the next; the one after ends it with that reply's error.
    static constexpr std::uint8_t kMaxRedirects = 5;

    std::uint32_t id = 0;  // the holding link's: the read script's reply names it
    std::string topic;
    std::string sinceEpoch;
    std::uint64_t sinceOffset = 0;
    PubSubHistoryHandler handler;
    std::uint64_t deadlineMs = 0;
    std::uint8_t redirects = 0;
    bool asking = false;  // to be sent after ASKING (its slot is being imported by the node)
    bool sent = false;    // written to the holding link's current connection
};

}  // namespace loopwire::broker
