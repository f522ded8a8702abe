// Target: the URL lwload loads, and the rule that it be a loopback address unless --allow-remote is given.
//
// A load generator is a denial-of-service tool pointed at whatever it is given. lwload therefore refuses, by
// default, anything but 127.0.0.0/8, ::1 (and ::ffff:127.0.0.0/104) and the name "localhost", and checks the
// address that "localhost" resolves to as well. Other names are refused before any lookup is made.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <sys/socket.h>

namespace loopwire::lwload {

enum class Scheme : std::uint8_t { Http, WebSocket };

struct TargetUrl {
    Scheme scheme = Scheme::Http;
    bool tls = false;         // https:// or wss://
    std::string host;         // without the brackets of an IPv6 literal
    std::uint16_t port = 80;  // 443 by default with TLS
    std::string path = "/";   // the request-target: path and query, never empty
    std::string authority;    // host[:port] as written in the URL, for the Host header
};

// Parses "http://HOST[:PORT][/PATH][?QUERY]" or the same with "https://", "ws://" or "wss://". A fragment is
// dropped. Pure. Returns false and sets error for anything else.
bool parseUrl(std::string_view url, TargetUrl& out, std::string& error);

// An IPv4 literal in 127.0.0.0/8, the IPv6 literal ::1, or an IPv4-mapped IPv6 literal of a 127/8 address. Pure.
bool isLoopbackLiteral(std::string_view host) noexcept;

// isLoopbackLiteral(host), or the name "localhost" (any case). Pure.
bool isLoopbackHost(std::string_view host) noexcept;

// The same test on a resolved address (AF_INET or AF_INET6).
bool isLoopbackAddress(const sockaddr* address) noexcept;

struct ResolvedTarget {
    sockaddr_storage address{};
    socklen_t length = 0;
};

// Resolves the target's host and port. Without allowRemote, refuses a host that is not isLoopbackHost() without
// looking it up, and a name that resolves to an address that is not loopback.
bool resolveTarget(const TargetUrl& url, bool allowRemote, ResolvedTarget& out, std::string& error);

}  // namespace loopwire::lwload
