// The HTTP worker against scripted loopback servers: what it counts, and how it recovers.
#include "HttpLoad.h"

#include "Clock.h"
#include "LoopbackServer.h"
#include "Options.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>

namespace loopwire::lwload {
namespace {

using test::LoopbackServer;

struct RunResult {
    RunStats stats;
    const char* firstError = nullptr;
};

RunResult runHttp(std::uint16_t port, std::uint32_t connections, std::uint32_t pipeline, std::uint64_t budget,
                  double seconds = 5.0, double timeoutSeconds = 1.0, bool reconnect = false) {
    static std::atomic<bool> stop{false};
    TargetUrl url;
    std::string error;
    EXPECT_TRUE(parseUrl("http://127.0.0.1:" + std::to_string(port) + "/", url, error));
    ResolvedTarget target;
    EXPECT_TRUE(resolveTarget(url, false, target, error));
    const std::string request = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    std::string batch;
    for (std::uint32_t i = 0; i < pipeline; ++i)
        batch += request;

    HttpWorkerConfig config;
    config.target = &target;
    config.requestBatch = batch;
    config.requestBytes = request.size();
    config.pipeline = pipeline;
    config.connections = connections;
    const std::int64_t now = monotonicNs();
    config.plan.measureStartNs = now;
    config.plan.deadlineNs = now + static_cast<std::int64_t>(seconds * 1e9);
    config.plan.timeoutNs = static_cast<std::int64_t>(timeoutSeconds * 1e9);
    config.plan.requestBudget = budget;
    config.plan.stop = &stop;
    config.reconnect = reconnect;
    HttpWorker worker(config);
    worker.run();
    return {worker.stats(), worker.firstProtocolError()};
}

// Answers every request in the order received; `respond(n)` gives the n-th response over all connections.
template <typename Respond>
LoopbackServer::Handler answering(std::atomic<int>& counter, Respond respond) {
    return [&counter, respond](int fd) {
        std::string buffer;
        std::string head;
        while (LoopbackServer::readHead(fd, buffer, head)) {
            const std::string response = respond(counter++);
            if (!LoopbackServer::writeAll(fd, response)) return;
            if (response.find("Connection: close") != std::string::npos) return;
        }
    };
}

TEST(HttpWorker, CountsEveryResponseAndEachNon2xx) {
    std::atomic<int> counter{0};
    LoopbackServer server(answering(counter, [](int n) -> std::string {
        switch (n % 3) {
            case 0:
                return "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
            case 1:
                return "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: "
                       "chunked\r\n\r\n3\r\nnot\r\n5\r\nfound\r\n0\r\n\r\n";
            default:
                return "HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n";
        }
    }));
    const RunResult run = runHttp(server.port(), 3, 1, 300);
    EXPECT_EQ(run.stats.requests, 300u);
    EXPECT_EQ(run.stats.non2xx, 200u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << (run.firstError ? run.firstError : "");
    EXPECT_EQ(run.stats.latency.count(), 300u);
    EXPECT_EQ(counter.load(), 300);  // no request beyond the budget was sent
}

TEST(HttpWorker, PipelinedResponsesAreCountedOneByOne) {
    std::atomic<int> counter{0};
    LoopbackServer server(
        answering(counter, [](int) { return std::string("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); }));
    const RunResult run = runHttp(server.port(), 2, 16, 1000);
    EXPECT_EQ(run.stats.requests, 1000u);
    EXPECT_EQ(run.stats.non2xx, 0u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << (run.firstError ? run.firstError : "");
}

TEST(HttpWorker, ConnectionCloseResponsesAreCountedThenTheConnectionReopened) {
    std::atomic<int> counter{0};
    LoopbackServer server(answering(counter, [](int n) {
        return n % 4 == 3 ? std::string("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx")
                          : std::string("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx");
    }));
    const RunResult run = runHttp(server.port(), 2, 1, 100);
    EXPECT_EQ(run.stats.requests, 100u);
    EXPECT_GE(run.stats.reconnects, 20u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << (run.firstError ? run.firstError : "");
}

TEST(HttpWorker, ReconnectOpensOneConnectionPerBatch) {
    std::atomic<int> counter{0};
    LoopbackServer server(
        answering(counter, [](int) { return std::string("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); }));
    const RunResult run = runHttp(server.port(), 2, 4, 200, 5.0, 1.0, true);
    EXPECT_EQ(run.stats.requests, 200u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << (run.firstError ? run.firstError : "");
    EXPECT_EQ(run.stats.reconnects, 0u);  // planned closes are not reconnects
    EXPECT_EQ(run.stats.tlsHandshakes, 0u);
    // 50 batches of 4, one connection each, and perhaps one more per connection that began as the budget ran out.
    EXPECT_GE(server.accepted(), 50);
    EXPECT_LE(server.accepted(), 52);
}

TEST(HttpWorker, BodyDelimitedByCloseIsCounted) {
    LoopbackServer server([](int fd) {
        std::string buffer;
        std::string head;
        if (LoopbackServer::readHead(fd, buffer, head))
            LoopbackServer::writeAll(fd, "HTTP/1.1 200 OK\r\n\r\nuntil close");
    });
    const RunResult run = runHttp(server.port(), 1, 1, 5);
    EXPECT_EQ(run.stats.requests, 5u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << (run.firstError ? run.firstError : "");
}

TEST(HttpWorker, MalformedResponsesAreProtocolErrorsNotResponses) {
    LoopbackServer server([](int fd) {
        std::string buffer;
        std::string head;
        while (LoopbackServer::readHead(fd, buffer, head)) {
            if (!LoopbackServer::writeAll(fd, "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n")) return;
        }
    });
    const RunResult run = runHttp(server.port(), 2, 1, 0, 0.3);
    EXPECT_EQ(run.stats.requests, 0u);
    EXPECT_GT(run.stats.errors.protocol, 0u);
    ASSERT_NE(run.firstError, nullptr);
    EXPECT_STREQ(run.firstError, "bad status line");
}

TEST(HttpWorker, UnsolicitedBytesAreProtocolErrors) {
    LoopbackServer server([](int fd) {
        std::string buffer;
        std::string head;
        while (LoopbackServer::readHead(fd, buffer, head)) {
            // Two responses to one request.
            if (!LoopbackServer::writeAll(fd,
                                          "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
                                          "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")) {
                return;
            }
        }
    });
    const RunResult run = runHttp(server.port(), 1, 1, 0, 0.3);
    EXPECT_GT(run.stats.errors.protocol, 0u);
}

TEST(HttpWorker, StalledServerIsATimeout) {
    LoopbackServer server([](int fd) {
        std::string buffer;
        std::string head;
        LoopbackServer::readHead(fd, buffer, head);
        char c;
        LoopbackServer::readExact(fd, &c, 1);  // never answers; returns when the client gives up
    });
    const RunResult run = runHttp(server.port(), 1, 1, 0, 0.5, 0.2);
    EXPECT_EQ(run.stats.requests, 0u);
    EXPECT_GE(run.stats.errors.timeout, 1u);
}

TEST(HttpWorker, RefusedConnectionsAreConnectErrors) {
    std::uint16_t port;
    {
        LoopbackServer server([](int) {});
        port = server.port();
    }  // a port nobody listens on any more
    const RunResult run = runHttp(port, 2, 1, 0, 0.3);
    EXPECT_EQ(run.stats.requests, 0u);
    EXPECT_GE(run.stats.errors.connect, 2u);
    EXPECT_LE(run.stats.errors.connect, 20u);  // retried with a pause, not in a busy loop
}

}  // namespace
}  // namespace loopwire::lwload
