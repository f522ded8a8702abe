// ProxyProtocol: whether a server reads a PROXY protocol header (ServerOptions::proxyProtocol).
#pragma once

#include <cstdint>

namespace loopwire {

// The PROXY protocol (versions 1 and 2): the header a TCP load balancer (HAProxy, AWS NLB, nginx stream) sends
// before a connection's first byte to name the client. It is read before anything else, before the TLS handshake
// on an SSLApp; HttpResponse::getProxiedRemoteAddress() and its siblings report what it named, getRemoteAddress()
// stays the TCP peer.
enum class ProxyProtocol : std::uint8_t {
    Off,       // no header is read (one would be read as HTTP, and refused)
    Optional,  // a header is read when a connection starts with one, as uWebSockets does (the default)
    Required,  // every connection must start with one; one that does not is closed
};

}  // namespace loopwire
