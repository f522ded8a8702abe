// Sharded pub/sub (PubSubOptions::sharded: SSUBSCRIBE and SPUBLISH) on a real three-master Redis Cluster and on a
// standalone Redis 7: each topic lives on the master that owns its slot, every message reaches every App once and
// in order, and a slot that moves in the middle of a stream is followed. Every test runs on both loop backends.
#include "Fixture.h"
#include "broker/BrokerEnvelope.h"
#include "broker/RedisClusterBroker.h"
#include "broker/RedisHistoryRead.h"
#include "broker/RedisSlot.h"
#include "broker/RespFramer.h"
#include "broker/RespReader.h"
#include "LoopbackListener.h"
#include "RedisCluster.h"
#include "RedisServer.h"
#include "WebSocketFixture.h"
#include "WsTestClient.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <functional>
#include <future>
#include <mutex>
#include <cstdio>
#include <regex>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace loopwire::test {
namespace {

using namespace std::chrono_literals;
using websocket::EventLog;

constexpr std::string_view kPrefix = "loopwire:";

struct Nothing {};

// What a history read answered, copied off the loop: its error, or its messages without their stamps.
struct ReadResult {
    std::string error;
    std::vector<std::string> messages;
};

// An App, linked in sharded mode to url, whose WebSockets on /ws subscribe to every topic of `topics`; a message
// "topic|text" a socket sends is published, whole, to topic.
class TopicNode {
public:
    TopicNode(LoopBackend backend, const std::string& url, std::vector<std::string> topics, PubSubOptions options = {})
        : topics_(std::move(topics)) {
        ServerOptions serverOptions;
        serverOptions.backend = backend;
        options.url = url;
        options.sharded = true;
        server_ = std::make_unique<TestServer>(serverOptions, [this, options](App& app) {
            WebSocketBehavior<Nothing> behavior;
            behavior.open = [this](WebSocket<Nothing>* ws) {
                for (const std::string& topic : topics_)
                    ws->subscribe(topic);
            };
            behavior.message = [](WebSocket<Nothing>* ws, std::string_view message, OpCode opCode) {
                ws->publish(message.substr(0, message.find('|')), message, opCode);
            };
            app.ws<Nothing>("/ws", std::move(behavior));
            std::string error;
            EXPECT_TRUE(app.tryConnectPubSub(
                options,
                [this](const PubSubEvent& event) {
                    log.add(event.kind == PubSubEventKind::Ready
                                ? "ready"
                                : "event:" + std::string(event.code) + " " + std::string(event.message));
                },
                error))
                << error;
        });
    }

    PubSubStats stats() {
        PubSubStats stats;
        server_->runOnLoop([&stats](App& app) { stats = app.pubSubStats(); });
        return stats;
    }
    void publish(const std::string& topic, const std::string& message) {
        server_->runOnLoop([&](App& app) { app.publish(topic, message, OpCode::Text); });
    }
    // Runs a task on the App's loop that returns once `release` is ready, and sets `held` as it starts: what
    // arrives meanwhile is reported by the loop's next wait for events, in the order it came. Returns when the task
    // has ended.
    void holdLoop(std::shared_future<void> release, std::atomic<bool>& held) {
        server_->runOnLoop([&held, release](App&) {
            held = true;
            release.wait();
        });
    }
    std::unique_ptr<WsTestClient> connect() {
        auto client = std::make_unique<WsTestClient>(server_->port());
        auto response = client->handshake("/ws");
        EXPECT_TRUE(response && response->status == 101);
        return client;
    }
    // topic's whole history (the options must give it one).
    ReadResult read(const std::string& topic) {
        auto promise = std::make_shared<std::promise<ReadResult>>();
        std::future<ReadResult> answer = promise->get_future();
        server_->runOnLoop([&](App& app) {
            EXPECT_TRUE(app.getHistory(topic, PubSubPosition{}, [promise](const PubSubHistory& history) {
                ReadResult result;
                result.error = history.error;
                for (std::size_t i = 0; i < history.messageCount; ++i) {
                    const std::string_view stamped = history.messages[i].message;
                    result.messages.emplace_back(stamped.substr(stamped.find(':', stamped.find(':') + 1) + 1));
                }
                promise->set_value(std::move(result));
            }));
        });
        EXPECT_EQ(answer.wait_for(15s), std::future_status::ready);
        return answer.get();
    }

    EventLog log;

private:
    std::vector<std::string> topics_;
    std::unique_ptr<TestServer> server_;
};

// A scripted stand-in for one node of a cluster, on a free loopback port: each command a connection sends is
// answered by answer(arguments), in order; with a delay, each read's commands are answered that long after they
// came (a node slow to answer, so that the App publishes more while replies are on their way).
class FakeNode {
public:
    using Answer = std::function<std::string(const std::vector<std::string>&)>;

    explicit FakeNode(Answer answer, std::chrono::milliseconds delay = {}) : answer_(std::move(answer)), delay_(delay) {
        listener_ = listenOnLoopback(port_);
        acceptor_ = std::thread([this] {
            for (;;) {
                const int client = ::accept(listener_, nullptr, nullptr);
                if (client < 0) return;
                std::lock_guard lock(mutex_);
                clients_.push_back(client);
                servers_.emplace_back([this, client] { serve(client); });
            }
        });
    }
    ~FakeNode() {
        ::shutdown(listener_, SHUT_RDWR);
        acceptor_.join();
        ::close(listener_);
        std::lock_guard lock(mutex_);
        for (const int client : clients_)
            ::shutdown(client, SHUT_RDWR);
        for (std::thread& server : servers_)
            server.join();
        for (const int client : clients_)
            ::close(client);
    }
    int port() const { return port_; }
    std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }

private:
    void serve(int client) {
        std::string received;
        char buffer[16384];
        for (;;) {
            const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
            if (n <= 0) return;
            received.append(buffer, static_cast<std::size_t>(n));
            if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
            std::string replies;
            resp::RespFramer framer;
            for (;;) {
                const resp::RespResult command = framer.next(received);
                if (command.status != resp::RespStatus::Complete) break;
                resp::RespReader reader(std::string_view(received).substr(0, command.consumed));
                resp::RespValue array;
                reader.next(array);
                std::vector<std::string> arguments;
                resp::RespReader each = array.elements();
                resp::RespValue argument;
                while (each.next(argument))
                    arguments.emplace_back(argument.text);
                replies += answer_(arguments);
                received.erase(0, command.consumed);
            }
            if (::send(client, replies.data(), replies.size(), MSG_NOSIGNAL) < 0) return;
        }
    }

    Answer answer_;
    std::chrono::milliseconds delay_;
    int listener_ = -1;
    int port_ = 0;
    std::thread acceptor_;
    std::mutex mutex_;
    std::vector<int> clients_;
    std::vector<std::thread> servers_;
};

// The CLUSTER SLOTS reply that gives every slot to the node on port.
std::string everySlotTo(int port) {
    return "*1\r\n*3\r\n:0\r\n:16383\r\n*2\r\n$9\r\n127.0.0.1\r\n:" + std::to_string(port) + "\r\n";
}

// A node that takes a link and answers nothing: its first connection is closed as soon as the HELLO is read (the
// link goes down and its App asks for the map again); the second is kept, unanswered, for the test.
class SilentNode {
public:
    SilentNode() {
        listener_ = listenOnLoopback(port_);
        acceptor_ = std::thread([this] {
            char hello[512];
            for (int connection = 0; connection < 2; ++connection) {
                const int accepted = ::accept(listener_, nullptr, nullptr);
                if (accepted < 0) break;
                ::recv(accepted, hello, sizeof hello, 0);
                if (connection == 0) {
                    ::close(accepted);
                } else {
                    held_.set_value(accepted);
                    return;
                }
            }
            held_.set_value(-1);
        });
    }
    ~SilentNode() {
        ::shutdown(listener_, SHUT_RDWR);
        acceptor_.join();
        ::close(listener_);
        if (connection_ >= 0) ::close(connection_);
    }
    int port() const { return port_; }
    // The second connection once its HELLO is read, or -1 after 5 s.
    int heldConnection() {
        if (heldFuture_.wait_for(5s) == std::future_status::ready) connection_ = heldFuture_.get();
        return connection_;
    }
    // Whether the App closed the held connection within 5 s.
    bool closedByPeer() const {
        char byte = 0;
        timeval timeout{5, 0};
        ::setsockopt(connection_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        // A reset when the bytes the test sent were still unread: the link closed without reading them.
        const ssize_t received = ::recv(connection_, &byte, 1, 0);
        return received == 0 || (received < 0 && errno == ECONNRESET);
    }

private:
    int listener_ = -1;
    int port_ = 0;
    int connection_ = -1;
    std::promise<int> held_;
    std::future<int> heldFuture_ = held_.get_future();
    std::thread acceptor_;
};

class ShardedPubSub : public BackendTest {
protected:
    void SetUp() override { ASSERT_TRUE(RedisServer::available()) << "redis-server is missing: scripts/deps.sh"; }

    // The Apps subscribed to channel on server, as PUBSUB SHARDNUMSUB counts them.
    static int shardSubscribers(RedisServer& server, const std::string& channel) {
        const std::string reply = server.command({"PUBSUB", "SHARDNUMSUB", channel});
        const std::size_t colon = reply.rfind(':');
        return colon == std::string::npos ? -1 : std::atoi(reply.c_str() + colon + 1);
    }
    // Waits until each node has the given number of subscribers of channel.
    template <typename Servers>
    static bool waitForPlacement(Servers&& servers, const std::string& channel, const std::vector<int>& counts) {
        const auto deadline = std::chrono::steady_clock::now() + 5s;
        while (std::chrono::steady_clock::now() < deadline) {
            bool all = true;
            for (std::size_t i = 0; i < counts.size(); ++i)
                all = all && shardSubscribers(*servers[i], channel) == counts[i];
            if (all) return true;
            std::this_thread::sleep_for(5ms);
        }
        return false;
    }
    // A field of command's line in server's INFO commandstats: its calls, or its rejected calls (MOVED, ASK).
    static long commandStat(RedisServer& server, const std::string& command, const std::string& field) {
        const std::string info = server.command({"INFO", "commandstats"});
        const std::size_t line = info.find("cmdstat_" + command + ":");
        if (line == std::string::npos) return 0;
        const std::size_t at = info.find(field + "=", line);
        return at == std::string::npos || at > info.find('\n', line) ? 0
                                                                     : std::atol(info.c_str() + at + field.size() + 1);
    }
    static long calls(RedisServer& server, const std::string& command) { return commandStat(server, command, "calls"); }
    static long rejectedCalls(RedisServer& server, const std::string& command) {
        return commandStat(server, command, "rejected_calls");
    }
};

LW_INSTANTIATE_BACKENDS(ShardedPubSub);

// Reads frames until `count` have come (or none for a while): per topic (the text before '|'), the messages in order.
std::map<std::string, std::vector<std::string>> receiveByTopic(WsTestClient& client, int count) {
    std::map<std::string, std::vector<std::string>> received;
    for (int i = 0; i < count; ++i) {
        auto frame = client.readFrame(5s);
        if (!frame) break;
        received[frame->payload.substr(0, frame->payload.find('|'))].push_back(frame->payload);
    }
    return received;
}

constexpr int kStreamMessages = 600;

// Publishes kStreamMessages messages "topic|<i>" from publisher, one a millisecond, while midway() runs on a thread
// of its own 200 ms in.
void streamWhile(TopicNode& publisher, const std::string& topic, const std::function<void()>& midway) {
    std::thread operatorThread([&] {
        std::this_thread::sleep_for(200ms);
        midway();
    });
    for (int i = 0; i < kStreamMessages; ++i) {
        publisher.publish(topic, topic + "|" + std::to_string(i));
        std::this_thread::sleep_for(1ms);
    }
    operatorThread.join();
}

// Publishes "topic|end" and reads remote's messages up to it, each numbered above the last (in order, none twice);
// returns how many came before it, and prints how many were lost (what for).
int receiveStream(TopicNode& publisher, WsTestClient& remote, const std::string& topic, const char* what) {
    publisher.publish(topic, topic + "|end");
    int last = -1;
    int received = 0;
    for (;;) {
        auto frame = remote.readFrame(5s);
        if (!frame) {
            ADD_FAILURE() << "the stream's end never came; last " << last;
            return received;
        }
        const std::string number = frame->payload.substr(topic.size() + 1);
        if (number == "end") break;
        EXPECT_GT(std::stoi(number), last) << "out of order or twice";
        last = std::stoi(number);
        ++received;
    }
    EXPECT_TRUE(remote.staysQuiet(100ms));
    std::printf("%s: %d of %d messages delivered, %d lost\n", what, received, kStreamMessages,
                kStreamMessages - received);
    ::testing::Test::RecordProperty("lost", kStreamMessages - received);
    return received;
}

TEST_P(ShardedPubSub, PutsEachTopicOnItsMasterAndDeliversEveryMessageOnceInOrder) {
    RedisCluster cluster;
    ASSERT_TRUE(cluster.ready());
    std::vector<std::string> topics;
    std::set<int> owners;
    for (int i = 0; i < 12; ++i) {
        topics.push_back("topic" + std::to_string(i));
        const std::string channel = std::string(kPrefix) + topics.back();
        // loopwire's slot is Redis's.
        const std::uint16_t slot = broker::RedisSlot::of(kPrefix, topics.back());
        EXPECT_EQ(cluster.node(0).command({"CLUSTER", "KEYSLOT", channel}), ":" + std::to_string(slot) + "\r\n");
        owners.insert(cluster.ownerOf(slot));
    }
    ASSERT_GE(owners.size(), 2u) << "the topics should spread over several masters";

    TopicNode first(backend(), cluster.node(0).url(), topics), second(backend(), cluster.node(2).url(), topics);
    ASSERT_TRUE(first.log.waitFor("ready"));
    ASSERT_TRUE(second.log.waitFor("ready"));
    auto sender = first.connect();
    auto neighbour = first.connect();
    auto remote = second.connect();
    RedisServer* nodes[] = {&cluster.node(0), &cluster.node(1), &cluster.node(2)};
    for (const std::string& topic : topics) {
        std::vector<int> counts(3, 0);
        counts[static_cast<std::size_t>(cluster.ownerOf(broker::RedisSlot::of(kPrefix, topic)))] = 2;
        ASSERT_TRUE(waitForPlacement(nodes, std::string(kPrefix) + topic, counts)) << topic;
    }

    constexpr int kRounds = 20;
    std::map<std::string, std::vector<std::string>> expected;
    for (int round = 0; round < kRounds; ++round) {
        for (const std::string& topic : topics) {
            const std::string message = topic + "|" + std::to_string(round);
            expected[topic].push_back(message);
            sender->sendText(message);
        }
    }
    const int total = kRounds * static_cast<int>(topics.size());
    EXPECT_EQ(receiveByTopic(*remote, total), expected);
    EXPECT_EQ(receiveByTopic(*neighbour, total), expected);
    EXPECT_TRUE(remote->staysQuiet(200ms));
    EXPECT_TRUE(neighbour->staysQuiet(50ms));

    // Each message was one SPUBLISH, on its slot's master; classic PUBLISH was never used.
    long spublished = 0;
    for (RedisServer* node : nodes) {
        spublished += calls(*node, "spublish");
        EXPECT_EQ(calls(*node, "publish"), 0);
    }
    EXPECT_EQ(spublished, total);
    EXPECT_EQ(first.stats().published, static_cast<std::uint64_t>(total));
    EXPECT_EQ(second.stats().delivered, static_cast<std::uint64_t>(total));
    EXPECT_EQ(first.stats().delivered, 0u);
    EXPECT_EQ(first.stats().state, PubSubState::Ready);
}

// A standalone Redis 7 refuses CLUSTER SLOTS: the one server carries every slot.
TEST_P(ShardedPubSub, WorksOnAStandaloneRedis) {
    RedisServer redis;
    ASSERT_TRUE(redis.running());
    const std::vector<std::string> topics = {"a", "b", "c"};
    TopicNode first(backend(), redis.url(), topics), second(backend(), redis.url(), topics);
    ASSERT_TRUE(first.log.waitFor("ready"));
    ASSERT_TRUE(second.log.waitFor("ready"));
    auto sender = first.connect();
    auto remote = second.connect();
    RedisServer* nodes[] = {&redis};
    for (const std::string& topic : topics)
        ASSERT_TRUE(waitForPlacement(nodes, std::string(kPrefix) + topic, {2}));
    std::map<std::string, std::vector<std::string>> expected;
    for (int i = 0; i < 30; ++i) {
        const std::string message = topics[static_cast<std::size_t>(i) % 3] + "|" + std::to_string(i);
        expected[topics[static_cast<std::size_t>(i) % 3]].push_back(message);
        sender->sendText(message);
    }
    EXPECT_EQ(receiveByTopic(*remote, 30), expected);
    EXPECT_TRUE(remote->staysQuiet(100ms));
    EXPECT_EQ(calls(redis, "spublish"), 30);
    EXPECT_TRUE(first.log.count("event:") == 0) << "no error for the refused CLUSTER SLOTS";
}

// A stream on one topic while its slot moves to another master: the subscriber's App is told by the old owner
// (sunsubscribe) and subscribes at the new one; the publisher's SPUBLISH to the old owner is answered MOVED and
// resent. What arrives arrives in order and once; the stream's end arrives; what was lost in the move is printed.
TEST_P(ShardedPubSub, FollowsASlotThatMovesMidStream) {
    RedisCluster cluster;
    ASSERT_TRUE(cluster.ready());
    const std::string topic = "moving";
    const std::uint16_t slot = broker::RedisSlot::of(kPrefix, topic);
    const int from = cluster.ownerOf(slot);
    ASSERT_GE(from, 0);
    const int to = (from + 1) % 3;
    PubSubOptions quick;
    quick.reconnectMinDelayMs = 10;
    quick.reconnectMaxDelayMs = 50;
    TopicNode publisher(backend(), cluster.node((from + 2) % 3).url(), {topic}, quick);
    TopicNode subscriber(backend(), cluster.node(to).url(), {topic}, quick);
    ASSERT_TRUE(publisher.log.waitFor("ready"));
    ASSERT_TRUE(subscriber.log.waitFor("ready"));
    auto remote = subscriber.connect();
    RedisServer* nodes[] = {&cluster.node(0), &cluster.node(1), &cluster.node(2)};
    std::vector<int> before(3, 0);
    before[static_cast<std::size_t>(from)] = 1;
    ASSERT_TRUE(waitForPlacement(nodes, std::string(kPrefix) + topic, before));

    std::atomic<bool> moved{false};
    streamWhile(publisher, topic, [&] { moved = cluster.moveSlot(slot, to); });
    ASSERT_TRUE(moved.load());
    EXPECT_EQ(cluster.ownerOf(slot), to);
    std::vector<int> after(3, 0);
    after[static_cast<std::size_t>(to)] = 1;
    ASSERT_TRUE(waitForPlacement(nodes, std::string(kPrefix) + topic, after)) << "not subscribed at the new owner";
    EXPECT_GT(receiveStream(publisher, *remote, topic, "slot moved mid-stream"), kStreamMessages / 2);
    // The publisher learnt of the move from a MOVED reply of the old owner.
    EXPECT_GE(rejectedCalls(cluster.node(from), "spublish"), 1);
    EXPECT_EQ(publisher.stats().dropped, 0u);
    // Nothing in the move is an error the application hears of.
    for (TopicNode* node : {&publisher, &subscriber}) {
        for (const std::string& event : node->log.events())
            EXPECT_EQ(event, "ready");
    }
}

// The master of a topic's slot killed and started again in the middle of a stream: both Apps' links to it reconnect
// and resubscribe on their own, nothing crashes, and what arrives arrives in order and once.
TEST_P(ShardedPubSub, RidesOutARestartOfTheTopicsMaster) {
    RedisCluster cluster;
    ASSERT_TRUE(cluster.ready());
    const std::string topic = "restarted";
    const int owner = cluster.ownerOf(broker::RedisSlot::of(kPrefix, topic));
    ASSERT_GE(owner, 0);
    PubSubOptions quick;
    quick.reconnectMinDelayMs = 10;
    quick.reconnectMaxDelayMs = 50;
    // Both Apps seeded through other nodes: only their links to the owner go down.
    TopicNode publisher(backend(), cluster.node((owner + 1) % 3).url(), {}, quick);
    TopicNode subscriber(backend(), cluster.node((owner + 2) % 3).url(), {topic}, quick);
    ASSERT_TRUE(publisher.log.waitFor("ready"));
    ASSERT_TRUE(subscriber.log.waitFor("ready"));
    auto remote = subscriber.connect();
    RedisServer* nodes[] = {&cluster.node(0), &cluster.node(1), &cluster.node(2)};
    std::vector<int> placed(3, 0);
    placed[static_cast<std::size_t>(owner)] = 1;
    ASSERT_TRUE(waitForPlacement(nodes, std::string(kPrefix) + topic, placed));

    std::atomic<bool> restarted{false};
    streamWhile(publisher, topic, [&] {
        cluster.node(owner).stop();
        std::this_thread::sleep_for(100ms);
        restarted = cluster.node(owner).start();
    });
    ASSERT_TRUE(restarted.load());
    ASSERT_TRUE(waitForPlacement(nodes, std::string(kPrefix) + topic, placed)) << "not subscribed again";
    EXPECT_GT(receiveStream(publisher, *remote, topic, "the topic's master restarted mid-stream"), 0);
    EXPECT_GE(publisher.stats().reconnects, 1u);
    EXPECT_GE(subscriber.stats().reconnects, 1u);
    EXPECT_EQ(publisher.stats().state, PubSubState::Ready);
}

// A node whose slot map names more masters than kMaxLinks, among entries that are not masters at all: the App links
// to kMaxLinks of them (the seed included), skips the malformed entries, and goes on serving.
// The topic's master killed in the middle of a stream, on a cluster with a replica per master: the cluster fails
// the slot over to the replica, and both Apps follow it there (the publisher's messages queued meanwhile included),
// without a restart of the dead node; what arrives arrives in order and once.
TEST_P(ShardedPubSub, FollowsAFailoverToTheReplicaOfTheTopicsMaster) {
    RedisCluster cluster(true);
    ASSERT_TRUE(cluster.ready());
    const std::string topic = "failing";
    const std::uint16_t slot = broker::RedisSlot::of(kPrefix, topic);
    const int master = cluster.ownerOf(slot);
    ASSERT_GE(master, 0);
    std::vector<int> others;  // the masters other than the topic's
    for (int i = 0; i < cluster.nodeCount(); ++i) {
        if (i != master && cluster.node(i).command({"ROLE"}).find("master") != std::string::npos) others.push_back(i);
    }
    ASSERT_EQ(others.size(), 2u);
    PubSubOptions quick;
    quick.reconnectMinDelayMs = 10;
    quick.reconnectMaxDelayMs = 50;
    TopicNode publisher(backend(), cluster.node(others[0]).url(), {}, quick);
    TopicNode subscriber(backend(), cluster.node(others[1]).url(), {topic}, quick);
    ASSERT_TRUE(publisher.log.waitFor("ready"));
    ASSERT_TRUE(subscriber.log.waitFor("ready"));
    auto remote = subscriber.connect();
    std::vector<RedisServer*> live;
    std::vector<int> liveIndex;
    for (int i = 0; i < cluster.nodeCount(); ++i) {
        if (i == master) continue;
        live.push_back(&cluster.node(i));
        liveIndex.push_back(i);
    }
    ASSERT_TRUE(waitForPlacement(std::vector<RedisServer*>{&cluster.node(master)}, std::string(kPrefix) + topic, {1}));

    int promoted = -1;
    streamWhile(publisher, topic, [&] {
        cluster.node(master).stop();
        const auto deadline = std::chrono::steady_clock::now() + 20s;
        while (std::chrono::steady_clock::now() < deadline) {
            const int owner = cluster.ownerOf(slot, others[0]);
            if (owner >= 0 && owner != master) {
                promoted = owner;
                return;
            }
            std::this_thread::sleep_for(50ms);
        }
    });
    ASSERT_GE(promoted, 0) << "the cluster did not fail the slot over";
    std::vector<int> placed;
    for (const int index : liveIndex)
        placed.push_back(index == promoted ? 1 : 0);
    ASSERT_TRUE(waitForPlacement(live, std::string(kPrefix) + topic, placed)) << "not subscribed at the replica";
    EXPECT_GT(receiveStream(publisher, *remote, topic, "the topic's master failed over mid-stream"), 0);
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (publisher.stats().state != PubSubState::Ready && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(10ms);
    EXPECT_EQ(publisher.stats().state, PubSubState::Ready) << "the link to the dead master was not retired";
    EXPECT_EQ(subscriber.stats().state, PubSubState::Ready);
    // What the subscriber missed was published before its App had subscribed at the replica: none was dropped.
    EXPECT_EQ(publisher.stats().dropped, 0u);
    EXPECT_EQ(publisher.stats().queuedMessages, 0u);
}

TEST_P(ShardedPubSub, LinksToAtMostItsLimitOfMastersAndSkipsMalformedSlotMapEntries) {
    constexpr int kMasters = static_cast<int>(broker::RedisClusterBroker::kMaxLinks) + 44;
    std::string map = "*" + std::to_string(kMasters + 5) + "\r\n";
    // Not masters: no address, a range backwards, a slot past 16383, an unknown host, port 0.
    map += "*1\r\n:0\r\n";
    map += "*3\r\n:9\r\n:3\r\n*2\r\n$9\r\n127.0.0.1\r\n:65000\r\n";
    map += "*3\r\n:0\r\n:20000\r\n*2\r\n$9\r\n127.0.0.1\r\n:65000\r\n";
    map += "*3\r\n:0\r\n:1\r\n*2\r\n$1\r\n?\r\n:65000\r\n";
    map += "*3\r\n:0\r\n:1\r\n*2\r\n$9\r\n127.0.0.1\r\n:0\r\n";
    // Masters on loopback ports where nothing listens (1, 2, ...): each link made is refused.
    for (int i = 0; i < kMasters; ++i) {
        map += "*3\r\n:" + std::to_string(i * 50) + "\r\n:" + std::to_string(i * 50 + 49) +
               "\r\n*2\r\n$9\r\n127.0.0.1\r\n:" + std::to_string(i + 1) + "\r\n";
    }
    std::atomic<int> mapsSent{0};
    FakeNode fake([&](const std::vector<std::string>& arguments) -> std::string {
        if (arguments[0] == "HELLO") return "%1\r\n+server\r\n+redis\r\n";
        if (arguments[0] == "CLUSTER") {
            ++mapsSent;
            return map;
        }
        return "+PONG\r\n";
    });
    {
        PubSubOptions options;
        options.reconnectMinDelayMs = 1000;
        TopicNode node(backend(), fake.url(), {"chat"}, options);
        ASSERT_TRUE(node.log.waitFor("ready"));
        ASSERT_TRUE(node.log.waitFor("event:ECONNREFUSED", broker::RedisClusterBroker::kMaxLinks - 1));
        std::this_thread::sleep_for(200ms);
        std::set<std::string> refused;
        const std::regex port(R"(127\.0\.0\.1:(\d+): cannot connect)");
        for (const std::string& event : node.log.events()) {
            std::smatch match;
            if (std::regex_search(event, match, port)) refused.insert(match[1]);
        }
        EXPECT_EQ(refused.size(), broker::RedisClusterBroker::kMaxLinks - 1);
        EXPECT_EQ(refused.count("65000"), 0u) << "a malformed entry was taken";
        EXPECT_GE(mapsSent.load(), 1);
        // Local pub/sub goes on.
        auto one = node.connect();
        auto two = node.connect();
        std::this_thread::sleep_for(20ms);
        one->sendText("chat|still here");
        auto frame = two->readFrame();
        ASSERT_TRUE(frame);
        EXPECT_EQ(frame->payload, "chat|still here");
    }
}

// A slot moving while a stream is in flight to its old owner, which answers MOVED late: the publishes made after
// the first MOVED wait until the old node has answered everything sent to it before, so that the new owner gets
// the whole stream in the order it was published, once.
TEST_P(ShardedPubSub, KeepsOrderWhileInFlightPublishesAreRedirected) {
    std::mutex mutex;
    std::vector<std::string> atNewOwner;
    FakeNode newOwner([&](const std::vector<std::string>& arguments) -> std::string {
        if (arguments[0] == "HELLO") return "%1\r\n+server\r\n+redis\r\n";
        if (arguments[0] == "SPUBLISH") {
            std::lock_guard lock(mutex);
            atNewOwner.push_back(arguments[2].substr(broker::BrokerEnvelope::kBytes));
            return ":1\r\n";
        }
        return "+PONG\r\n";
    });
    std::atomic<int> maps{0};
    const std::string moved = "-MOVED " + std::to_string(broker::RedisSlot::of(kPrefix, "stream")) +
                              " 127.0.0.1:" + std::to_string(newOwner.port()) + "\r\n";
    int oldPort = 0;
    FakeNode oldOwner(
        [&](const std::vector<std::string>& arguments) -> std::string {
            if (arguments[0] == "HELLO") return "%1\r\n+server\r\n+redis\r\n";
            if (arguments[0] == "CLUSTER") return everySlotTo(maps++ == 0 ? oldPort : newOwner.port());
            if (arguments[0] == "SPUBLISH") return moved;
            return "+PONG\r\n";
        },
        20ms);
    oldPort = oldOwner.port();
    TopicNode node(backend(), oldOwner.url(), {});
    ASSERT_TRUE(node.log.waitFor("ready"));
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (maps.load() == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(50ms);  // the map's reply is in

    constexpr int kMessages = 200;
    for (int i = 0; i < kMessages; ++i) {
        node.publish("stream", std::to_string(i));
        std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    std::vector<std::string> expected;
    for (int i = 0; i < kMessages; ++i)
        expected.push_back(std::to_string(i));
    while (std::chrono::steady_clock::now() < deadline + 5s) {
        {
            std::lock_guard lock(mutex);
            if (atNewOwner.size() >= expected.size()) break;
        }
        std::this_thread::sleep_for(5ms);
    }
    std::lock_guard lock(mutex);
    EXPECT_EQ(atNewOwner, expected);
    EXPECT_EQ(node.stats().dropped, 0u);
    EXPECT_EQ(node.stats().queuedMessages, 0u);
}

// A history read whose slot moves: answered ASK by the old owner while the slot's keys are being moved (and sent
// again, after ASKING, to the new one), then MOVED once it has moved; both times it gets the whole history, as a
// read made before the move did.
TEST_P(ShardedPubSub, FollowsAHistoryReadWhereItsSlotMoves) {
    RedisCluster cluster;
    ASSERT_TRUE(cluster.ready());
    const std::string topic = "kept";
    const std::uint16_t slot = broker::RedisSlot::of(kPrefix, topic);
    const int from = cluster.ownerOf(slot);
    ASSERT_GE(from, 0);
    const int to = (from + 1) % 3;
    PubSubOptions options;
    options.history.size = 10;
    options.history.ttlSeconds = 600;
    // No socket subscribes: nothing but the reads' replies tells the App that the slot moved.
    TopicNode node(backend(), cluster.node(from).url(), {}, options);
    ASSERT_TRUE(node.log.waitFor("ready"));
    std::this_thread::sleep_for(100ms);  // the slot map is in
    const std::vector<std::string> expected{"one", "two", "three"};
    for (const std::string& message : expected)
        node.publish(topic, message);
    const ReadResult before = node.read(topic);
    EXPECT_EQ(before.error, "");
    EXPECT_EQ(before.messages, expected);
    ASSERT_EQ(rejectedCalls(cluster.node(from), "evalsha"), 0);

    ASSERT_TRUE(cluster.beginMove(slot, to));
    const ReadResult asked = node.read(topic);
    EXPECT_EQ(asked.error, "");
    EXPECT_EQ(asked.messages, expected);
    EXPECT_EQ(rejectedCalls(cluster.node(from), "evalsha"), 1) << "not answered ASK by the old owner";
    EXPECT_GE(calls(cluster.node(to), "asking"), 1);

    ASSERT_TRUE(cluster.finishMove(slot, from, to));
    const ReadResult moved = node.read(topic);
    EXPECT_EQ(moved.error, "");
    EXPECT_EQ(moved.messages, expected);
    EXPECT_EQ(rejectedCalls(cluster.node(from), "evalsha"), 2) << "not answered MOVED by the old owner";
    for (const std::string& event : node.log.events())
        EXPECT_EQ(event, "ready");
}

// Nodes that send a read back and forth (here one that names itself) end it after RedisHistoryRead::kMaxRedirects
// redirections, with the last reply's error, and the link goes on.
TEST_P(ShardedPubSub, EndsAHistoryReadRedirectedTooManyTimes) {
    std::atomic<int> reads{0};
    int port = 0;
    FakeNode fake([&](const std::vector<std::string>& arguments) -> std::string {
        if (arguments[0] == "HELLO") return "%1\r\n+server\r\n+redis\r\n";
        if (arguments[0] == "CLUSTER") return everySlotTo(port);
        if (arguments[0] == "EVALSHA") {
            ++reads;
            return "-MOVED " + std::to_string(broker::RedisSlot::of(kPrefix, "kept")) +
                   " 127.0.0.1:" + std::to_string(port) + "\r\n";
        }
        return "+PONG\r\n";
    });
    port = fake.port();
    PubSubOptions options;
    options.history.size = 10;
    TopicNode node(backend(), fake.url(), {}, options);
    ASSERT_TRUE(node.log.waitFor("ready"));
    const ReadResult result = node.read("kept");
    EXPECT_EQ(result.error, "MOVED");
    EXPECT_EQ(reads.load(), 1 + broker::RedisHistoryRead::kMaxRedirects);
    EXPECT_TRUE(result.messages.empty());
}

// A read on the link of a master that the next slot map no longer names (here one that never answers: nothing
// listens on its port) is not lost with that link: it goes to the slot's owner in the new map.
TEST_P(ShardedPubSub, HandsTheReadsOfARetiredLinkToTheSlotsNewOwner) {
    std::atomic<int> maps{0};
    std::atomic<int> reads{0};
    std::atomic<bool> readMade{false};
    int port = 0;
    FakeNode fake([&](const std::vector<std::string>& arguments) -> std::string {
        if (arguments[0] == "HELLO") return "%1\r\n+server\r\n+redis\r\n";
        if (arguments[0] == "CLUSTER") {
            if (maps++ == 0) return everySlotTo(1);
            // The second map, once the read waits on the link to port 1: every slot is this node's.
            const auto deadline = std::chrono::steady_clock::now() + 5s;
            while (!readMade.load() && std::chrono::steady_clock::now() < deadline)
                std::this_thread::sleep_for(1ms);
            return everySlotTo(port);
        }
        if (arguments[0] == "EVALSHA") {
            ++reads;
            const std::string& id = arguments[6];
            return "*5\r\n$16\r\nloopwire:history\r\n$" + std::to_string(id.size()) + "\r\n" + id +
                   "\r\n$0\r\n\r\n$1\r\n0\r\n*0\r\n";
        }
        return "+PONG\r\n";
    });
    port = fake.port();
    PubSubOptions options;
    options.history.size = 10;
    options.reconnectMinDelayMs = 10;
    options.reconnectMaxDelayMs = 50;
    TopicNode node(backend(), fake.url(), {}, options);
    ASSERT_TRUE(node.log.waitFor("ready"));
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (maps.load() == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(50ms);  // the first map's reply is in
    std::thread release([&] {
        std::this_thread::sleep_for(50ms);
        readMade = true;
    });
    const ReadResult result = node.read("kept");
    release.join();
    EXPECT_EQ(result.error, "") << "the read went down with its link";
    EXPECT_TRUE(result.messages.empty());
    EXPECT_EQ(reads.load(), 1);
    EXPECT_GE(maps.load(), 2);
}

// A link the map retires is freed after the batch of loop callbacks that retired it, not in it: an event later in
// that batch may be its own (IoWatcher's rule). Here the App's loop is held while the reply that retires a link
// comes, and then bytes for that link, so that one wait for events reports both, in that order. A link freed at once
// was read after its end: ASan's heap-use-after-free, and once a segfault in the libc++ build.
TEST_P(ShardedPubSub, ALinkTheMapRetiresIsFreedAfterTheBatchThatRetiredIt) {
    SilentNode silent;
    std::atomic<int> maps{0};
    std::atomic<int> fakePort{0};
    std::atomic<bool> loopHeld{false};
    std::atomic<bool> mapAnswered{false};
    FakeNode fake([&](const std::vector<std::string>& arguments) -> std::string {
        if (arguments[0] == "HELLO") return "%1\r\n+server\r\n+redis\r\n";
        if (arguments[0] != "CLUSTER") return "+PONG\r\n";
        if (maps++ == 0) return everySlotTo(silent.port());
        // The second map, answered while the App's loop is held: every slot is this node's, and the silent node's
        // link, not ready and owning nothing, is retired.
        const auto deadline = std::chrono::steady_clock::now() + 5s;
        while (!loopHeld.load() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(1ms);
        mapAnswered = true;
        return everySlotTo(fakePort.load());
    });
    fakePort = fake.port();
    PubSubOptions options;
    options.reconnectMinDelayMs = 10;
    options.reconnectMaxDelayMs = 20;
    TopicNode node(backend(), fake.url(), {}, options);
    ASSERT_TRUE(node.log.waitFor("ready"));
    const int connection = silent.heldConnection();
    ASSERT_GE(connection, 0) << "the link did not come back to the silent node";

    std::promise<void> release;
    std::thread holder([&] { node.holdLoop(release.get_future().share(), loopHeld); });
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!mapAnswered.load() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(50ms);  // the map's reply is in the App's socket
    const bool sent = ::send(connection, "+OK\r\n", 5, MSG_NOSIGNAL) == 5;
    std::this_thread::sleep_for(50ms);
    release.set_value();
    holder.join();
    ASSERT_TRUE(sent);
    EXPECT_TRUE(mapAnswered.load());

    // The retired link closed its connection, and the App goes on with the other one.
    EXPECT_TRUE(silent.closedByPeer()) << "the link to the silent node was not retired";
    EXPECT_EQ(maps.load(), 2);
    EXPECT_EQ(node.stats().state, PubSubState::Ready);
}

// The sharded link's side of a node that loses the scripts (SCRIPT FLUSH): a read refused NOSCRIPT waits for the
// scripts to be loaded again and is answered; a publish refused NOSCRIPT is reported, and the next one is kept.
TEST_P(ShardedPubSub, LoadsItsScriptsAgainWhenANodeLosesThem) {
    RedisServer redis;
    PubSubOptions options;
    options.history.size = 10;
    TopicNode node(backend(), redis.url(), {}, options);
    ASSERT_TRUE(node.log.waitFor("ready"));
    node.publish("kept", "one");
    ASSERT_EQ(node.read("kept").messages, std::vector<std::string>{"one"});

    ASSERT_EQ(redis.command({"SCRIPT", "FLUSH"}), "+OK\r\n");
    const auto started = std::chrono::steady_clock::now();
    const ReadResult read = node.read("kept");
    EXPECT_EQ(read.error, "");
    EXPECT_EQ(read.messages, std::vector<std::string>{"one"});
    EXPECT_LT(std::chrono::steady_clock::now() - started, 2s) << "answered by its timeout, not by Redis";

    ASSERT_EQ(redis.command({"SCRIPT", "FLUSH"}), "+OK\r\n");
    node.publish("kept", "lost");
    ASSERT_TRUE(node.log.waitFor("event:NOSCRIPT"));
    node.publish("kept", "two");
    EXPECT_EQ(node.read("kept").messages, (std::vector<std::string>{"one", "two"}));
    EXPECT_GE(node.stats().errors, 1u);
}

}  // namespace
}  // namespace loopwire::test
