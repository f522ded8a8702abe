// The WebSocket worker against scripted loopback servers: handshake, echo verification, fragments, pings.
#include "WsLoad.h"

#include "Clock.h"
#include "LoopbackServer.h"
#include "WsTestServer.h"
#include "WsHandshake.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>

namespace loopwire::lwload {
namespace {

using test::acceptUpgrade;
using test::LoopbackServer;
using test::readClientFrame;
using test::serverFrame;

struct RunResult {
    RunStats stats;
    const char* firstError = nullptr;
};

RunResult runWs(std::uint16_t port, std::uint32_t connections, std::uint64_t messageBytes, bool text,
                std::uint64_t budget, double seconds = 5.0) {
    static std::atomic<bool> stop{false};
    TargetUrl url;
    std::string error;
    EXPECT_TRUE(parseUrl("ws://127.0.0.1:" + std::to_string(port) + "/echo", url, error));
    ResolvedTarget target;
    EXPECT_TRUE(resolveTarget(url, false, target, error));
    WsWorkerConfig config;
    config.target = &target;
    config.path = url.path;
    config.authority = url.authority;
    config.messageBytes = messageBytes;
    config.text = text;
    config.connections = connections;
    config.seed = 7;
    const std::int64_t now = monotonicNs();
    config.plan.measureStartNs = now;
    config.plan.deadlineNs = now + static_cast<std::int64_t>(seconds * 1e9);
    config.plan.timeoutNs = 1'000'000'000;
    config.plan.requestBudget = budget;
    config.plan.stop = &stop;
    WsWorker worker(config);
    worker.run();
    return {worker.stats(), worker.firstProtocolError()};
}

struct EchoScript {
    bool fragmentAndPing = false;
    int corruptEvery = 0;  // flip a byte of every n-th echo
    std::atomic<int> pongs{0};
    std::atomic<int> messages{0};
};

LoopbackServer::Handler echoServer(EchoScript& script) {
    return [&script](int fd) {
        std::string pending;
        if (!acceptUpgrade(fd, pending)) return;
        int opcode = 0;
        std::string payload;
        while (readClientFrame(fd, pending, opcode, payload)) {
            if (opcode == 8) return;
            if (opcode == 10) {
                if (payload == "are you there") ++script.pongs;
                continue;
            }
            const int n = ++script.messages;
            if (script.corruptEvery != 0 && n % script.corruptEvery == 0 && !payload.empty()) payload.back() ^= 1;
            const auto first = static_cast<std::uint8_t>(opcode);
            std::string out;
            if (script.fragmentAndPing && payload.size() >= 2) {
                const std::size_t half = payload.size() / 2;
                out = serverFrame(first, payload.substr(0, half)) + serverFrame(0x89, "are you there") +
                      serverFrame(0x00, "") + serverFrame(0x80, payload.substr(half));
            } else {
                out = serverFrame(static_cast<std::uint8_t>(0x80 | first), payload);
            }
            if (!LoopbackServer::writeAll(fd, out)) return;
        }
    };
}

TEST(WsWorker, EchoesAreVerifiedAndCounted) {
    EchoScript script;
    LoopbackServer server(echoServer(script));
    const RunResult run = runWs(server.port(), 3, 20, false, 300);
    EXPECT_EQ(run.stats.requests, 300u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << (run.firstError ? run.firstError : "");
    EXPECT_EQ(run.stats.latency.count(), 300u);
    EXPECT_EQ(script.messages.load(), 300);
}

TEST(WsWorker, FragmentedEchoesWithPingsInBetween) {
    EchoScript script;
    script.fragmentAndPing = true;
    LoopbackServer server(echoServer(script));
    const RunResult run = runWs(server.port(), 2, 4096, true, 100);
    EXPECT_EQ(run.stats.requests, 100u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << (run.firstError ? run.firstError : "");
    EXPECT_GE(script.pongs.load(), 90);  // the last pongs may still be in flight when the run ends
}

TEST(WsWorker, LargeMessagesUseSixtyFourBitLengths) {
    EchoScript script;
    LoopbackServer server(echoServer(script));
    const RunResult run = runWs(server.port(), 1, 200000, false, 10);
    EXPECT_EQ(run.stats.requests, 10u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << (run.firstError ? run.firstError : "");
}

TEST(WsWorker, ACorruptedEchoIsAVerifyError) {
    EchoScript script;
    script.corruptEvery = 5;
    LoopbackServer server(echoServer(script));
    const RunResult run = runWs(server.port(), 1, 64, false, 100);
    EXPECT_EQ(run.stats.requests, 100u);
    EXPECT_EQ(run.stats.errors.verify, 24u);  // every 5th of the 124 messages it takes to get 100 good ones
}

TEST(WsWorker, RefusedUpgradeIsCountedAsNon2xx) {
    LoopbackServer server([](int fd) {
        std::string pending;
        std::string head;
        if (LoopbackServer::readHead(fd, pending, head)) {
            LoopbackServer::writeAll(fd, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
        }
    });
    const RunResult run = runWs(server.port(), 2, 20, false, 0, 0.3);
    EXPECT_EQ(run.stats.requests, 0u);
    EXPECT_GE(run.stats.non2xx, 2u);
    EXPECT_LE(run.stats.non2xx, 20u);  // retried with a pause
}

TEST(WsWorker, WrongAcceptIsAProtocolError) {
    LoopbackServer server([](int fd) {
        std::string pending;
        std::string head;
        if (LoopbackServer::readHead(fd, pending, head)) {
            LoopbackServer::writeAll(
                fd,
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                "Connection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n");
        }
    });
    const RunResult run = runWs(server.port(), 1, 20, false, 0, 0.3);
    EXPECT_EQ(run.stats.requests, 0u);
    EXPECT_GE(run.stats.errors.protocol, 1u);
    ASSERT_NE(run.firstError, nullptr);
    EXPECT_STREQ(run.firstError, "wrong Sec-WebSocket-Accept");
}

}  // namespace
}  // namespace loopwire::lwload
