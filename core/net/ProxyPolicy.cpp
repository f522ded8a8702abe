#include "ProxyPolicy.h"

namespace loopwire {

bool ProxyPolicy::configure(ProxyProtocol mode, const std::vector<std::string>& trustedSources,
                            std::uint32_t headerTimeoutMs, std::string& error) {
    mode_ = mode;
    headerTimeoutMs_ = headerTimeoutMs;
    trusted_.clear();
    for (const std::string& source : trustedSources) {
        std::optional<IpNetwork> network = IpNetwork::parse(source);
        if (!network) {
            error = "proxyTrustedSources: \"" + source +
                    "\" is not an address or a network (\"192.0.2.7\", \"10.0.0.0/8\", \"2001:db8::/32\"; no host bits "
                    "past the prefix)";
            return false;
        }
        trusted_.push_back(*network);
    }
    return true;
}

bool ProxyPolicy::trusts(const SocketAddress& peer) const noexcept {
    if (trusted_.empty() || peer.bytes().empty()) return true;
    for (const IpNetwork& network : trusted_) {
        if (network.contains(peer)) return true;
    }
    return false;
}

}  // namespace loopwire
