// ProxyPolicy: what a server accepts of the PROXY protocol (ServerOptions' proxyProtocol, proxyTrustedSources and
// proxyHeaderTimeoutMs), as every connection's ProxyIntake reads it. Configured by the HttpServer at set-up time,
// then read-only; it outlives the server's connections.
#pragma once

#include "IpNetwork.h"
#include "SocketAddress.h"

#include <loopwire/ProxyProtocol.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loopwire {

class ProxyPolicy {
public:
    // Takes the settings; false (error naming the option and the entry) when a trusted source is no address or
    // network. Allocates.
    bool configure(ProxyProtocol mode, const std::vector<std::string>& trustedSources, std::uint32_t headerTimeoutMs,
                   std::string& error);

    ProxyProtocol mode() const noexcept { return mode_; }
    std::uint32_t headerTimeoutMs() const noexcept { return headerTimeoutMs_; }
    // Whether peer may send a header: every peer when no source is listed; else a peer in a listed network, and a
    // Unix-socket peer (local, so as trusted as the machine).
    bool trusts(const SocketAddress& peer) const noexcept;

private:
    ProxyProtocol mode_ = ProxyProtocol::Optional;
    std::uint32_t headerTimeoutMs_ = 0;
    std::vector<IpNetwork> trusted_;
};

}  // namespace loopwire
