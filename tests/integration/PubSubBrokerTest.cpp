// Pub/sub across Apps through a real redis-server (App::connectPubSub): delivery to every subscriber of every App,
// once and in order; subscriptions that follow the local subscribers; and the faults: Redis restarted, stopped,
// refusing, absent, or something else on its port. Every test runs on both loop backends.
#include "Fixture.h"
#include "broker/RedisBroker.h"
#include "RedisCluster.h"
#include "RedisServer.h"
#include "TestCertificates.h"
#include "WebSocketFixture.h"
#include "WsTestClient.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <thread>

namespace loopwire::test {
namespace {

using namespace std::chrono_literals;
using websocket::EventLog;

std::string eventText(const PubSubEvent& event) {
    switch (event.kind) {
        case PubSubEventKind::Ready:
            return "ready";
        case PubSubEventKind::Disconnected:
            return "disconnected:" + std::string(event.code);
        case PubSubEventKind::Error:
            return "error:" + std::string(event.code);
        case PubSubEventKind::Dropped:
            return "dropped:" + std::string(event.code);
    }
    return "?";
}

std::string numsubCommand(const std::string& channel) {
    return "*3\r\n$6\r\nPUBSUB\r\n$6\r\nNUMSUB\r\n$" + std::to_string(channel.size()) + "\r\n" + channel + "\r\n";
}

struct Nothing {};

// An App whose WebSockets on /ws subscribe to "chat" and publish every message they send to it, connected to the
// broker at url; its link's events go to log. compression: its WebSockets' permessage-deflate options.
class Node {
public:
    Node(LoopBackend backend, const std::string& url, PubSubOptions options = {},
         CompressOptions compression = DISABLED) {
        ServerOptions serverOptions;
        serverOptions.backend = backend;
        options.url = url;
        server_ = std::make_unique<TestServer>(serverOptions, [this, options, compression](App& app) {
            WebSocketBehavior<Nothing> behavior;
            behavior.compression = compression;
            behavior.open = [](WebSocket<Nothing>* ws) { ws->subscribe("chat"); };
            behavior.message = [](WebSocket<Nothing>* ws, std::string_view message, OpCode opCode) {
                ws->publish("chat", message, opCode);
            };
            app.ws<Nothing>("/ws", std::move(behavior));
            std::string error;
            EXPECT_TRUE(app.tryConnectPubSub(
                options, [this](const PubSubEvent& event) { log.add(eventText(event)); }, error))
                << error;
        });
    }
    ~Node() { server_.reset(); }

    int port() const { return server_->port(); }
    TestServer& server() { return *server_; }
    PubSubStats stats() {
        PubSubStats stats;
        server_->runOnLoop([&stats](App& app) { stats = app.pubSubStats(); });
        return stats;
    }
    void publish(const std::string& message, OpCode opCode = OpCode::Text, bool compress = false) {
        server_->runOnLoop([&](App& app) { app.publish("chat", message, opCode, compress); });
    }
    // extraHeaders: whole header lines for the upgrade request (an extension offer).
    std::unique_ptr<WsTestClient> connect(std::string_view extraHeaders = {}) {
        auto client = std::make_unique<WsTestClient>(port());
        auto response = client->handshake("/ws", extraHeaders);
        EXPECT_TRUE(response && response->status == 101);
        return client;
    }

    EventLog log;

private:
    std::unique_ptr<TestServer> server_;
};

class PubSubCluster : public BackendTest {
protected:
    void SetUp() override { ASSERT_TRUE(RedisServer::available()) << "redis-server is missing: scripts/deps.sh"; }

    // Waits until Redis counts `count` subscribers (Apps) of channel.
    static bool waitForSubscribers(RedisServer& redis, const std::string& channel, int count) {
        const std::string expected = ":" + std::to_string(count) + "\r\n";
        const auto deadline = std::chrono::steady_clock::now() + 5s;
        while (std::chrono::steady_clock::now() < deadline) {
            const std::string reply = redis.command(numsubCommand(channel));
            if (reply.size() >= expected.size() && reply.ends_with(expected)) return true;
            std::this_thread::sleep_for(5ms);
        }
        return false;
    }

    static void expectMessages(WsTestClient& client, const std::vector<std::string>& messages,
                               std::uint8_t opcode = op::kText) {
        for (const std::string& message : messages) {
            auto frame = client.readFrame();
            ASSERT_TRUE(frame) << "waiting for " << message;
            EXPECT_EQ(frame->opcode, opcode);
            EXPECT_EQ(frame->payload, message);
        }
    }
};

LW_INSTANTIATE_BACKENDS(PubSubCluster);

std::vector<std::string> numbered(const std::string& stem, int count) {
    std::vector<std::string> messages;
    for (int i = 0; i < count; ++i)
        messages.push_back(stem + std::to_string(i));
    return messages;
}

TEST_P(PubSubCluster, DeliversEveryMessageToEveryAppOnceAndInOrder) {
    RedisServer redis;
    ASSERT_TRUE(redis.running());
    Node first(backend(), redis.url()), second(backend(), redis.url()), third(backend(), redis.url());
    for (Node* node : {&first, &second, &third})
        ASSERT_TRUE(node->log.waitFor("ready"));
    auto sender = first.connect();
    auto neighbour = first.connect();
    auto remote = second.connect();
    auto farther = third.connect();
    ASSERT_TRUE(waitForSubscribers(redis, "loopwire:chat", 3));

    const std::vector<std::string> messages = numbered("message ", 200);
    for (const std::string& message : messages)
        sender->sendText(message);
    expectMessages(*remote, messages);
    expectMessages(*farther, messages);
    // The sender's own App delivers it once, locally, to everyone but the sender; Redis's copy is not delivered.
    expectMessages(*neighbour, messages);
    EXPECT_TRUE(neighbour->staysQuiet(200ms));
    EXPECT_TRUE(sender->staysQuiet(50ms));

    // Binary stays binary, byte for byte; text stays text.
    const std::string binary("\0\x01\xff binary", 10);
    sender->sendBinary(binary);
    expectMessages(*remote, {binary}, op::kBinary);
    expectMessages(*neighbour, {binary}, op::kBinary);

    PubSubStats stats = first.stats();
    EXPECT_EQ(stats.state, PubSubState::Ready);
    EXPECT_EQ(stats.published, 201u);
    EXPECT_EQ(stats.dropped, 0u);
    EXPECT_EQ(second.stats().delivered, 201u);
    EXPECT_EQ(first.stats().delivered, 0u);  // its own messages came back from Redis and were not delivered
}

TEST_P(PubSubCluster, DeliversAnAppPublishToEveryAppsSubscribers) {
    RedisServer redis;
    Node first(backend(), redis.url()), second(backend(), redis.url());
    ASSERT_TRUE(first.log.waitFor("ready"));
    ASSERT_TRUE(second.log.waitFor("ready"));
    auto local = first.connect();
    auto remote = second.connect();
    ASSERT_TRUE(waitForSubscribers(redis, "loopwire:chat", 2));
    first.publish("from the app");
    expectMessages(*local, {"from the app"});
    expectMessages(*remote, {"from the app"});
    EXPECT_TRUE(local->staysQuiet(200ms));
}

// Each publisher's messages as a subscriber received them: the numbers after "<publisher>:", in arrival order.
using Streams = std::map<std::string, std::vector<int>>;

Streams receiveStreams(WsTestClient& client, int count) {
    Streams streams;
    for (int i = 0; i < count; ++i) {
        auto frame = client.readFrame(5s);
        EXPECT_TRUE(frame) << "message " << i << " of " << count << " never came";
        if (!frame) break;
        const std::size_t colon = frame->payload.find(':');
        if (colon == std::string::npos) {
            ADD_FAILURE() << "not a numbered message: " << frame->payload;
            continue;
        }
        streams[frame->payload.substr(0, colon)].push_back(std::stoi(frame->payload.substr(colon + 1)));
    }
    return streams;
}

// Three Apps, each with a client that publishes at the same time as the others: every subscriber of every App
// gets every other client's messages, each publisher's in its order, none twice, and never its own.
TEST_P(PubSubCluster, DeliversWhatEveryAppPublishesAtOnceToEveryAppInEachPublishersOrder) {
    RedisServer redis;
    Node a(backend(), redis.url()), b(backend(), redis.url()), c(backend(), redis.url());
    std::array<Node*, 3> nodes = {&a, &b, &c};
    std::vector<std::unique_ptr<WsTestClient>> senders, listeners;
    for (Node* node : nodes) {
        ASSERT_TRUE(node->log.waitFor("ready"));
        senders.push_back(node->connect());
        listeners.push_back(node->connect());
    }
    ASSERT_TRUE(waitForSubscribers(redis, "loopwire:chat", 3));

    constexpr int kPerSender = 300;
    const std::array<std::string, 3> names = {"a", "b", "c"};
    std::vector<std::thread> threads;
    for (std::size_t s = 0; s < senders.size(); ++s) {
        threads.emplace_back([&, s] {
            for (int i = 0; i < kPerSender; ++i)
                senders[s]->sendText(names[s] + ":" + std::to_string(i));
        });
    }
    for (std::thread& thread : threads)
        thread.join();

    std::vector<int> expected(kPerSender);
    for (int i = 0; i < kPerSender; ++i)
        expected[i] = i;
    for (std::size_t n = 0; n < nodes.size(); ++n) {
        const Streams heard = receiveStreams(*listeners[n], 3 * kPerSender);
        for (const std::string& name : names)
            EXPECT_EQ(heard.count(name) ? heard.at(name) : std::vector<int>{}, expected)
                << "listener on App " << names[n] << ", publisher " << name;
        EXPECT_TRUE(listeners[n]->staysQuiet(100ms)) << "a message came twice";
        const Streams echoed = receiveStreams(*senders[n], 2 * kPerSender);
        EXPECT_EQ(echoed.count(names[n]), 0u) << "a client got its own message";
        for (const std::string& name : names) {
            if (name == names[n]) continue;
            EXPECT_EQ(echoed.count(name) ? echoed.at(name) : std::vector<int>{}, expected);
        }
        EXPECT_TRUE(senders[n]->staysQuiet(50ms));
    }
    for (Node* node : nodes) {
        const PubSubStats stats = node->stats();
        EXPECT_EQ(stats.published, static_cast<std::uint64_t>(kPerSender));
        EXPECT_EQ(stats.delivered, static_cast<std::uint64_t>(2 * kPerSender));
        EXPECT_EQ(stats.dropped, 0u);
    }
}

// A publish's compress flag crosses Redis with the message: the other App sends it compressed to a subscriber
// that negotiated permessage-deflate, and as it is to one that did not; binary stays binary.
TEST_P(PubSubCluster, CarriesTheCompressFlagToTheOtherApps) {
    RedisServer redis;
    constexpr CompressOptions kDeflate = SHARED_COMPRESSOR | SHARED_DECOMPRESSOR;
    Node publisher(backend(), redis.url(), {}, kDeflate), subscriber(backend(), redis.url(), {}, kDeflate);
    ASSERT_TRUE(publisher.log.waitFor("ready"));
    ASSERT_TRUE(subscriber.log.waitFor("ready"));
    auto deflating = subscriber.connect("Sec-WebSocket-Extensions: permessage-deflate\r\n");
    auto plain = subscriber.connect();
    ASSERT_TRUE(waitForSubscribers(redis, "loopwire:chat", 1));

    std::string text;
    for (int i = 0; i < 40; ++i)
        text += "the same words again and again, " + std::to_string(i) + "; ";
    publisher.publish(text, OpCode::Text, true);
    publisher.publish(text, OpCode::Text, false);
    const std::string binary = std::string(2000, '\x07') + std::string("\0\xff", 2);
    publisher.publish(binary, OpCode::Binary, true);

    auto compressed = deflating->readFrame();
    ASSERT_TRUE(compressed);
    EXPECT_EQ(compressed->opcode, op::kText);
    EXPECT_EQ(compressed->rsv, kRsv1);
    EXPECT_LT(compressed->payload.size(), text.size() / 4);
    EXPECT_EQ(inflateMessage(compressed->payload), text);
    auto uncompressed = deflating->readFrame();
    ASSERT_TRUE(uncompressed);
    EXPECT_EQ(uncompressed->rsv, 0);
    EXPECT_EQ(uncompressed->payload, text);
    auto compressedBinary = deflating->readFrame();
    ASSERT_TRUE(compressedBinary);
    EXPECT_EQ(compressedBinary->opcode, op::kBinary);
    EXPECT_EQ(compressedBinary->rsv, kRsv1);
    EXPECT_EQ(inflateMessage(compressedBinary->payload), binary);

    for (const std::string& expected : {text, text, binary}) {
        auto frame = plain->readFrame();
        ASSERT_TRUE(frame);
        EXPECT_EQ(frame->rsv, 0);
        EXPECT_EQ(frame->payload, expected);
    }
}

// Applications that share one Redis under different prefixes never hear each other.
TEST_P(PubSubCluster, KeepsApplicationsWithDifferentPrefixesApart) {
    RedisServer redis;
    PubSubOptions blue;
    blue.prefix = "blue:";
    PubSubOptions green;
    green.prefix = "green:";
    Node blueOne(backend(), redis.url(), blue), blueTwo(backend(), redis.url(), blue),
        greenOne(backend(), redis.url(), green);
    for (Node* node : {&blueOne, &blueTwo, &greenOne})
        ASSERT_TRUE(node->log.waitFor("ready"));
    auto blueClient = blueTwo.connect();
    auto greenClient = greenOne.connect();
    ASSERT_TRUE(waitForSubscribers(redis, "blue:chat", 1));
    ASSERT_TRUE(waitForSubscribers(redis, "green:chat", 1));
    blueOne.publish("for blue");
    greenOne.publish("for green");
    expectMessages(*blueClient, {"for blue"});
    expectMessages(*greenClient, {"for green"});
    EXPECT_TRUE(blueClient->staysQuiet(200ms));
    EXPECT_TRUE(greenClient->staysQuiet(50ms));
    EXPECT_EQ(greenOne.stats().delivered, 0u);
}

// An ACL user (redis://user:password@host): one allowed the App's channels works like the default user; one
// refused them gets Redis's NOPERM as an error event, and its App's local pub/sub goes on.
TEST_P(PubSubCluster, ConnectsAsAnAclUserAndReportsAChannelItMayNotUse) {
    RedisServer redis;
    redis.command({"ACL", "SETUSER", "chat", "on", ">chat-secret", "~*", "&loopwire:*", "+@all"});
    redis.command({"ACL", "SETUSER", "other", "on", ">other-secret", "~*", "&elsewhere:*", "+@all"});
    const std::string address = "127.0.0.1:" + std::to_string(redis.port());
    PubSubOptions quick;
    quick.reconnectMinDelayMs = 10;
    quick.reconnectMaxDelayMs = 20;
    Node allowed(backend(), "redis://chat:chat-secret@" + address, quick),
        peer(backend(), "redis://chat:chat-secret@" + address, quick),
        refused(backend(), "redis://other:other-secret@" + address, quick),
        wrong(backend(), "redis://chat:other-secret@" + address, quick);
    ASSERT_TRUE(allowed.log.waitFor("ready"));
    ASSERT_TRUE(peer.log.waitFor("ready"));
    ASSERT_TRUE(refused.log.waitFor("ready"));
    EXPECT_TRUE(wrong.log.waitFor("error:WRONGPASS"));
    auto remote = peer.connect();
    ASSERT_TRUE(waitForSubscribers(redis, "loopwire:chat", 1));
    allowed.publish("as an ACL user");
    expectMessages(*remote, {"as an ACL user"});

    auto local = refused.connect();
    EXPECT_TRUE(refused.log.waitFor("error:NOPERM"));
    refused.publish("stays local");
    expectMessages(*local, {"stays local"});
    EXPECT_TRUE(remote->staysQuiet(200ms));
}

TEST_P(PubSubCluster, SubscribesATopicOnlyWhileItHasLocalSubscribers) {
    RedisServer redis;
    Node first(backend(), redis.url());
    ASSERT_TRUE(first.log.waitFor("ready"));
    EXPECT_TRUE(waitForSubscribers(redis, "loopwire:chat", 0));
    {
        auto one = first.connect();
        auto two = first.connect();
        ASSERT_TRUE(waitForSubscribers(redis, "loopwire:chat", 1));
        one->sendClose(1000);
        ASSERT_TRUE(one->waitForClose());
        // One local subscriber left: still subscribed.
        std::this_thread::sleep_for(50ms);
        EXPECT_TRUE(waitForSubscribers(redis, "loopwire:chat", 1));
    }
    EXPECT_TRUE(waitForSubscribers(redis, "loopwire:chat", 0));
}

TEST_P(PubSubCluster, ResubscribesAndSendsWhatWasQueuedAfterARedisRestart) {
    RedisServer redis;
    // The publisher comes back later than the subscriber, so that the subscriber is there for the queue.
    PubSubOptions slow;
    slow.reconnectMinDelayMs = 400;
    slow.reconnectMaxDelayMs = 500;
    PubSubOptions quick;
    quick.reconnectMinDelayMs = 10;
    quick.reconnectMaxDelayMs = 20;
    Node publisher(backend(), redis.url(), slow), subscriber(backend(), redis.url(), quick);
    ASSERT_TRUE(publisher.log.waitFor("ready"));
    ASSERT_TRUE(subscriber.log.waitFor("ready"));
    auto local = publisher.connect();
    auto remote = subscriber.connect();
    ASSERT_TRUE(waitForSubscribers(redis, "loopwire:chat", 2));

    redis.stop();
    ASSERT_TRUE(publisher.log.waitFor("disconnected:"));
    const std::vector<std::string> queued = numbered("while away ", 20);
    for (const std::string& message : queued)
        publisher.publish(message);
    // Local subscribers do not wait for Redis.
    expectMessages(*local, queued);
    EXPECT_EQ(publisher.stats().queuedMessages, 20u);
    EXPECT_EQ(publisher.stats().state, PubSubState::Disconnected);

    ASSERT_TRUE(redis.start());
    ASSERT_TRUE(subscriber.log.waitFor("ready", 2, 10s));
    ASSERT_TRUE(publisher.log.waitFor("ready", 2, 10s));
    expectMessages(*remote, queued);
    EXPECT_TRUE(local->staysQuiet(100ms));
    PubSubStats stats = publisher.stats();
    EXPECT_EQ(stats.reconnects, 1u);
    EXPECT_EQ(stats.queuedMessages, 0u);
    EXPECT_EQ(stats.published, 20u);
    EXPECT_EQ(stats.dropped, 0u);

    // And the link works as before.
    local->sendText("after");
    expectMessages(*remote, {"after"});
}

// A stream of messages, one every millisecond, while Redis is killed and started again in its middle: nothing
// crashes, the link comes back, and what arrives arrives in order and once. What is lost (published while the
// subscriber's App was away, or in flight at the kill) is counted and printed, for the record.
TEST_P(PubSubCluster, KeepsOrderAndNeverDuplicatesAcrossARedisRestartMidStream) {
    RedisServer redis;
    PubSubOptions quick;
    quick.reconnectMinDelayMs = 10;
    quick.reconnectMaxDelayMs = 50;
    Node publisher(backend(), redis.url(), quick), subscriber(backend(), redis.url(), quick);
    ASSERT_TRUE(publisher.log.waitFor("ready"));
    ASSERT_TRUE(subscriber.log.waitFor("ready"));
    auto remote = subscriber.connect();
    ASSERT_TRUE(waitForSubscribers(redis, "loopwire:chat", 1));

    constexpr int kMessages = 600;
    std::atomic<bool> restarted{false};
    std::thread operatorThread([&] {
        std::this_thread::sleep_for(200ms);
        redis.stop();
        std::this_thread::sleep_for(100ms);
        restarted = redis.start();
    });
    for (int i = 0; i < kMessages; ++i) {
        publisher.publish(std::to_string(i));
        std::this_thread::sleep_for(1ms);
    }
    operatorThread.join();
    ASSERT_TRUE(restarted.load());
    ASSERT_TRUE(publisher.log.waitFor("ready", 2, 10s));
    publisher.publish("end");
    int last = -1;
    int received = 0;
    for (;;) {
        auto frame = remote->readFrame(5s);
        ASSERT_TRUE(frame) << "the stream's end never came; last " << last;
        if (frame->payload == "end") break;
        const int number = std::stoi(frame->payload);
        EXPECT_GT(number, last) << "out of order or twice";
        last = number;
        ++received;
    }
    EXPECT_EQ(publisher.stats().reconnects, 1u);
    EXPECT_EQ(subscriber.stats().reconnects, 1u);
    EXPECT_GT(received, 0);
    std::printf("restart mid-stream: %d of %d messages delivered, %d lost\n", received, kMessages,
                kMessages - received);
    RecordProperty("lost", kMessages - received);
}

TEST_P(PubSubCluster, BoundsTheQueueWhenRedisStopsReading) {
    RedisServer redis;
    PubSubOptions options;
    options.maxQueuedBytes = 256 * 1024;
    Node node(backend(), redis.url(), options);
    ASSERT_TRUE(node.log.waitFor("ready"));
    redis.pause();
    const std::string large(64 * 1024, 'x');
    // Enough to fill the kernel's socket buffers on both sides, then the queue.
    for (int i = 0; i < 600; ++i)
        node.publish(large);
    PubSubStats stats = node.stats();
    EXPECT_GT(stats.dropped, 0u);
    EXPECT_LE(stats.queuedBytes, options.maxQueuedBytes);
    EXPECT_TRUE(node.log.waitFor("dropped:QUEUE_FULL"));
    EXPECT_EQ(node.log.count("dropped:"), 1u) << "one report per run of drops";
    redis.resume();
    // Local pub/sub went on all along.
    auto client = node.connect();
    node.publish("local");
    expectMessages(*client, {"local"});
}

TEST_P(PubSubCluster, ReportsARefusedConnectionAndKeepsLocalPubSub) {
    int port = 0;
    {
        RedisServer gone;  // a port that was free a moment ago and has nothing listening now
        port = gone.port();
    }
    PubSubOptions options;
    options.reconnectMinDelayMs = 10;
    options.reconnectMaxDelayMs = 20;
    Node node(backend(), "redis://127.0.0.1:" + std::to_string(port), options);
    ASSERT_TRUE(node.log.waitFor("error:ECONNREFUSED", 3));
    auto one = node.connect();
    auto two = node.connect();
    std::this_thread::sleep_for(20ms);
    one->sendText("still here");
    expectMessages(*two, {"still here"});
    PubSubStats stats = node.stats();
    EXPECT_NE(stats.state, PubSubState::Ready);
    EXPECT_GE(stats.errors, 3u);
}

TEST_P(PubSubCluster, ReportsARefusedPassword) {
    RedisServer redis({"--requirepass", "s3cret"});
    const std::string address = "127.0.0.1:" + std::to_string(redis.port());
    Node without(backend(), "redis://" + address), wrong(backend(), "redis://:wrong@" + address),
        right(backend(), "redis://:s3cret@" + address), named(backend(), "redis://default:s3cret@" + address);
    EXPECT_TRUE(without.log.waitFor("error:NOAUTH"));
    EXPECT_TRUE(wrong.log.waitFor("error:WRONGPASS"));
    EXPECT_TRUE(right.log.waitFor("ready"));
    EXPECT_TRUE(named.log.waitFor("ready"));
}

TEST_P(PubSubCluster, ReportsSomethingThatIsNotRedisOnItsPort) {
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(::listen(listener, 16), 0);
    socklen_t length = sizeof address;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
    std::atomic<bool> stop{false};
    std::thread fake([&] {
        while (!stop) {
            const int client = ::accept(listener, nullptr, nullptr);
            if (client < 0) return;
            const std::string_view garbage = "HTTP/1.1 400 Bad Request\r\n\r\n";
            ::send(client, garbage.data(), garbage.size(), MSG_NOSIGNAL);
            ::close(client);
        }
    });
    {
        PubSubOptions options;
        options.reconnectMinDelayMs = 1000;
        Node node(backend(), "redis://127.0.0.1:" + std::to_string(ntohs(address.sin_port)), options);
        EXPECT_TRUE(node.log.waitFor("error:PROTOCOL"));
        auto client = node.connect();
        node.publish("fine");
        expectMessages(*client, {"fine"});
    }
    stop = true;
    ::shutdown(listener, SHUT_RDWR);
    ::close(listener);
    fake.join();
}

// How many times Redis has run command (INFO commandstats), or 0.
int commandCalls(RedisServer& redis, const std::string& command) {
    const std::string reply = redis.command("*2\r\n$4\r\nINFO\r\n$12\r\ncommandstats\r\n");
    const std::string key = "cmdstat_" + command + ":calls=";
    const std::size_t at = reply.find(key);
    return at == std::string::npos ? 0 : std::atoi(reply.c_str() + at + key.size());
}

// The number of channels Redis has subscribers for (PUBSUB NUMPAT would not do: these are plain channels).
int channelCount(RedisServer& redis) {
    const std::string reply = redis.command("*2\r\n$6\r\nPUBSUB\r\n$8\r\nCHANNELS\r\n");
    return reply.size() > 1 && reply[0] == '*' ? std::atoi(reply.c_str() + 1) : -1;
}

// Ten thousand topics subscribed by one socket in one handler cost Redis ten SUBSCRIBE commands (1,024 channels
// each at most); a topic subscribed and unsubscribed within one handler costs it nothing; leaving them all
// unsubscribes them all.
TEST_P(PubSubCluster, BatchesTenThousandTopicsAndTheirChurn) {
    RedisServer redis;
    constexpr int kTopics = 10000;
    ServerOptions serverOptions;
    serverOptions.backend = backend();
    EventLog log;
    TestServer server(serverOptions, [&](App& app) {
        WebSocketBehavior<Nothing> behavior;
        behavior.message = [](WebSocket<Nothing>* ws, std::string_view message, OpCode) {
            if (message == "many") {
                for (int i = 0; i < kTopics; ++i)
                    ws->subscribe("t" + std::to_string(i));
            } else if (message == "none") {
                for (int i = 0; i < kTopics; ++i)
                    ws->unsubscribe("t" + std::to_string(i));
            } else if (message == "flap") {
                for (int i = 0; i < 100; ++i) {
                    ws->subscribe("flap");
                    ws->unsubscribe("flap");
                }
            }
            ws->send("done", OpCode::Text);
        };
        app.ws<Nothing>("/ws", std::move(behavior));
        PubSubOptions options;
        options.url = redis.url();
        app.connectPubSub(options, [&log](const PubSubEvent& event) { log.add(eventText(event)); });
    });
    ASSERT_TRUE(log.waitFor("ready"));
    Node publisher(backend(), redis.url());
    ASSERT_TRUE(publisher.log.waitFor("ready"));
    WsTestClient client(server.port());
    ASSERT_EQ(client.handshake("/ws")->status, 101);
    const int subscribesBefore = commandCalls(redis, "subscribe");

    client.sendText("many");
    ASSERT_EQ(client.readFrame()->payload, "done");
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (channelCount(redis) != kTopics && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(5ms);
    EXPECT_EQ(channelCount(redis), kTopics);
    EXPECT_EQ(commandCalls(redis, "subscribe") - subscribesBefore, (kTopics + 1023) / 1024);
    publisher.server().runOnLoop([](App& app) { app.publish("t5000", "to one of ten thousand", OpCode::Text); });
    auto frame = client.readFrame();
    ASSERT_TRUE(frame);
    EXPECT_EQ(frame->payload, "to one of ten thousand");

    const int beforeFlap = commandCalls(redis, "subscribe") + commandCalls(redis, "unsubscribe");
    client.sendText("flap");
    ASSERT_EQ(client.readFrame()->payload, "done");
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(commandCalls(redis, "subscribe") + commandCalls(redis, "unsubscribe"), beforeFlap);

    client.sendText("none");
    ASSERT_EQ(client.readFrame()->payload, "done");
    const auto emptied = std::chrono::steady_clock::now() + 5s;
    while (channelCount(redis) != 0 && std::chrono::steady_clock::now() < emptied)
        std::this_thread::sleep_for(5ms);
    EXPECT_EQ(channelCount(redis), 0);
}

// A peer on the Redis port that answers HELLO and then pushes a message longer than RedisBroker::kMaxReplyBytes is
// dropped (PROTOCOL) once that much has arrived, rather than buffered.
TEST_P(PubSubCluster, DropsAReplyLongerThanItsLimit) {
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(::listen(listener, 4), 0);
    socklen_t length = sizeof address;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
    std::atomic<bool> stop{false};
    std::atomic<std::size_t> sent{0};
    std::thread fake([&] {
        const int client = ::accept(listener, nullptr, nullptr);
        if (client < 0) return;
        char request[256];
        (void)::recv(client, request, sizeof request, 0);  // HELLO 3 SETNAME loopwire
        const std::string hello = "%1\r\n$5\r\nproto\r\n:3\r\n";
        const std::string header = ">3\r\n$7\r\nmessage\r\n$14\r\nloopwire:topic\r\n$100000000\r\n";
        ::send(client, hello.data(), hello.size(), MSG_NOSIGNAL);
        ::send(client, header.data(), header.size(), MSG_NOSIGNAL);
        const std::string chunk(1 << 20, 'x');
        while (!stop && sent < 100u << 20) {
            const ssize_t n = ::send(client, chunk.data(), chunk.size(), MSG_NOSIGNAL);
            if (n <= 0) break;
            sent += static_cast<std::size_t>(n);
        }
        ::close(client);
    });
    {
        PubSubOptions options;
        options.reconnectMinDelayMs = 5000;
        Node node(backend(), "redis://127.0.0.1:" + std::to_string(ntohs(address.sin_port)), options);
        EXPECT_TRUE(node.log.waitFor("ready"));
        EXPECT_TRUE(node.log.waitFor("disconnected:PROTOCOL", 1, 10s));
    }
    stop = true;
    ::shutdown(listener, SHUT_RDWR);
    ::close(listener);
    fake.join();
    EXPECT_GE(sent.load(), broker::RedisBroker::kMaxReplyBytes);
    EXPECT_LT(sent.load(), 100u << 20) << "the connection was dropped before the whole message came";
}

// On a Redis Cluster, Apps linked to different nodes share their topics: the cluster carries a PUBLISH to every
// node's subscribers.
TEST_P(PubSubCluster, WorksOnARedisClusterThroughAnyNode) {
    RedisCluster cluster;
    ASSERT_TRUE(cluster.ready());
    Node first(backend(), cluster.node(0).url()), second(backend(), cluster.node(2).url());
    ASSERT_TRUE(first.log.waitFor("ready"));
    ASSERT_TRUE(second.log.waitFor("ready"));
    auto sender = first.connect();
    auto remote = second.connect();
    ASSERT_TRUE(waitForSubscribers(cluster.node(2), "loopwire:chat", 1));
    ASSERT_TRUE(waitForSubscribers(cluster.node(0), "loopwire:chat", 1));
    const std::vector<std::string> messages = numbered("across the cluster ", 50);
    for (const std::string& message : messages)
        sender->sendText(message);
    expectMessages(*remote, messages);
    EXPECT_TRUE(sender->staysQuiet(100ms));
}

// A URL of several hosts: the link tries the next when one fails, and goes back round when that one fails too.
TEST_P(PubSubCluster, TriesTheNextHostOfItsUrl) {
    RedisServer first;
    RedisServer second;
    first.stop();
    PubSubOptions options;
    options.reconnectMinDelayMs = 10;
    options.reconnectMaxDelayMs = 20;
    Node node(backend(),
              "redis://127.0.0.1:" + std::to_string(first.port()) + ",127.0.0.1:" + std::to_string(second.port()),
              options);
    ASSERT_TRUE(node.log.waitFor("error:ECONNREFUSED"));
    ASSERT_TRUE(node.log.waitFor("ready"));
    auto client = node.connect();
    ASSERT_TRUE(waitForSubscribers(second, "loopwire:chat", 1));
    // The second goes, the first comes back: the link follows.
    ASSERT_TRUE(first.start());
    second.stop();
    ASSERT_TRUE(node.log.waitFor("ready", 2, 10s));
    EXPECT_TRUE(waitForSubscribers(first, "loopwire:chat", 1));
}

// rediss://: a Redis that speaks only TLS, its certificate checked against the test CA and the host name.
TEST_P(PubSubCluster, LinksOverTlsWithACheckedCertificate) {
    const TestCertificates& certificates = TestCertificates::get();
    RedisServer redis(
        {"--tls-cert-file", certificates.certFile, "--tls-key-file", certificates.keyFile, "--tls-ca-cert-file",
         certificates.caFile, "--tls-auth-clients", "no", "--requirepass", "s3cret"},
        true);
    ASSERT_TRUE(redis.running());
    const std::string port = std::to_string(redis.port());
    PubSubOptions trusted;
    trusted.tlsCaFile = certificates.caFile;
    Node first(backend(), "rediss://:s3cret@localhost:" + port, trusted),
        second(backend(), "rediss://:s3cret@127.0.0.1:" + port, trusted);
    ASSERT_TRUE(first.log.waitFor("ready"));
    ASSERT_TRUE(second.log.waitFor("ready"));
    auto sender = first.connect();
    auto remote = second.connect();
    // No PUBSUB NUMSUB over plain text here: the subscription is proven by a message that crosses.
    std::vector<std::string> delivered;
    for (int attempt = 0; attempt < 100 && delivered.empty(); ++attempt) {
        sender->sendText("over tls");
        if (auto frame = remote->readFrame(50ms)) delivered.push_back(frame->payload);
    }
    ASSERT_FALSE(delivered.empty());
    EXPECT_EQ(delivered.front(), "over tls");
    const std::vector<std::string> messages = numbered("encrypted ", 100);
    for (const std::string& message : messages)
        sender->sendText(message);
    for (;;) {  // the retries above may have been delivered late
        auto frame = remote->readFrame();
        ASSERT_TRUE(frame);
        if (frame->payload == "over tls") continue;
        EXPECT_EQ(frame->payload, messages.front());
        break;
    }
    expectMessages(*remote, std::vector<std::string>(messages.begin() + 1, messages.end()));

    // A certificate that does not chain to the CA given (the system's store does not know the test CA), a name
    // the certificate does not have, and plain text to a TLS port: each fails clearly.
    PubSubOptions slow;
    slow.reconnectMinDelayMs = 1000;
    Node untrusted(backend(), "rediss://localhost:" + port, slow);
    EXPECT_TRUE(untrusted.log.waitFor("error:TLS"));
    RedisServer otherName({"--tls-cert-file", certificates.otherCertFile, "--tls-key-file", certificates.otherKeyFile,
                           "--tls-ca-cert-file", certificates.caFile, "--tls-auth-clients", "no"},
                          true);
    PubSubOptions wrongName = trusted;
    wrongName.reconnectMinDelayMs = 1000;
    Node misnamed(backend(), "rediss://127.0.0.1:" + std::to_string(otherName.port()), wrongName);
    EXPECT_TRUE(misnamed.log.waitFor("error:TLS"));
    EXPECT_EQ(misnamed.log.count("ready"), 0u);
    Node plainText(backend(), "redis://:s3cret@127.0.0.1:" + port, slow);
    EXPECT_TRUE(plainText.log.waitFor("error:"));
    EXPECT_EQ(plainText.log.count("ready"), 0u);
    PubSubOptions unchecked = slow;
    unchecked.tlsVerify = false;
    Node anyCertificate(backend(), "rediss://:s3cret@127.0.0.1:" + port, unchecked);
    EXPECT_TRUE(anyCertificate.log.waitFor("ready"));
}

TEST_P(PubSubCluster, RefusesAMalformedUrl) {
    ServerOptions serverOptions;
    serverOptions.backend = backend();
    TestServer server(serverOptions, [](App&) {});
    server.runOnLoop([](App& app) {
        std::string error;
        for (const char* url : {"http://127.0.0.1", "redis://", "redis://host:0", "redis://host:65536",
                                "redis://host:12ab", "redis://[::1", "redis://:%zz@host", "redisx://host"}) {
            PubSubOptions options;
            options.url = url;
            EXPECT_FALSE(app.tryConnectPubSub(options, {}, error)) << url;
            EXPECT_FALSE(error.empty()) << url;
        }
        EXPECT_EQ(app.pubSubStats().state, PubSubState::Closed);
    });
}

TEST_P(PubSubCluster, ResolvesAHostName) {
    RedisServer redis;
    Node node(backend(), "redis://localhost:" + std::to_string(redis.port()));
    EXPECT_TRUE(node.log.waitFor("ready"));
    Node nowhere(backend(), "redis://no-such-host.invalid:6379");
    EXPECT_TRUE(nowhere.log.waitFor("error:EAI_NONAME"));
}

}  // namespace
}  // namespace loopwire::test
