#include "MemoryClient.h"

#include "MemoryTlsPair.h"

#include "base/ByteBuffer.h"
#include "http/HttpServer.h"
#include "loop/Loop.h"
#include "loop/Timer.h"
#include "net/SocketAddress.h"

#include <gtest/gtest.h>

#include <tuple>

namespace loopwire::test {

std::string memoryVariantName(const ::testing::TestParamInfo<MemoryVariant>& variant) {
    return std::string(std::get<0>(variant.param) == LoopBackend::Epoll ? "epoll" : "libuv") +
           (std::get<1>(variant.param) ? "_tls" : "");
}

std::unique_ptr<App> makeMemoryApp(bool tls, const ServerOptions& options) {
    if (!tls) return std::make_unique<App>(options);
    SocketContextOptions material;
    material.key = SelfSignedCertificate::get().keyPem;
    material.cert = SelfSignedCertificate::get().certPem;
    auto app = std::make_unique<App>(material, options);
    EXPECT_FALSE(app->constructorFailed()) << app->constructionError();
    return app;
}

MemoryClient::MemoryClient(bool tls) {
    if (!tls) return;
    std::string error;
    tls_ = TlsClient::create({"localhost", "", false}, error);
    EXPECT_NE(tls_, nullptr) << error;
}

bool MemoryClient::connect(App& app) {
    app_ = &app;
    app.server().adopt(stream_.descriptor(), SocketAddress{});
    if (!tls_) return true;
    tls_->start();
    sendTlsOutput();
    // A TLS 1.3 handshake is one flight each way and the tickets after it; no plaintext comes before the request.
    for (int flight = 0; flight < 4 && !tls_->established() && !stream_.serverClosed(); ++flight) {
        pump();
        receive();
    }
    return tls_->established();
}

bool MemoryClient::send(std::string_view bytes) {
    if (!tls_) {
        stream_.write(bytes);
        return true;
    }
    if (!tls_->send(bytes)) return false;
    sendTlsOutput();
    return true;
}

std::string MemoryClient::receive(std::size_t maxBytes) {
    std::string bytes = stream_.read(maxBytes);
    if (!tls_) return bytes;
    ByteBuffer plain;
    tls_->receive(bytes, plain);
    sendTlsOutput();
    return std::string(plain.view());
}

void MemoryClient::sendTlsOutput() {
    ByteBuffer& output = tls_->output();
    if (output.empty()) return;
    stream_.write(output.view());
    output.clear();
}

void MemoryClient::pump() {
    if (app_ == nullptr) return;
    auto progress = [this] {
        return std::make_tuple(stream_.receives(), stream_.sends(), stream_.unreadByClient(), stream_.unreadByServer(),
                               stream_.serverClosed());
    };
    Loop& loop = app_->loop();
    Timer slice(loop, [&loop] { loop.stop(); });
    for (int quiet = 0; quiet < 2;) {
        const auto before = progress();
        slice.start(1);
        loop.run();
        quiet = progress() == before ? quiet + 1 : 0;
    }
}

void MemoryClient::pumpFor(std::uint32_t ms) {
    if (app_ == nullptr) return;
    Loop& loop = app_->loop();
    Timer end(loop, [&loop] { loop.stop(); });
    end.start(ms);
    loop.run();
}

}  // namespace loopwire::test
