// Http2Handoff: where an HTTP/1.1 connection sends a client that speaks HTTP/2 (App's `http2` option).
//
// The HTTP/2 layer (h2/Http2Server) installs it as the server's Http2 extension; http/ sees only this interface,
// as it sees ResponseCoder for compression. An HttpConnection hands its socket over when its TLS handshake chose
// ALPN "h2", or when its first bytes are HTTP/2's connection preface (prior knowledge on cleartext).
#pragma once

#include "HttpServer.h"

namespace loopwire {

class HttpConnection;

class Http2Handoff : public ServerExtension {
public:
    static constexpr ServerExtensionKind kKind = ServerExtensionKind::Http2;

    // Moves connection's socket to a new HTTP/2 connection and returns it; what connection received after the
    // point of the switch goes to it (HttpConnection::handOver).
    virtual Socket& takeOver(HttpConnection& connection) = 0;
};

}  // namespace loopwire
