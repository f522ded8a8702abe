#include "BrokerUrl.h"

namespace loopwire::broker {

namespace {

int hexValue(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool percentDecode(std::string_view text, std::string& out) {
    out.clear();
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out.push_back(text[i]);
            continue;
        }
        if (i + 2 >= text.size()) return false;
        const int high = hexValue(text[i + 1]);
        const int low = hexValue(text[i + 2]);
        if (high < 0 || low < 0) return false;
        out.push_back(static_cast<char>(high * 16 + low));
        i += 2;
    }
    return true;
}

// Reads "host", "host:port", "[v6]" or "[v6]:port" into endpoint; returns what is wrong, or an empty string.
std::string parseEndpoint(std::string_view text, BrokerUrl::Endpoint& endpoint) {
    std::string_view portText;
    bool hasPort = false;
    if (!text.empty() && text[0] == '[') {
        const std::size_t close = text.find(']');
        if (close == std::string_view::npos) return "an IPv6 host must end with ]";
        endpoint.host.assign(text.substr(1, close - 1));
        std::string_view after = text.substr(close + 1);
        if (!after.empty()) {
            if (after[0] != ':') return "a port must follow the host after a colon";
            portText = after.substr(1);
            hasPort = true;
        }
    } else {
        const std::size_t colon = text.find(':');
        endpoint.host.assign(text.substr(0, colon));
        if (colon != std::string_view::npos) {
            portText = text.substr(colon + 1);
            hasPort = true;
        }
    }
    if (endpoint.host.empty()) return "the URL has no host";
    if (!hasPort) return {};
    if (portText.empty() || portText.size() > 5) return "the port must be a number from 1 to 65535";
    unsigned value = 0;
    for (char c : portText) {
        if (c < '0' || c > '9') return "the port must be a number from 1 to 65535";
        value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value == 0 || value > 65535) return "the port must be a number from 1 to 65535";
    endpoint.port = static_cast<std::uint16_t>(value);
    return {};
}

}  // namespace

std::string BrokerUrl::parse(std::string_view url) {
    constexpr std::string_view kRedis = "redis://";
    constexpr std::string_view kRedisOverTls = "rediss://";
    tls = url.starts_with(kRedisOverTls);
    if (!tls && !url.starts_with(kRedis)) return "the URL must start with redis:// or rediss://";
    std::string_view rest = url.substr(tls ? kRedisOverTls.size() : kRedis.size());
    std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
    std::string_view path = rest.substr(authority.size());
    if (!path.empty() && path[0] == '/') {
        std::string_view database = path.substr(1, path.find_first_of("?#") - 1);
        for (char c : database) {
            if (c < '0' || c > '9') return "the database (after the host) must be a number";
        }
    }
    if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
        std::string_view credentials = authority.substr(0, at);
        authority.remove_prefix(at + 1);
        const std::size_t colon = credentials.find(':');
        std::string_view userText = credentials.substr(0, colon);
        if (!percentDecode(userText, user)) return "the user name has a malformed percent-encoding";
        if (colon != std::string_view::npos) {
            if (!percentDecode(credentials.substr(colon + 1), password)) {
                return "the password has a malformed percent-encoding";
            }
            hasPassword = true;
        } else if (!user.empty()) {
            // redis://secret@host: a password alone, as redis-cli and ioredis read it.
            password = std::move(user);
            user.clear();
            hasPassword = true;
        }
    }
    // One host or several, separated by commas: the link tries them in turn (the nodes of a cluster).
    for (;;) {
        const std::size_t comma = authority.find(',');
        Endpoint endpoint;
        if (std::string error = parseEndpoint(authority.substr(0, comma), endpoint); !error.empty()) return error;
        endpoints.push_back(std::move(endpoint));
        if (comma == std::string_view::npos) break;
        if (endpoints.size() == kMaxEndpoints) return "the URL names more than 16 hosts";
        authority.remove_prefix(comma + 1);
    }
    return {};
}

}  // namespace loopwire::broker
