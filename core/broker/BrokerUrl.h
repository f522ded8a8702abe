// BrokerUrl: a broker's address as PubSubOptions::url gives it, parsed (pure; allocates the strings it keeps).
//
//     redis://[[user]:password@]host[:port][,host[:port]...][/db]
//
// Several hosts (at most kMaxEndpoints) are the nodes the link tries in turn: when one fails, the next.
// rediss:// is the same over TLS. The user and password may be percent-encoded. parse() returns an error message
// naming what is wrong, or an empty string.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loopwire::broker {

struct BrokerUrl {
    static constexpr std::uint16_t kDefaultRedisPort = 6379;
    // Hosts one URL may name. Past it: an error.
    static constexpr std::size_t kMaxEndpoints = 16;

    struct Endpoint {
        std::string host;  // without the brackets of an IPv6 address
        std::uint16_t port = kDefaultRedisPort;
    };

    std::vector<Endpoint> endpoints;  // at least one after a successful parse
    std::string user;                 // empty: the default user
    std::string password;
    bool hasPassword = false;
    bool tls = false;  // rediss://

    // Fills *this from url; returns an empty string, or what is wrong with url.
    std::string parse(std::string_view url);
};

}  // namespace loopwire::broker
