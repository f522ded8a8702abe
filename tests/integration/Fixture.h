// The parameterized fixture of the integration suite: every test runs once per loop backend, and the suites
// instantiated with LW_INSTANTIATE_TRANSPORTS once more per backend over TLS (an SSLApp and TLS clients, set up
// by the fixture through setDefaultServerTls and setDefaultClientTls, so the tests themselves do not change).
#pragma once

#include "TestCertificates.h"
#include "TestClient.h"
#include "TestServer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

namespace loopwire::test {

struct Transport {
    LoopBackend backend;
    bool tls;
};

class BackendTest : public ::testing::TestWithParam<Transport> {
protected:
    BackendTest() {
        if (!GetParam().tls) return;
        static const TlsClientOptions client{.caFile = TestCertificates::get().caFile};
        static const SocketContextOptions server{.key_file_name = TestCertificates::get().keyFile,
                                                 .cert_file_name = TestCertificates::get().certFile};
        setDefaultServerTls(&server);
        setDefaultClientTls(&client);
    }
    ~BackendTest() override {
        server_.reset();
        setDefaultServerTls(nullptr);
        setDefaultClientTls(nullptr);
    }

    LoopBackend backend() const { return GetParam().backend; }
    bool overTls() const { return GetParam().tls; }
    ServerOptions options() const {
        ServerOptions options;
        options.backend = GetParam().backend;
        return options;
    }
    // Options with short timeouts and a fast sweep, for the timeout tests.
    ServerOptions fastTimeouts() const {
        ServerOptions options = this->options();
        options.sweepIntervalMs = 20;
        options.idleTimeoutMs = 150;
        options.headerTimeoutMs = 150;
        options.bodyTimeoutMs = 150;
        options.writeTimeoutMs = 150;
        options.lingerTimeoutMs = 150;
        return options;
    }
    void serve(TestServer::Setup setup) { server_ = std::make_unique<TestServer>(options(), std::move(setup)); }
    void serve(ServerOptions options, TestServer::Setup setup) {
        server_ = std::make_unique<TestServer>(options, std::move(setup));
    }
    int port() const { return server_->port(); }
    // Polls every 10 ms, the first time after 10 ms (the server may not have accepted a new client yet), until
    // the server has no connection left (true), or until limit has passed (false).
    bool waitForNoConnections(std::chrono::milliseconds limit = std::chrono::seconds(3)) {
        auto until = std::chrono::steady_clock::now() + limit;
        do {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            if (server_->connectionCount() == 0) return true;
        } while (std::chrono::steady_clock::now() < until);
        return false;
    }
    TestServer& server() { return *server_; }

    std::unique_ptr<TestServer> server_;
};

inline std::string transportName(const ::testing::TestParamInfo<Transport>& info) {
    return backendName(info.param.backend) + (info.param.tls ? "_tls" : "");
}

// Plain TCP on each backend.
#define LW_INSTANTIATE_BACKENDS(suite) \
    INSTANTIATE_TEST_SUITE_P(          \
        Backends, suite,               \
        ::testing::Values(Transport{LoopBackend::Epoll, false}, Transport{LoopBackend::Libuv, false}), transportName)

// Plain TCP and TLS on each backend.
#define LW_INSTANTIATE_TRANSPORTS(suite)                                                              \
    INSTANTIATE_TEST_SUITE_P(                                                                         \
        Backends, suite,                                                                              \
        ::testing::Values(Transport{LoopBackend::Epoll, false}, Transport{LoopBackend::Libuv, false}, \
                          Transport{LoopBackend::Epoll, true}, Transport{LoopBackend::Libuv, true}),  \
        transportName)

}  // namespace loopwire::test
