// RedisHistory: the Redis side of a topic's history (PubSubHistoryOptions): its keys, the two Lua scripts that
// publish into it and read it, the commands that run them, and the reading of a read's reply. Pure; the commands
// are written without allocation.
//
// A topic with history has two keys, both in its channel's hash slot (so that one node of a Redis Cluster holds
// them and runs the scripts): the meta hash `{T}m:<channel>` (fields epoch and offset) and the stream
// `{T}h:<channel>` (one entry per message, ID `<offset>-0`, fields e: the envelope, m: the message), T being a
// short tag of the channel's slot (slotTag). The publish script numbers the message (HINCRBY), appends it to the
// stream trimmed to size (XADD MAXLEN), renews both keys' ttl, and publishes it stamped with its position; a
// history whose meta hash is gone (its ttl ended it, or Redis lost it) starts again in a new epoch, made in Redis
// from the publishing App's seed and Redis's clock, from offset 1. The read script answers the meta and the entries
// after an offset, tagged with kReplyMarker and the read's id, so that the reply is known for what it is wherever it
// comes.
#pragma once

#include "base/ByteBuffer.h"

#include <loopwire/PubSubOptions.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loopwire::resp {
struct RespValue;
}

namespace loopwire::broker {

class RedisHistory {
public:
    // The first element of every read's reply.
    static constexpr std::string_view kReplyMarker = "loopwire:history";
    // Bytes of an epoch (hex of 64 bits), and of the seed an App gives the publish script to make one from.
    static constexpr std::size_t kEpochBytes = 16;
    // Bytes of a slot tag with its braces and the key's kind ("{a3Z}h:").
    static constexpr std::size_t kMaxKeyHeadBytes = 8;

    static std::string_view publishScript() noexcept;
    static std::string_view readScript() noexcept;

    // A short string whose hash slot is slot (at most 4 characters of [0-9A-Za-z]).
    static std::string_view slotTag(std::uint16_t slot) noexcept;

    // Appends the EVALSHA of the publish script (publishSha: its SHA-1 in hex) for message on prefix + topic:
    // command is PUBLISH or SPUBLISH, envelope the message's BrokerEnvelope.
    static void appendPublish(ByteBuffer& out, std::string_view publishSha, std::string_view command,
                              const PubSubHistoryOptions& history, std::string_view epoch, std::string_view prefix,
                              std::string_view topic, std::string_view envelope, std::string_view message);
    // Appends the EVALSHA of the read script for read `id`: the entries after since (all of them when since's
    // epoch is empty) when since's epoch is the topic's.
    static void appendRead(ByteBuffer& out, std::string_view readSha, std::string_view prefix, std::string_view topic,
                           std::uint64_t id, PubSubPosition since);

    // A read's reply, taken apart (views into the reply).
    struct Entry {
        std::uint64_t offset = 0;
        std::string_view envelope;
        std::string_view message;
    };
    struct Reply {
        std::uint64_t id = 0;
        std::string_view epoch;
        std::uint64_t offset = 0;  // the topic's last
        std::vector<Entry> entries;
    };
    // True when value is a read's reply: an array that starts with kReplyMarker.
    static bool isReadReply(const resp::RespValue& value) noexcept;
    // Reads such a reply into reply; false when its shape is not the read script's (reply.id is then still set
    // when it could be read).
    static bool readReply(const resp::RespValue& value, Reply& reply);
    // Whether entries hold everything after since (see PubSubHistory::recovered); since.epoch empty: after offset
    // 0 of the current epoch.
    static bool recovered(const Reply& reply, PubSubPosition since) noexcept;
};

}  // namespace loopwire::broker
