// The HTTP/2 layer of a server; see Http2Server.h.
#include "Http2Server.h"

#include "Http2Connection.h"
#include "http/HttpConnection.h"

namespace loopwire::h2 {

Http2Server::Http2Server(HttpServer& http)
    : http_(http),
      connections_(http.loop()),
      decodeScratch_(new char[kDecodeScratchBytes]),
      cookieScratch_(new char[kCookieScratchBytes]) {}

Http2Server::~Http2Server() { close(); }

Socket& Http2Server::takeOver(HttpConnection& connection) {
    auto* successor = new Http2Connection(*this, connection);
    connection.handOver(*successor);
    successor->start();
    return *successor;
}

void Http2Server::close() noexcept { connections_.closeAll(); }

void Http2Server::drain() noexcept {
    connections_.forEach([](Socket& socket) { static_cast<Http2Connection&>(socket).drain(); });
}

}  // namespace loopwire::h2
