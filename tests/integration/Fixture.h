// The parameterized fixture of the integration suite: every test runs once per loop backend.
#pragma once

#include "TestClient.h"
#include "TestServer.h"

#include <gtest/gtest.h>

#include <memory>

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
    TestServer& server() { return *server_; }

    std::unique_ptr<TestServer> server_;
};

#define LW_INSTANTIATE_BACKENDS(suite)                                              \
    INSTANTIATE_TEST_SUITE_P(                                                       \
        Backends, suite, ::testing::Values(LoopBackend::Epoll, LoopBackend::Libuv), \
        [](const ::testing::TestParamInfo<LoopBackend>& backendInfo) { return backendName(backendInfo.param); })

}  // namespace loopwire::test
