// The parameterized fixture of the integration suite: every test runs once per loop backend.
#pragma once

#include "TestClient.h"
#include "TestServer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

namespace loopwire::test {

class BackendTest : public ::testing::TestWithParam<LoopBackend> {
protected:
    ServerOptions options() const {
        ServerOptions options;
        options.backend = GetParam();
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

#define LW_INSTANTIATE_BACKENDS(suite)                                              \
    INSTANTIATE_TEST_SUITE_P(                                                       \
        Backends, suite, ::testing::Values(LoopBackend::Epoll, LoopBackend::Libuv), \
        [](const ::testing::TestParamInfo<LoopBackend>& backendInfo) { return backendName(backendInfo.param); })

}  // namespace loopwire::test
