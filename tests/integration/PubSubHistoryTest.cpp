// History and recovery through a real redis-server (PubSubHistoryOptions, App::getHistory): messages on a topic
// with history reach every App's subscribers stamped with their position, the publishing App's included and once;
// a read returns what a client missed after its position, or says that the history no longer covers it; and a
// Redis restart in the middle of a stream loses nothing that the history can give back.
#include "Fixture.h"
#include "RedisCluster.h"
#include "RedisServer.h"
#include "broker/RedisSlot.h"
#include "WebSocketFixture.h"
#include "WsTestClient.h"

#include <atomic>
#include <cstdio>
#include <functional>
#include <future>
#include <memory>
#include <set>
#include <string>
#include <thread>

namespace loopwire::test {
namespace {

using namespace std::chrono_literals;
using websocket::EventLog;

struct Nothing {};

// What a read answered, copied off the loop.
struct HistoryCopy {
    std::string error;
    std::string epoch;
    std::uint64_t offset = 0;
    bool recovered = false;
    std::vector<std::string> messages;
    std::vector<std::uint64_t> offsets;
};

// The position in a stamped message ("<epoch>:<offset>:<message>"), and the message.
struct Stamp {
    std::string epoch;
    std::uint64_t offset = 0;
    std::string message;
};

Stamp readStamp(const std::string& stamped) {
    Stamp stamp;
    const std::size_t first = stamped.find(':');
    const std::size_t second = stamped.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) return stamp;
    stamp.epoch = stamped.substr(0, first);
    stamp.offset = std::stoull(stamped.substr(first + 1, second - first - 1));
    stamp.message = stamped.substr(second + 1);
    return stamp;
}

HistoryCopy copyOf(const PubSubHistory& history) {
    HistoryCopy copy;
    copy.error = history.error;
    copy.epoch = history.position.epoch;
    copy.offset = history.position.offset;
    copy.recovered = history.recovered;
    for (std::size_t i = 0; i < history.messageCount; ++i) {
        copy.messages.emplace_back(history.messages[i].message);
        copy.offsets.push_back(history.messages[i].offset);
    }
    return copy;
}

// An App whose WebSockets on /ws subscribe to "chat" and publish what they send to it; "chat" has history.
class Node {
public:
    Node(LoopBackend backend, const std::string& url, PubSubOptions options) {
        ServerOptions serverOptions;
        serverOptions.backend = backend;
        options.url = url;
        server_ = std::make_unique<TestServer>(serverOptions, [this, options](App& app) {
            WebSocketBehavior<Nothing> behavior;
            behavior.open = [](WebSocket<Nothing>* ws) { ws->subscribe("chat"); };
            behavior.message = [](WebSocket<Nothing>* ws, std::string_view message, OpCode opCode) {
                ws->publish("chat", message, opCode);
            };
            app.ws<Nothing>("/ws", std::move(behavior));
            std::string error;
            EXPECT_TRUE(app.tryConnectPubSub(
                options,
                [this](const PubSubEvent& event) {
                    messages.add(std::string(event.message));  // first: a test waits on log
                    log.add(event.kind == PubSubEventKind::Ready ? "ready" : std::string(event.code));
                },
                error))
                << error;
        });
    }
    ~Node() { server_.reset(); }

    void publish(const std::string& message, const std::string& topic = "chat") {
        server_->runOnLoop([&](App& app) { app.publish(topic, message, OpCode::Text); });
    }
    std::unique_ptr<WsTestClient> connect() {
        auto client = std::make_unique<WsTestClient>(server_->port());
        auto response = client->handshake("/ws");
        EXPECT_TRUE(response && response->status == 101);
        return client;
    }
    HistoryCopy read(const std::string& topic, const std::string& epoch, std::uint64_t offset) {
        auto promise = std::make_shared<std::promise<HistoryCopy>>();
        std::future<HistoryCopy> answer = promise->get_future();
        server_->runOnLoop([&](App& app) {
            const bool started =
                app.getHistory(topic, PubSubPosition{epoch, offset},
                               [promise](const PubSubHistory& history) { promise->set_value(copyOf(history)); });
            EXPECT_TRUE(started);
        });
        EXPECT_EQ(answer.wait_for(15s), std::future_status::ready);
        return answer.get();
    }

    void runOnLoop(std::function<void(App&)> f) { server_->runOnLoop(std::move(f)); }

    EventLog log;       // "ready", or the event's code
    EventLog messages;  // each event's message

private:
    std::unique_ptr<TestServer> server_;
};

PubSubOptions withHistory(std::uint32_t size) {
    PubSubOptions options;
    options.history.size = size;
    options.history.ttlSeconds = 600;
    options.reconnectMinDelayMs = 10;
    options.reconnectMaxDelayMs = 50;
    return options;
}

class PubSubHistory : public BackendTest {
protected:
    void SetUp() override { ASSERT_TRUE(RedisServer::available()) << "redis-server is missing: scripts/deps.sh"; }

    // Reads stamped frames until `count` came; returns them.
    static std::vector<Stamp> receive(WsTestClient& client, int count) {
        std::vector<Stamp> stamps;
        for (int i = 0; i < count; ++i) {
            auto frame = client.readFrame(5s);
            EXPECT_TRUE(frame) << "frame " << i << " of " << count;
            if (!frame) break;
            stamps.push_back(readStamp(frame->payload));
        }
        return stamps;
    }
};

LW_INSTANTIATE_BACKENDS(PubSubHistory);

TEST_P(PubSubHistory, StampsEachMessageAndDeliversItOnceToEveryAppThePublishersIncluded) {
    RedisServer redis;
    Node first(backend(), redis.url(), withHistory(100)), second(backend(), redis.url(), withHistory(100));
    ASSERT_TRUE(first.log.waitFor("ready"));
    ASSERT_TRUE(second.log.waitFor("ready"));
    auto writer = first.connect();
    auto local = first.connect();
    auto remote = second.connect();
    std::this_thread::sleep_for(200ms);  // both Apps subscribed
    for (int i = 1; i <= 20; ++i)
        writer->sendText("m" + std::to_string(i));
    for (WsTestClient* client : {writer.get(), local.get(), remote.get()}) {
        const std::vector<Stamp> stamps = receive(*client, 20);
        ASSERT_EQ(stamps.size(), 20u);
        for (int i = 0; i < 20; ++i) {
            EXPECT_EQ(stamps[i].epoch, stamps[0].epoch);
            EXPECT_EQ(stamps[i].epoch.size(), 16u);
            EXPECT_EQ(stamps[i].offset, static_cast<std::uint64_t>(i + 1));
            EXPECT_EQ(stamps[i].message, "m" + std::to_string(i + 1));
        }
        EXPECT_FALSE(client->readFrame(100ms)) << "a message came twice";
    }
}

TEST_P(PubSubHistory, ReturnsWhatAClientMissedAfterItsPosition) {
    RedisServer redis;
    Node node(backend(), redis.url(), withHistory(100));
    ASSERT_TRUE(node.log.waitFor("ready"));
    const HistoryCopy empty = node.read("chat", "", 0);
    EXPECT_EQ(empty.error, "");
    EXPECT_EQ(empty.epoch, "");
    EXPECT_TRUE(empty.recovered);
    for (int i = 1; i <= 10; ++i)
        node.publish("m" + std::to_string(i));

    const HistoryCopy all = node.read("chat", "", 0);
    ASSERT_EQ(all.error, "");
    ASSERT_EQ(all.messages.size(), 10u);
    EXPECT_TRUE(all.recovered);
    EXPECT_EQ(all.offset, 10u);
    EXPECT_EQ(all.messages[0], all.epoch + ":1:m1");

    const HistoryCopy missed = node.read("chat", all.epoch, 4);
    EXPECT_TRUE(missed.recovered);
    ASSERT_EQ(missed.messages.size(), 6u);
    EXPECT_EQ(missed.offsets.front(), 5u);
    EXPECT_EQ(missed.messages.back(), all.epoch + ":10:m10");

    const HistoryCopy upToDate = node.read("chat", all.epoch, 10);
    EXPECT_TRUE(upToDate.recovered);
    EXPECT_TRUE(upToDate.messages.empty());

    const HistoryCopy otherEpoch = node.read("chat", "0123456789abcdef", 4);
    EXPECT_FALSE(otherEpoch.recovered);
    EXPECT_TRUE(otherEpoch.messages.empty());
    EXPECT_EQ(otherEpoch.epoch, all.epoch);
    EXPECT_EQ(otherEpoch.offset, 10u);

    const HistoryCopy future = node.read("chat", all.epoch, 11);
    EXPECT_FALSE(future.recovered);
}

TEST_P(PubSubHistory, SaysWhenTheHistoryNoLongerCoversAPosition) {
    RedisServer redis;
    Node node(backend(), redis.url(), withHistory(5));
    ASSERT_TRUE(node.log.waitFor("ready"));
    for (int i = 1; i <= 10; ++i)
        node.publish("m" + std::to_string(i));
    const HistoryCopy all = node.read("chat", "", 0);
    ASSERT_EQ(all.messages.size(), 5u);
    EXPECT_FALSE(all.recovered) << "offsets 1 to 5 were trimmed";
    EXPECT_EQ(all.offsets.front(), 6u);
    EXPECT_FALSE(node.read("chat", all.epoch, 3).recovered);
    const HistoryCopy covered = node.read("chat", all.epoch, 5);
    EXPECT_TRUE(covered.recovered);
    EXPECT_EQ(covered.messages.size(), 5u);

    // The history is gone (as when its ttl ends it): the next publish starts a new epoch, from offset 1.
    redis.command({"FLUSHALL"});
    node.publish("again");
    const HistoryCopy renewed = node.read("chat", all.epoch, 10);
    EXPECT_FALSE(renewed.recovered);
    EXPECT_NE(renewed.epoch, all.epoch) << "the same App started the topic's history again in the same epoch";
    EXPECT_EQ(renewed.epoch.size(), 16u);
    EXPECT_EQ(renewed.offset, 1u);
    EXPECT_TRUE(renewed.messages.empty());
    EXPECT_TRUE(node.read("chat", renewed.epoch, 0).recovered);
}

// ttlSeconds: a publish renews a topic's history, and the history (its epoch with it) ends that long after the
// last one; a read then says the history no longer covers the old position, and the next publish starts a new
// epoch from offset 1.
TEST_P(PubSubHistory, EndsAHistoryItsTtlAfterTheLastPublish) {
    RedisServer redis;
    PubSubOptions options = withHistory(100);
    options.history.ttlSeconds = 2;
    Node node(backend(), redis.url(), options);
    ASSERT_TRUE(node.log.waitFor("ready"));
    node.publish("m1");
    const HistoryCopy first = node.read("chat", "", 0);
    ASSERT_EQ(first.messages.size(), 1u);
    // Each publish comes well within the ttl of the one before, though the last comes after the first's ttl.
    std::this_thread::sleep_for(1200ms);
    node.publish("m2");
    std::this_thread::sleep_for(1200ms);
    const HistoryCopy renewed = node.read("chat", first.epoch, 0);
    EXPECT_TRUE(renewed.recovered);
    EXPECT_EQ(renewed.epoch, first.epoch);
    EXPECT_EQ(renewed.messages.size(), 2u);

    // Then nothing more is published: within a few seconds Redis ends it.
    HistoryCopy gone;
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    do {
        std::this_thread::sleep_for(100ms);
        gone = node.read("chat", first.epoch, 2);
    } while (gone.epoch == first.epoch && std::chrono::steady_clock::now() < deadline);
    EXPECT_EQ(gone.error, "");
    EXPECT_EQ(gone.epoch, "") << "the history outlived its ttl";
    EXPECT_FALSE(gone.recovered);
    EXPECT_TRUE(gone.messages.empty());
    node.publish("m3");
    const HistoryCopy next = node.read("chat", "", 0);
    EXPECT_NE(next.epoch, first.epoch);
    EXPECT_EQ(next.offset, 1u);
    ASSERT_EQ(next.messages.size(), 1u);
    EXPECT_EQ(next.messages[0], next.epoch + ":1:m3");
}

TEST_P(PubSubHistory, KeepsTopicsWithoutHistoryAsTheyWere) {
    RedisServer redis;
    PubSubOptions options = withHistory(10);
    options.history.topicPrefix = "room/";
    Node node(backend(), redis.url(), options);
    ASSERT_TRUE(node.log.waitFor("ready"));
    auto client = node.connect();
    node.publish("plain");
    auto frame = client->readFrame(5s);
    ASSERT_TRUE(frame);
    EXPECT_EQ(frame->payload, "plain") << "a topic outside the prefix is neither stamped nor held";
    EXPECT_EQ(node.read("chat", "", 0).error, "NOHISTORY");
    node.publish("kept", "room/1");
    const HistoryCopy room = node.read("room/1", "", 0);
    ASSERT_EQ(room.messages.size(), 1u);
    EXPECT_EQ(readStamp(room.messages[0]).message, "kept");
    // One short message: its stamped bytes fit in a string's own storage (libc++ keeps 22), which moves with it.
    node.publish("k", "room/2");
    const HistoryCopy shortOne = node.read("room/2", "", 0);
    ASSERT_EQ(shortOne.messages.size(), 1u);
    EXPECT_EQ(shortOne.messages[0], shortOne.epoch + ":1:k");
}

TEST_P(PubSubHistory, ReadsFailWithTimeoutWhileRedisIsAway) {
    RedisServer redis;
    Node node(backend(), redis.url(), withHistory(10));
    ASSERT_TRUE(node.log.waitFor("ready"));
    redis.stop();
    const auto started = std::chrono::steady_clock::now();
    const HistoryCopy away = node.read("chat", "", 0);
    EXPECT_EQ(away.error, "ETIMEDOUT");
    EXPECT_GE(std::chrono::steady_clock::now() - started,
              std::chrono::milliseconds(PubSubHistoryOptions::kReadTimeoutMs - 500));
}

// A read not answered when the application ends the link (disconnectPubSub, or connectPubSub again) gets its
// callback, with DISCONNECTED, after the call that ended it and not inside it; the new link reads as before.
TEST_P(PubSubHistory, EndsTheReadsOfALinkTheApplicationEndsWithDisconnected) {
    RedisServer redis;
    PubSubOptions options = withHistory(10);
    Node node(backend(), redis.url(), options);
    ASSERT_TRUE(node.log.waitFor("ready"));
    node.publish("before");
    auto ended = std::make_shared<std::promise<HistoryCopy>>();
    auto replaced = std::make_shared<std::promise<HistoryCopy>>();
    auto insideTheCall = std::make_shared<std::atomic<bool>>(false);
    auto calledInside = std::make_shared<std::atomic<bool>>(false);
    node.runOnLoop([&](App& app) {
        // Made and ended in one callback: neither read has been sent.
        ASSERT_TRUE(app.getHistory("chat", PubSubPosition{},
                                   [ended, insideTheCall, calledInside](const loopwire::PubSubHistory& history) {
                                       if (insideTheCall->load()) calledInside->store(true);
                                       ended->set_value(copyOf(history));
                                   }));
        insideTheCall->store(true);
        options.url = redis.url();
        std::string error;
        ASSERT_TRUE(app.tryConnectPubSub(options, {}, error)) << error;
        ASSERT_TRUE(app.getHistory("chat", PubSubPosition{}, [replaced](const loopwire::PubSubHistory& history) {
            replaced->set_value(copyOf(history));
        }));
        app.disconnectPubSub();
        insideTheCall->store(false);
    });
    auto first = ended->get_future();
    auto second = replaced->get_future();
    ASSERT_EQ(first.wait_for(2s), std::future_status::ready) << "not left to time out";
    ASSERT_EQ(second.wait_for(2s), std::future_status::ready);
    EXPECT_EQ(first.get().error, "DISCONNECTED");
    EXPECT_EQ(second.get().error, "DISCONNECTED");
    EXPECT_FALSE(calledInside->load()) << "a handler called from inside the call that ended its link";
    // The link made afterwards reads the history as before.
    node.runOnLoop([&](App& app) {
        std::string error;
        EXPECT_TRUE(app.tryConnectPubSub(options, {}, error)) << error;
    });
    const HistoryCopy after = node.read("chat", "", 0);
    EXPECT_EQ(after.error, "");
    ASSERT_EQ(after.messages.size(), 1u);
    EXPECT_EQ(readStamp(after.messages[0]).message, "before");
}

// Redis loses the scripts while the link is up (an operator's SCRIPT FLUSH): the publish refused NOSCRIPT is lost
// and reported, the link loads them again at once, and what comes after it is kept; a read refused NOSCRIPT is sent
// again after the reload and answered.
TEST_P(PubSubHistory, LoadsItsScriptsAgainWhenRedisLosesThem) {
    RedisServer redis;
    Node node(backend(), redis.url(), withHistory(10));
    ASSERT_TRUE(node.log.waitFor("ready"));
    node.publish("one");
    ASSERT_EQ(node.read("chat", "", 0).messages.size(), 1u);

    ASSERT_EQ(redis.command({"SCRIPT", "FLUSH"}), "+OK\r\n");
    node.publish("lost");
    ASSERT_TRUE(node.log.waitFor("NOSCRIPT")) << "the refused publish was not reported";
    node.publish("two");
    const HistoryCopy published = node.read("chat", "", 0);
    EXPECT_EQ(published.error, "");
    ASSERT_EQ(published.messages.size(), 2u);
    EXPECT_EQ(readStamp(published.messages[0]).message, "one");
    EXPECT_EQ(readStamp(published.messages[1]).message, "two");

    ASSERT_EQ(redis.command({"SCRIPT", "FLUSH"}), "+OK\r\n");
    const auto started = std::chrono::steady_clock::now();
    const HistoryCopy read = node.read("chat", "", 0);
    EXPECT_EQ(read.error, "") << "the read refused NOSCRIPT was not sent again";
    EXPECT_EQ(read.messages.size(), 2u);
    EXPECT_LT(std::chrono::steady_clock::now() - started, 2s) << "answered by its timeout, not by Redis";
}

// History on a Redis Cluster without the sharded option: the link is a classic one to one node, which answers
// MOVED for the keys of the slots it does not have; the error says what to change.
TEST_P(PubSubHistory, SaysThatHistoryOnAClusterNeedsTheShardedOption) {
    RedisCluster cluster;
    ASSERT_TRUE(cluster.ready());
    std::string elsewhere;  // a topic whose slot node 0 does not have
    for (int i = 0; elsewhere.empty(); ++i) {
        const std::string topic = "t" + std::to_string(i);
        if (cluster.ownerOf(broker::RedisSlot::of("loopwire:", topic)) != 0) elsewhere = topic;
    }
    Node node(backend(), cluster.node(0).url(), withHistory(10));
    ASSERT_TRUE(node.log.waitFor("ready"));
    node.publish("lost", elsewhere);
    ASSERT_TRUE(node.log.waitFor("MOVED"));
    bool hinted = false;
    for (const std::string& message : node.messages.events())
        hinted = hinted || message.find("history there needs the sharded option") != std::string::npos;
    EXPECT_TRUE(hinted);
}

// The figures of the closing note: what a subscriber on another App misses of a stream when Redis restarts in its
// middle (with its data kept: appendonly), live and after one read of the history from its last position.
TEST_P(PubSubHistory, GivesBackWhatARedisRestartMidStreamLost) {
    RedisServer redis({"--appendonly", "yes", "--appendfsync", "always"});
    Node publisher(backend(), redis.url(), withHistory(1000)), subscriber(backend(), redis.url(), withHistory(1000));
    ASSERT_TRUE(publisher.log.waitFor("ready"));
    ASSERT_TRUE(subscriber.log.waitFor("ready"));
    auto remote = subscriber.connect();
    std::this_thread::sleep_for(200ms);

    constexpr int kMessages = 600;
    std::atomic<bool> restarted{false};
    std::thread operatorThread([&] {
        std::this_thread::sleep_for(200ms);
        redis.stop();
        std::this_thread::sleep_for(100ms);
        restarted = redis.start();
    });
    for (int i = 1; i <= kMessages; ++i) {
        publisher.publish(std::to_string(i));
        std::this_thread::sleep_for(1ms);
    }
    operatorThread.join();
    ASSERT_TRUE(restarted.load());
    ASSERT_TRUE(publisher.log.waitFor("ready", 2, 10s));
    ASSERT_TRUE(subscriber.log.waitFor("ready", 2, 10s));
    std::this_thread::sleep_for(200ms);
    publisher.publish("end");

    std::set<std::string> live;
    std::string epoch;
    std::uint64_t lastBeforeGap = 0;
    bool gap = false;
    for (;;) {
        auto frame = remote->readFrame(5s);
        ASSERT_TRUE(frame) << "the stream's end never came";
        const Stamp stamp = readStamp(frame->payload);
        if (epoch.empty()) epoch = stamp.epoch;
        EXPECT_EQ(stamp.epoch, epoch) << "Redis kept its data: the epoch is the same";
        if (!gap && stamp.offset == lastBeforeGap + 1) {
            lastBeforeGap = stamp.offset;
        } else {
            gap = true;
        }
        if (stamp.message == "end") break;
        EXPECT_TRUE(live.insert(stamp.message).second) << "twice: " << stamp.message;
    }
    const HistoryCopy missed = subscriber.read("chat", epoch, lastBeforeGap);
    ASSERT_EQ(missed.error, "");
    EXPECT_TRUE(missed.recovered);
    std::set<std::string> recovered = live;
    for (const std::string& message : missed.messages) {
        const Stamp stamp = readStamp(message);
        if (stamp.message != "end") recovered.insert(stamp.message);
    }
    const int lostLive = kMessages - static_cast<int>(live.size());
    const int lostAfterRecovery = kMessages - static_cast<int>(recovered.size());
    EXPECT_LE(lostAfterRecovery, lostLive);
    std::printf("restart mid-stream with history: %d of %d lost live, %d after one history read\n", lostLive, kMessages,
                lostAfterRecovery);
    RecordProperty("lostLive", lostLive);
    RecordProperty("lostAfterRecovery", lostAfterRecovery);
}

}  // namespace
}  // namespace loopwire::test
