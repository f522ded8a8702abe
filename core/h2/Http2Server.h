// Http2Server: the HTTP/2 layer of one HttpServer (App's `http2` option): its connections, and what they share.
//
// Installed as the server's Http2 extension (Http2Handoff), it takes over the HTTP/1.1 connections whose clients
// speak HTTP/2. The scratch space in which header blocks are decoded is one per server, not per connection: a block
// is decoded and dispatched within one call, and the server dispatches one request at a time.
#pragma once

#include "HpackDecoder.h"
#include "Http2Settings.h"
#include "http/Http2Handoff.h"
#include "net/Socket.h"

#include <cstddef>
#include <memory>

namespace loopwire::h2 {

class Http2Server final : public Http2Handoff {
public:
    explicit Http2Server(HttpServer& http);
    ~Http2Server() override;

    static Http2Server& of(HttpServer& http) { return http.installedExtension<Http2Server>(http); }

    HttpServer& http() const noexcept { return http_; }
    SocketGroup& connections() noexcept { return connections_; }

    Socket& takeOver(HttpConnection& connection) override;
    void close() noexcept override;
    void drain() noexcept override;
    std::size_t connectionCount() const noexcept override { return connections_.size(); }

    // Scratch for the decoder's strings, and for a request's joined cookies.
    static constexpr std::size_t kDecodeScratchBytes =
        HpackDecoder::scratchBytesFor(kMaxHeaderListBytes, kDefaultHpackTableLimit);
    char* decodeScratch() noexcept { return decodeScratch_.get(); }
    char* cookieScratch() noexcept { return cookieScratch_.get(); }
    static constexpr std::size_t kCookieScratchBytes = kMaxHeaderListBytes;

private:
    HttpServer& http_;
    SocketGroup connections_;
    std::unique_ptr<char[]> decodeScratch_;
    std::unique_ptr<char[]> cookieScratch_;
};

}  // namespace loopwire::h2
