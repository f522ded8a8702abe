// The workers over TLS (https://, wss://), against the scripted servers of the plain tests behind a TLS proxy:
// responses and echoes counted as in the clear, handshakes counted and resumed (or not) as asked, the certificate
// checked with --cacert, and a server that does not speak TLS refused.
#include "FanoutLoad.h"
#include "HttpLoad.h"
#include "WsLoad.h"

#include "Clock.h"
#include "FanoutTestServer.h"
#include "LoopbackServer.h"
#include "TlsTestProxy.h"
#include "WsTestServer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <string>

namespace loopwire::lwload {
namespace {

using test::LoopbackServer;
using test::TlsTestProxy;

// OpenSSL writes with write(): a write to a connection the peer has closed must fail, not end the test binary.
const bool kSigpipeIgnored = [] {
    std::signal(SIGPIPE, SIG_IGN);
    return true;
}();

struct RunResult {
    RunStats stats;
    const char* firstError = nullptr;
};

RunPlan planFor(std::uint64_t budget, double seconds) {
    static std::atomic<bool> stop{false};
    RunPlan plan;
    plan.measureStartNs = monotonicNs();
    plan.deadlineNs = plan.measureStartNs + static_cast<std::int64_t>(seconds * 1e9);
    plan.timeoutNs = 1'000'000'000;
    plan.requestBudget = budget;
    plan.stop = &stop;
    return plan;
}

struct HttpsRun {
    std::string host = "127.0.0.1";
    std::uint32_t connections = 2;
    std::uint32_t pipeline = 1;
    std::uint64_t budget = 100;
    bool reconnect = false;
    bool resume = true;
    std::string caFile;
    double seconds = 5.0;
};

RunResult runHttps(std::uint16_t port, const HttpsRun& run) {
    EXPECT_TRUE(kSigpipeIgnored);
    TargetUrl url;
    std::string error;
    EXPECT_TRUE(parseUrl("https://" + run.host + ":" + std::to_string(port) + "/", url, error)) << error;
    ResolvedTarget target;
    EXPECT_TRUE(resolveTarget(url, false, target, error)) << error;
    TlsSettings settings;
    settings.serverName = url.host;
    settings.caFile = run.caFile;
    settings.resume = run.resume;
    const TlsContext tls(settings);
    EXPECT_TRUE(tls.valid()) << tls.error();
    const std::string request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    std::string batch;
    for (std::uint32_t i = 0; i < run.pipeline; ++i)
        batch += request;
    HttpWorkerConfig config;
    config.target = &target;
    config.requestBatch = batch;
    config.requestBytes = request.size();
    config.pipeline = run.pipeline;
    config.connections = run.connections;
    config.reconnect = run.reconnect;
    config.tls = &tls;
    config.plan = planFor(run.budget, run.seconds);
    HttpWorker worker(config);
    worker.run();
    return {worker.stats(), worker.firstProtocolError()};
}

// Answers every request with a 200 and five bytes, for as long as the connection lasts.
LoopbackServer::Handler helloServer() {
    return [](int fd) {
        std::string buffer;
        std::string head;
        while (LoopbackServer::readHead(fd, buffer, head)) {
            if (!LoopbackServer::writeAll(fd, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")) return;
        }
    };
}

const char* describe(const RunResult& run) { return run.firstError != nullptr ? run.firstError : ""; }

TEST(TlsWorker, HttpsResponsesAreCountedAsInTheClear) {
    LoopbackServer backend(helloServer());
    TlsTestProxy proxy(backend.port());
    HttpsRun options;
    options.connections = 3;
    options.budget = 300;
    const RunResult run = runHttps(proxy.port(), options);
    EXPECT_EQ(run.stats.requests, 300u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << describe(run);
    EXPECT_EQ(run.stats.latency.count(), 300u);
    EXPECT_EQ(run.stats.tlsHandshakes, 3u);  // one per connection: they stay open
    EXPECT_EQ(run.stats.tlsResumed, 0u);
    EXPECT_EQ(run.stats.reconnects, 0u);
    EXPECT_EQ(run.stats.bytesRead, 300u * 43);  // the decrypted responses
    EXPECT_EQ(proxy.handshakes(), 3);
}

TEST(TlsWorker, PipelinedHttpsResponsesAreCountedOneByOne) {
    LoopbackServer backend(helloServer());
    TlsTestProxy proxy(backend.port());
    HttpsRun options;
    options.pipeline = 16;
    options.budget = 1000;
    const RunResult run = runHttps(proxy.port(), options);
    EXPECT_EQ(run.stats.requests, 1000u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << describe(run);
}

TEST(TlsWorker, ReconnectResumesTheSessionOfEveryConnectionAfterItsFirst) {
    LoopbackServer backend(helloServer());
    TlsTestProxy proxy(backend.port());
    HttpsRun options;
    options.reconnect = true;
    options.budget = 40;
    const RunResult run = runHttps(proxy.port(), options);
    EXPECT_EQ(run.stats.requests, 40u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << describe(run);
    EXPECT_EQ(run.stats.reconnects, 0u);  // planned closes are not reconnects
    // One handshake per request, and perhaps one more per connection that began as the budget ran out.
    EXPECT_GE(run.stats.tlsHandshakes, 40u);
    EXPECT_LE(run.stats.tlsHandshakes, 42u);
    EXPECT_EQ(run.stats.tlsResumed, run.stats.tlsHandshakes - 2);  // each connection's first is a full one
    EXPECT_GE(proxy.resumed(), 38);                                // and the server agrees
}

TEST(TlsWorker, ReconnectWithoutResumptionMakesFullHandshakes) {
    LoopbackServer backend(helloServer());
    TlsTestProxy proxy(backend.port());
    HttpsRun options;
    options.reconnect = true;
    options.resume = false;
    options.budget = 40;
    const RunResult run = runHttps(proxy.port(), options);
    EXPECT_EQ(run.stats.requests, 40u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << describe(run);
    EXPECT_GE(run.stats.tlsHandshakes, 40u);
    EXPECT_EQ(run.stats.tlsResumed, 0u);
    EXPECT_EQ(proxy.resumed(), 0);
    EXPECT_GE(proxy.handshakes(), 40);
}

TEST(TlsWorker, CacertAcceptsTheServersCertificateByNameOrAddress) {
    LoopbackServer backend(helloServer());
    TlsTestProxy proxy(backend.port());
    for (const char* host : {"localhost", "127.0.0.1"}) {
        HttpsRun options;
        options.host = host;
        options.caFile = proxy.certificateFile();
        options.budget = 20;
        const RunResult run = runHttps(proxy.port(), options);
        EXPECT_EQ(run.stats.requests, 20u) << host;
        EXPECT_EQ(run.stats.errors.total(), 0u) << host << ": " << describe(run);
    }
}

TEST(TlsWorker, CacertRefusesACertificateItDidNotIssue) {
    LoopbackServer backend(helloServer());
    TlsTestProxy proxy(backend.port());
    TlsTestProxy stranger(backend.port());
    HttpsRun options;
    options.caFile = stranger.certificateFile();
    options.seconds = 0.5;
    const RunResult run = runHttps(proxy.port(), options);
    EXPECT_EQ(run.stats.requests, 0u);
    EXPECT_GT(run.stats.errors.tls, 0u);
    EXPECT_STREQ(describe(run), "certificate verify failed");
}

TEST(TlsWorker, AServerThatDoesNotSpeakTlsIsATlsError) {
    // An HTTP server answers the ClientHello it cannot parse with a 400.
    LoopbackServer plain(
        [](int fd) { LoopbackServer::writeAll(fd, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"); });
    HttpsRun options;
    options.seconds = 0.5;
    const RunResult run = runHttps(plain.port(), options);
    EXPECT_EQ(run.stats.requests, 0u);
    EXPECT_GT(run.stats.errors.tls, 0u);
    EXPECT_EQ(run.stats.tlsHandshakes, 0u);
}

TEST(TlsWorker, WssEchoesAreVerified) {
    std::atomic<int> messages{0};
    LoopbackServer backend([&messages](int fd) {
        std::string pending;
        if (!test::acceptUpgrade(fd, pending)) return;
        int opcode = 0;
        std::string payload;
        while (test::readClientFrame(fd, pending, opcode, payload) && opcode != 8) {
            ++messages;
            if (!LoopbackServer::writeAll(fd, test::serverFrame(static_cast<std::uint8_t>(0x80 | opcode), payload))) {
                return;
            }
        }
    });
    TlsTestProxy proxy(backend.port());
    TargetUrl url;
    std::string error;
    ASSERT_TRUE(parseUrl("wss://localhost:" + std::to_string(proxy.port()) + "/echo", url, error)) << error;
    ResolvedTarget target;
    ASSERT_TRUE(resolveTarget(url, false, target, error)) << error;
    TlsSettings settings;
    settings.serverName = url.host;
    settings.caFile = proxy.certificateFile();
    const TlsContext tls(settings);
    ASSERT_TRUE(tls.valid()) << tls.error();
    WsWorkerConfig config;
    config.target = &target;
    config.path = url.path;
    config.authority = url.authority;
    config.messageBytes = 4096;
    config.connections = 2;
    config.tls = &tls;
    config.plan = planFor(200, 5.0);
    WsWorker worker(config);
    worker.run();
    EXPECT_EQ(worker.stats().requests, 200u);
    EXPECT_EQ(worker.stats().errors.total(), 0u)
        << (worker.firstProtocolError() != nullptr ? worker.firstProtocolError() : "");
    EXPECT_EQ(worker.stats().tlsHandshakes, 2u);
    EXPECT_EQ(messages.load(), 200);
}

TEST(TlsWorker, WssFanoutDeliveriesAreVerified) {
    test::FanoutScript script;
    LoopbackServer backend(test::fanoutServer(script));
    TlsTestProxy proxy(backend.port());
    TargetUrl url;
    std::string error;
    ASSERT_TRUE(parseUrl("wss://127.0.0.1:" + std::to_string(proxy.port()) + "/fan", url, error)) << error;
    ResolvedTarget target;
    ASSERT_TRUE(resolveTarget(url, false, target, error)) << error;
    TlsSettings settings;
    settings.serverName = url.host;
    const TlsContext tls(settings);
    ASSERT_TRUE(tls.valid()) << tls.error();
    const std::string subscriberPath = fanoutRolePath(url.path, "sub");
    const std::string publisherPath = fanoutRolePath(url.path, "pub");
    FanoutWorkerConfig config;
    config.target = &target;
    config.subscriberPath = subscriberPath;
    config.publisherPath = publisherPath;
    config.authority = url.authority;
    config.subscribers = 5;
    config.tls = &tls;
    config.plan = planFor(500, 5.0);
    FanoutWorker worker(config);
    worker.run();
    EXPECT_EQ(worker.stats().requests, 500u);
    EXPECT_EQ(worker.stats().errors.total(), 0u)
        << (worker.firstProtocolError() != nullptr ? worker.firstProtocolError() : "");
    EXPECT_EQ(worker.stats().tlsHandshakes, 6u);  // the subscribers and the publisher
}

}  // namespace
}  // namespace loopwire::lwload
