// MemoryClient: the client of one connection to an App over a MemoryStream, in plain TCP or over TLS (a TlsClient
// on the client's side, which does not verify the server's certificate), for unit tests of the layers above the
// socket (HTTP, WebSocket) that open no kernel socket.
//
// Nothing moves until the test calls pump(), which runs the App's loop until nothing moves on the stream any more.
// Over TLS the client answers the server (its part of the handshake) when it receives.
#pragma once

#include "net/MemoryStream.h"
#include "net/TlsClient.h"

#include <loopwire/App.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>

namespace loopwire::test {

// What the tests on a MemoryClient run under: the loop's backend, and whether the connection speaks TLS; every
// combination (memoryVariants()), named for gtest ("epoll", "libuv_tls"...).
using MemoryVariant = std::tuple<LoopBackend, bool>;
inline auto memoryVariants() {
    return ::testing::Combine(::testing::Values(LoopBackend::Epoll, LoopBackend::Libuv),
                              ::testing::Values(false, true));
}
std::string memoryVariantName(const ::testing::TestParamInfo<MemoryVariant>& variant);

// A standalone App for a MemoryClient: over TLS, an SSLApp with a self-signed certificate for "localhost".
std::unique_ptr<App> makeMemoryApp(bool tls, const ServerOptions& options = {});

class MemoryClient {
public:
    explicit MemoryClient(bool tls);

    // Has app serve the stream's server end (app must be destroyed before this client) and, over TLS, runs the
    // handshake; false when it does not finish (tlsError() may say why).
    bool connect(App& app);
    // Sends bytes (sealed first, over TLS); false when the TLS client cannot (not established, or closed).
    bool send(std::string_view bytes);
    // What the server wrote that the client has not received yet (decrypted, over TLS); at most maxBytes of the
    // stream's bytes are read.
    std::string receive(std::size_t maxBytes = MemoryStream::kUnlimited);
    // Runs the App's loop until nothing moves on the stream for two slices of a millisecond: every report of the
    // stream has been handled, and so has whatever the handlers started. Nothing before connect().
    void pump();
    // Runs the App's loop for ms milliseconds (for timeouts: the sweep runs in it).
    void pumpFor(std::uint32_t ms);

    MemoryStream& stream() noexcept { return stream_; }
    bool tls() const noexcept { return tls_ != nullptr; }
    std::string tlsError() const { return tls_ ? tls_->error() : std::string(); }

private:
    void sendTlsOutput();

    App* app_ = nullptr;
    MemoryStream stream_;
    std::unique_ptr<TlsClient> tls_;
};

}  // namespace loopwire::test
