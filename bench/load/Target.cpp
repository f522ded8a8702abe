#include "Target.h"

#include "HttpSyntax.h"

#include <cstring>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

namespace loopwire::lwload {

namespace {

bool startsWithLower(std::string_view s, std::string_view lowerPrefix) noexcept {
    return s.size() >= lowerPrefix.size() && http::equalsLower(s.substr(0, lowerPrefix.size()), lowerPrefix);
}

bool isLoopbackIpv6(const in6_addr& a) noexcept {
    if (IN6_IS_ADDR_LOOPBACK(&a)) return true;
    return IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127;
}

}  // namespace

bool parseUrl(std::string_view url, TargetUrl& out, std::string& error) {
    out = TargetUrl{};
    // The schemes, each with its default port.
    struct KnownScheme {
        std::string_view prefix;
        Scheme scheme;
        bool tls;
        std::uint16_t port;
    };
    static constexpr KnownScheme kSchemes[] = {
        {"http://", Scheme::Http, false, 80},
        {"https://", Scheme::Http, true, 443},
        {"ws://", Scheme::WebSocket, false, 80},
        {"wss://", Scheme::WebSocket, true, 443},
    };
    bool known = false;
    for (const KnownScheme& candidate : kSchemes) {
        if (!startsWithLower(url, candidate.prefix)) continue;
        out.scheme = candidate.scheme;
        out.tls = candidate.tls;
        out.port = candidate.port;
        url.remove_prefix(candidate.prefix.size());
        known = true;
        break;
    }
    if (!known) {
        error = "the URL must start with http://, https://, ws:// or wss://";
        return false;
    }
    const std::size_t fragment = url.find('#');
    if (fragment != std::string_view::npos) url = url.substr(0, fragment);

    const std::size_t authorityEnd = url.find_first_of("/?");
    const std::string_view authority = url.substr(0, authorityEnd);
    std::string_view rest = authorityEnd == std::string_view::npos ? std::string_view{} : url.substr(authorityEnd);
    if (authority.find('@') != std::string_view::npos) {
        error = "user information in the URL is not supported";
        return false;
    }

    std::string_view host;
    std::string_view portText;
    if (!authority.empty() && authority.front() == '[') {
        const std::size_t close = authority.find(']');
        if (close == std::string_view::npos) {
            error = "unterminated IPv6 literal in the URL";
            return false;
        }
        host = authority.substr(1, close - 1);
        const std::string_view after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') {
                error = "unexpected characters after the IPv6 literal";
                return false;
            }
            portText = after.substr(1);
            if (portText.empty()) {
                error = "empty port in the URL";
                return false;
            }
        }
    } else {
        const std::size_t colon = authority.find(':');
        host = authority.substr(0, colon);
        if (colon != std::string_view::npos) {
            portText = authority.substr(colon + 1);
            if (portText.empty()) {
                error = "empty port in the URL";
                return false;
            }
        }
    }
    if (host.empty()) {
        error = "no host in the URL";
        return false;
    }
    for (char c : host) {
        if (!http::isTokenChar(static_cast<unsigned char>(c)) && c != ':') {
            error = "invalid character in the URL's host";
            return false;
        }
    }
    if (!portText.empty()) {
        unsigned long port = 0;
        for (char c : portText) {
            if (c < '0' || c > '9' || port > 65535) {
                error = "invalid port in the URL";
                return false;
            }
            port = port * 10 + static_cast<unsigned long>(c - '0');
        }
        if (port == 0 || port > 65535) {
            error = "the port must be between 1 and 65535";
            return false;
        }
        out.port = static_cast<std::uint16_t>(port);
    }
    for (char c : rest) {
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
            error = "whitespace or control character in the URL's path";
            return false;
        }
    }
    out.host = std::string(host);
    out.authority = std::string(authority);
    if (rest.empty()) {
        out.path = "/";
    } else if (rest.front() == '?') {
        out.path = "/" + std::string(rest);
    } else {
        out.path = std::string(rest);
    }
    return true;
}

bool isLoopbackLiteral(std::string_view host) noexcept {
    char text[INET6_ADDRSTRLEN + 1];
    if (host.size() >= sizeof text) return false;
    std::memcpy(text, host.data(), host.size());
    text[host.size()] = '\0';
    in_addr v4{};
    if (inet_pton(AF_INET, text, &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
    in6_addr v6{};
    if (inet_pton(AF_INET6, text, &v6) == 1) return isLoopbackIpv6(v6);
    return false;
}

bool isLoopbackHost(std::string_view host) noexcept {
    return http::equalsLower(host, "localhost") || isLoopbackLiteral(host);
}

bool isLoopbackAddress(const sockaddr* address) noexcept {
    if (address->sa_family == AF_INET) {
        const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
        return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    }
    if (address->sa_family == AF_INET6) {
        return isLoopbackIpv6(reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr);
    }
    return false;
}

bool resolveTarget(const TargetUrl& url, bool allowRemote, ResolvedTarget& out, std::string& error) {
    if (!allowRemote && !isLoopbackHost(url.host)) {
        error = "refusing to load " + url.host +
                ": only loopback targets (127.0.0.0/8, ::1, localhost) unless --allow-remote is given";
        return false;
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* results = nullptr;
    const std::string port = std::to_string(url.port);
    const int rc = getaddrinfo(url.host.c_str(), port.c_str(), &hints, &results);
    if (rc != 0) {
        error = "cannot resolve " + url.host + ": " + gai_strerror(rc);
        return false;
    }
    const addrinfo* chosen = results;
    if (!allowRemote) {
        // "localhost" may resolve to ::1 and 127.0.0.1; every address it resolves to must be loopback.
        for (const addrinfo* ai = results; ai != nullptr; ai = ai->ai_next) {
            if (!isLoopbackAddress(ai->ai_addr)) {
                freeaddrinfo(results);
                error = "refusing to load " + url.host + ": it resolves to an address that is not loopback";
                return false;
            }
        }
    }
    std::memcpy(&out.address, chosen->ai_addr, chosen->ai_addrlen);
    out.length = static_cast<socklen_t>(chosen->ai_addrlen);
    freeaddrinfo(results);
    return true;
}

}  // namespace loopwire::lwload
