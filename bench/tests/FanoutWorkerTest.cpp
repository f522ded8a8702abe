// The fan-out worker against a scripted loopback server: deliveries counted and verified, lost messages, pings,
// a publisher that is sent messages.
#include "FanoutLoad.h"

#include "Clock.h"
#include "FanoutTestServer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace loopwire::lwload {
namespace {

using test::FanoutScript;
using test::LoopbackServer;

struct RunResult {
    RunStats stats;
    const char* firstError = nullptr;
    double measuredSeconds = 0.0;
};

RunResult runFanout(std::uint16_t port, std::uint32_t subscribers, std::uint64_t budget, double seconds = 5.0,
                    std::uint32_t window = 8, std::uint64_t messageBytes = 20, bool text = false, bool socketIo = false,
                    bool stamped = false) {
    static std::atomic<bool> stop{false};
    TargetUrl url;
    std::string error;
    EXPECT_TRUE(parseUrl("ws://127.0.0.1:" + std::to_string(port) + "/fan", url, error));
    ResolvedTarget target;
    EXPECT_TRUE(resolveTarget(url, false, target, error));
    const std::string subscriberPath = fanoutRolePath(url.path, "sub");
    const std::string publisherPath = fanoutRolePath(url.path, "pub");
    FanoutWorkerConfig config;
    config.target = &target;
    config.subscriberPath = subscriberPath;
    config.publisherPath = publisherPath;
    config.authority = url.authority;
    config.messageBytes = messageBytes;
    config.text = text;
    config.socketIo = socketIo;
    config.stamped = stamped;
    config.subscribers = subscribers;
    config.window = window;
    config.seed = 11;
    const std::int64_t now = monotonicNs();
    config.plan.measureStartNs = now;
    config.plan.deadlineNs = now + static_cast<std::int64_t>(seconds * 1e9);
    config.plan.timeoutNs = 1'000'000'000;
    config.plan.requestBudget = budget;
    config.plan.stop = &stop;
    FanoutWorker worker(config);
    worker.run();
    const std::int64_t end = worker.endNs() < worker.deadlineNs() ? worker.endNs() : worker.deadlineNs();
    return {worker.stats(), worker.firstProtocolError(), static_cast<double>(end - worker.measureStartNs()) / 1e9};
}

TEST(FanoutWorker, EveryDeliveryIsVerifiedAndCounted) {
    FanoutScript script;
    LoopbackServer server(test::fanoutServer(script));
    const RunResult run = runFanout(server.port(), 5, 500);
    EXPECT_EQ(run.stats.requests, 500u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << (run.firstError ? run.firstError : "");
    EXPECT_EQ(run.stats.latency.count(), 500u);
    EXPECT_EQ(script.published.load(), 100);  // 500 deliveries to 5 subscribers, and not one message more
    EXPECT_EQ(server.accepted(), 6);
}

TEST(FanoutWorker, LargeTextMessagesWithAWindowOfOne) {
    FanoutScript script;
    LoopbackServer server(test::fanoutServer(script));
    const RunResult run = runFanout(server.port(), 3, 60, 5.0, 1, 70000, true);
    EXPECT_EQ(run.stats.requests, 60u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << (run.firstError ? run.firstError : "");
}

TEST(FanoutWorker, PingsAreAnsweredAndDoNotDisturbTheCount) {
    FanoutScript script;
    script.pingFirst = true;
    LoopbackServer server(test::fanoutServer(script));
    const RunResult run = runFanout(server.port(), 2, 200);
    EXPECT_EQ(run.stats.requests, 200u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << (run.firstError ? run.firstError : "");
    // Pings read together are answered by one pong (the latest, as RFC 6455 allows), and the last pongs may still
    // be on their way: wait a little for one from each subscriber.
    const std::int64_t giveUp = monotonicNs() + 1'000'000'000;
    while (script.pongs.load() < 2 && monotonicNs() < giveUp)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_GE(script.pongs.load(), 2);
}

// socket.io: every connection answers the open packet with a namespace connect and joins once it is acknowledged;
// each message is an event packet, delivered and verified whole; engine.io's pings get pongs.
TEST(FanoutWorker, SpeaksSocketIo) {
    FanoutScript script;
    script.socketIo = true;
    script.pingFirst = true;
    LoopbackServer server(test::fanoutServer(script));
    const RunResult run = runFanout(server.port(), 5, 500, 5.0, 8, 20, true, true);
    EXPECT_EQ(run.stats.requests, 500u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << (run.firstError ? run.firstError : "");
    EXPECT_EQ(script.published.load(), 100);
    EXPECT_EQ(script.notEvents.load(), 0);
    EXPECT_EQ(script.namespaceConnects.load(), 6);
    const std::int64_t giveUp = monotonicNs() + 1'000'000'000;
    while (script.pongs.load() < 5 && monotonicNs() < giveUp)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_GE(script.pongs.load(), 5);
}

// --stamped: each message's "<epoch>:<offset>:" is taken off before it is compared; a message without one, or whose
// offset is not above the last, is a verify error.
TEST(FanoutWorker, TakesTheStampOffAndChecksThatOffsetsIncrease) {
    FanoutScript script;
    script.stamp = true;
    LoopbackServer server(test::fanoutServer(script));
    const RunResult run = runFanout(server.port(), 5, 500, 5.0, 8, 20, false, false, true);
    EXPECT_EQ(run.stats.requests, 500u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << (run.firstError ? run.firstError : "");

    FanoutScript unstamped;
    LoopbackServer plain(test::fanoutServer(unstamped));
    const RunResult failed = runFanout(plain.port(), 2, 0, 0.3, 8, 20, false, false, true);
    EXPECT_EQ(failed.stats.requests, 0u);
    EXPECT_GT(failed.stats.errors.verify, 0u);

    FanoutScript repeated;
    repeated.stamp = true;
    repeated.stampOffsetStep = 0;
    LoopbackServer again(test::fanoutServer(repeated));
    const RunResult stale = runFanout(again.port(), 2, 0, 0.3, 8, 20, false, false, true);
    EXPECT_LE(stale.stats.requests, 2u) << "only the first message's offset is above the last";
    EXPECT_GT(stale.stats.errors.verify, 0u);
}

TEST(FanoutWorker, ALostMessageIsAVerifyErrorAndTheRunGoesOn) {
    FanoutScript script;
    script.dropEvery = 10;
    LoopbackServer server(test::fanoutServer(script));
    const RunResult run = runFanout(server.port(), 3, 0, 0.3);
    EXPECT_GT(run.stats.requests, 100u);
    EXPECT_GE(run.stats.errors.verify, 1u);
    EXPECT_EQ(run.stats.errors.timeout, 0u);
    EXPECT_EQ(run.stats.errors.protocol, 0u);
    // Each lost message is one verify error; the 2 other subscribers received it.
    const int published = script.published.load();
    EXPECT_LE(run.stats.errors.verify, static_cast<std::uint64_t>(published / 10 + 1));
}

TEST(FanoutWorker, AMessageToThePublisherIsAProtocolError) {
    FanoutScript script;
    script.echoToPublisher = true;
    LoopbackServer server(test::fanoutServer(script));
    const RunResult run = runFanout(server.port(), 2, 0, 0.3);
    EXPECT_GE(run.stats.errors.protocol, 1u);
    ASSERT_NE(run.firstError, nullptr);
    EXPECT_STREQ(run.firstError, "the publisher received a message");
}

TEST(FanoutWorker, TheMeasuredTimeBeginsWhenEverySubscriberHasJoined) {
    FanoutScript script;
    LoopbackServer server(test::fanoutServer(script));
    const RunResult run = runFanout(server.port(), 20, 0, 0.2);
    EXPECT_GT(run.stats.requests, 0u);
    EXPECT_EQ(run.stats.errors.total(), 0u) << (run.firstError ? run.firstError : "");
    EXPECT_NEAR(run.measuredSeconds, 0.2, 0.01);
}

}  // namespace
}  // namespace loopwire::lwload
