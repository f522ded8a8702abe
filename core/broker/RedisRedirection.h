// RedisRedirection: a Redis Cluster node's answer that a slot lives elsewhere, read from the text of an error reply
// (pure; views into that text, no allocation):
//
//     MOVED 3999 127.0.0.1:6381      the slot's owner is that node (from now on)
//     ASK 3999 127.0.0.1:6381        this one command is for that node (the slot is being moved there)
//
// The host may be an IPv6 address, with or without brackets, or empty (the node being asked: Redis gives no
// address for a node that has none to announce).
#pragma once

#include <cstdint>
#include <string_view>

namespace loopwire::broker {

struct RedisRedirection {
    bool ask = false;  // ASK; else MOVED
    std::uint16_t slot = 0;
    std::string_view host;
    std::uint16_t port = 0;

    // Fills *this from error; false when error is not a well-formed MOVED or ASK.
    bool read(std::string_view error) noexcept;
};

}  // namespace loopwire::broker
