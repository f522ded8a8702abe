// WebSocket connections over real loopback sockets: the handshake, echo of every message shape, control frames,
// every protocol violation and its close code, the closing handshake from both sides, timeouts, backpressure,
// pub/sub, permessage-deflate and the user data's lifetime. Every test runs on both loop backends.
#include "Fixture.h"
#include "WsTestClient.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace loopwire::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// What the server's handlers did, in order, as text ("open:7", "message:1:hello", "close:1000:done"...). Written
// on the server thread, read and waited on by the test.
class EventLog {
public:
    void add(std::string event) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            events_.push_back(std::move(event));
        }
        changed_.notify_all();
    }
    // Waits until `count` events start with prefix; returns whether they did within the deadline.
    bool waitFor(const std::string& prefix, std::size_t count = 1, std::chrono::milliseconds deadline = 5s) {
        std::unique_lock<std::mutex> lock(mutex_);
        return changed_.wait_for(lock, deadline, [&] { return countLocked(prefix) >= count; });
    }
    std::size_t count(const std::string& prefix) {
        std::lock_guard<std::mutex> lock(mutex_);
        return countLocked(prefix);
    }
    std::vector<std::string> events() {
        std::lock_guard<std::mutex> lock(mutex_);
        return events_;
    }
    // The index of the first event that starts with prefix, or -1.
    int indexOf(const std::string& prefix) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (std::size_t i = 0; i < events_.size(); ++i) {
            if (events_[i].rfind(prefix, 0) == 0) return static_cast<int>(i);
        }
        return -1;
    }

private:
    std::size_t countLocked(const std::string& prefix) const {
        std::size_t n = 0;
        for (const std::string& event : events_)
            n += event.rfind(prefix, 0) == 0 ? 1 : 0;
        return n;
    }

    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::string> events_;
};

std::string joined(const std::vector<std::string>& events) {
    std::string all;
    for (const std::string& event : events)
        all += (event.size() > 80 ? event.substr(0, 80) + "..." : event) + "\n";
    return all;
}

// The user data of the tests' routes. Only the instance that was moved last counts its destruction, so that
// destroyed tells how many connections' user data were destroyed (moved-from temporaries do not count).
struct PerSocket {
    int id = 0;
    std::atomic<int>* destroyed = nullptr;

    PerSocket() = default;
    PerSocket(int initialId, std::atomic<int>* counter) : id(initialId), destroyed(counter) {}
    PerSocket(PerSocket&& other) noexcept : id(other.id), destroyed(std::exchange(other.destroyed, nullptr)) {}
    PerSocket& operator=(PerSocket&&) = delete;
    ~PerSocket() {
        if (destroyed != nullptr) ++*destroyed;
    }
};

using Behavior = WebSocketBehavior<PerSocket>;
using Socket = WebSocket<PerSocket>;

// A route that logs every event and echoes every message.
Behavior echoBehavior(EventLog* log) {
    Behavior behavior;
    behavior.open = [log](Socket* ws) { log->add("open:" + std::to_string(ws->getUserData()->id)); };
    behavior.message = [log](Socket* ws, std::string_view message, OpCode opCode) {
        log->add("message:" + std::to_string(static_cast<int>(opCode)) + ":" + std::string(message));
        ws->send(message, opCode);
    };
    behavior.dropped = [log](Socket*, std::string_view message, OpCode) {
        log->add("dropped:" + std::to_string(message.size()));
    };
    behavior.drain = [log](Socket*) { log->add("drain"); };
    behavior.ping = [log](Socket*, std::string_view message) { log->add("ping:" + std::string(message)); };
    behavior.pong = [log](Socket*, std::string_view message) { log->add("pong:" + std::string(message)); };
    behavior.close = [log](Socket*, int code, std::string_view reason) {
        log->add("close:" + std::to_string(code) + ":" + std::string(reason));
    };
    return behavior;
}

class WebSockets : public BackendTest {
protected:
    // The server goes first: its handlers write to log_.
    void TearDown() override { server_.reset(); }

    // Serves echoBehavior on /ws, changed by customize (on the server thread, before listening).
    void serveWs(std::function<void(Behavior&, App&)> customize = {}, ServerOptions options = {}) {
        options.backend = GetParam();
        serve(options, [this, customize](App& app) {
            Behavior behavior = echoBehavior(&log_);
            if (customize) customize(behavior, app);
            app.ws<PerSocket>("/ws", std::move(behavior));
        });
    }

    // Opens a WebSocket on /ws and waits for its open handler.
    std::unique_ptr<WsTestClient> connect(std::string_view extraHeaders = {}) {
        std::size_t opened = log_.count("open:");
        auto client = std::make_unique<WsTestClient>(port());
        auto response = client->handshake("/ws", extraHeaders);
        EXPECT_TRUE(response);
        if (response) {
            EXPECT_EQ(response->status, 101) << response->statusLine;
        }
        EXPECT_TRUE(log_.waitFor("open:", opened + 1));
        return client;
    }

    // Sends bytes on a new WebSocket and expects the server to fail the connection with code: a close frame with
    // it, the close handler with it, and the end of the connection.
    void expectFailure(std::string_view bytes, int code) {
        const std::string closeEvent = "close:" + std::to_string(code) + ":";
        std::size_t closes = log_.count(closeEvent);
        auto client = connect();
        client->send(bytes);
        auto frame = client->readCloseFrame();
        ASSERT_TRUE(frame) << "no close frame";
        EXPECT_EQ(frame->closeCode(), code) << frame->closeReason();
        EXPECT_TRUE(client->waitForClose());
        EXPECT_TRUE(log_.waitFor(closeEvent, closes + 1)) << joined(log_.events());
    }

    EventLog log_;
};
LW_INSTANTIATE_BACKENDS(WebSockets);

// ---- handshake ----

TEST_P(WebSockets, AnswersTheSampleHandshakeWithTheFirstSubprotocol) {
    serveWs();
    WsTestClient client(port());
    auto response = client.handshake("/ws", "Sec-WebSocket-Protocol: chat, superchat\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 101);
    EXPECT_EQ(response->header("sec-websocket-accept"), kSampleAccept);
    EXPECT_EQ(response->header("sec-websocket-protocol"), "chat");
    EXPECT_FALSE(response->hasHeader("sec-websocket-extensions"));
    EXPECT_TRUE(log_.waitFor("open:"));
    // The connection is a WebSocket now.
    client.sendText("after upgrade");
    auto frame = client.readFrame();
    ASSERT_TRUE(frame);
    EXPECT_EQ(frame->payload, "after upgrade");
}

TEST_P(WebSockets, AnswersWithoutSubprotocolWhenNoneIsAsked) {
    serveWs();
    WsTestClient client(port());
    auto response = client.handshake();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 101);
    EXPECT_FALSE(response->hasHeader("sec-websocket-protocol"));
}

TEST_P(WebSockets, RefusesABadKeyWith400) {
    serveWs();
    TestClient client(port());
    client.send(upgradeRequest("/ws", {}, "not-a-key"));
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 400);
    EXPECT_EQ(log_.count("open:"), 0u);
}

TEST_P(WebSockets, RefusesVersion12With426) {
    serveWs();
    TestClient client(port());
    std::string request = upgradeRequest();
    std::string from = "Sec-WebSocket-Version: 13";
    request.replace(request.find(from), from.size(), "Sec-WebSocket-Version: 12");
    client.send(request);
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 426);
    EXPECT_EQ(response->header("sec-websocket-version"), "13");
    EXPECT_EQ(log_.count("open:"), 0u);
}

TEST_P(WebSockets, PlainGetOnTheRouteYieldsTo404) {
    serveWs();
    auto response = fetch(port(), "GET /ws HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 404);
}

TEST_P(WebSockets, PlainGetOnTheRouteYieldsToAGetRoute) {
    serveWs([](Behavior&, App& app) { app.get("/ws", [](HttpResponse* res, HttpRequest*) { res->end("plain"); }); });
    auto response = fetch(port(), "GET /ws HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, "plain");
    // Upgrade requests still reach the WebSocket route.
    WsTestClient client(port());
    auto upgraded = client.handshake();
    ASSERT_TRUE(upgraded);
    EXPECT_EQ(upgraded->status, 101);
}

TEST_P(WebSockets, AGetRouteAddedAfterTheWsRouteLeavesItInPlace) {
    serve([this](App& app) {
        app.ws<PerSocket>("/ws", echoBehavior(&log_));
        app.get("/ws", [](HttpResponse* res, HttpRequest*) { res->end("plain"); });
    });
    WsTestClient client(port());
    auto upgraded = client.handshake();
    ASSERT_TRUE(upgraded);
    EXPECT_EQ(upgraded->status, 101);
    auto response = fetch(port(), "GET /ws HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, "plain");
}

// ---- messages ----

TEST_P(WebSockets, EchoesTextAndBinaryMessagesOfEverySize) {
    serveWs([](Behavior& behavior, App&) { behavior.maxPayloadLength = 1024 * 1024; });
    auto client = connect();
    std::string binary("\x00\x01\xff\xfe", 4);
    std::string fourKiB(4096, '\0');
    for (std::size_t i = 0; i < fourKiB.size(); ++i)
        fourKiB[i] = static_cast<char>(i * 7);
    std::string large(100 * 1024, '\0');
    for (std::size_t i = 0; i < large.size(); ++i)
        large[i] = static_cast<char>(i * 13 + i / 256);

    client->sendText("hello");
    client->sendBinary(binary);
    client->sendBinary(fourKiB);
    // 100 KiB in pieces, so that the server reads it over many reads.
    std::string frame = clientFrame(op::kBinary, large);
    for (std::size_t at = 0; at < frame.size(); at += 1000)
        client->send(std::string_view(frame).substr(at, 1000));
    client->sendText("");

    struct Expected {
        std::uint8_t opcode;
        std::string payload;
    };
    for (const Expected& expected :
         {Expected{op::kText, "hello"}, Expected{op::kBinary, binary}, Expected{op::kBinary, fourKiB},
          Expected{op::kBinary, large}, Expected{op::kText, ""}}) {
        auto echo = client->readFrame();
        ASSERT_TRUE(echo) << "echo of " << expected.payload.size() << " bytes";
        EXPECT_TRUE(echo->fin);
        EXPECT_FALSE(echo->masked);
        EXPECT_EQ(echo->rsv, 0);
        EXPECT_EQ(echo->opcode, expected.opcode);
        EXPECT_EQ(echo->payload.size(), expected.payload.size());
        EXPECT_TRUE(echo->payload == expected.payload);
    }
}

TEST_P(WebSockets, DeliversAMessageSplitAtEveryByte) {
    serveWs();
    auto client = connect();
    const std::string text = "h\xc3\xa9llo w\xc3\xb6rld \xe2\x82\xac!";  // UTF-8 characters cut by the splits too
    const std::string frame = clientFrame(op::kText, text);
    for (std::size_t split = 1; split < frame.size(); ++split) {
        SCOPED_TRACE(split);
        client->send(std::string_view(frame).substr(0, split));
        // The client's deadline separates the two reads; nothing may come back for half a message.
        EXPECT_TRUE(client->staysQuiet(2ms));
        client->send(std::string_view(frame).substr(split));
        auto echo = client->readFrame();
        ASSERT_TRUE(echo);
        EXPECT_EQ(echo->opcode, op::kText);
        EXPECT_EQ(echo->payload, text);
    }
    EXPECT_EQ(log_.count("close:"), 0u);
}

TEST_P(WebSockets, AnswersControlFramesSplitAcrossReads) {
    serveWs();
    auto client = connect();
    const std::string ping = clientFrame(op::kPing, "split ping");
    for (std::size_t split = 1; split < ping.size(); ++split) {
        SCOPED_TRACE(split);
        client->send(std::string_view(ping).substr(0, split));
        EXPECT_TRUE(client->staysQuiet(2ms));
        client->send(std::string_view(ping).substr(split));
        auto pong = client->readFrame();
        ASSERT_TRUE(pong);
        EXPECT_EQ(pong->opcode, op::kPong);
        EXPECT_EQ(pong->payload, "split ping");
    }
    const std::string close = clientFrame(op::kClose, closePayload(1001, "going"));
    client->send(std::string_view(close).substr(0, 7));
    EXPECT_TRUE(client->staysQuiet(2ms));
    client->send(std::string_view(close).substr(7));
    auto echo = client->readFrame();
    ASSERT_TRUE(echo);
    EXPECT_EQ(echo->closeCode(), 1001);
    EXPECT_EQ(echo->closeReason(), "going");
    EXPECT_TRUE(client->waitForClose());
    EXPECT_TRUE(log_.waitFor("close:1001:going"));
}

TEST_P(WebSockets, SendsPingsAndFragmentedMessages) {
    serveWs([](Behavior& behavior, App&) {
        behavior.message = [](Socket* ws, std::string_view, OpCode) {
            ws->ping("server ping");
            ws->sendFirstFragment("one ", OpCode::Text);
            ws->sendFragment("two ");
            ws->sendLastFragment("three");
        };
    });
    auto client = connect();
    client->sendText("go");
    auto ping = client->readFrame();
    ASSERT_TRUE(ping);
    EXPECT_EQ(ping->opcode, op::kPing);
    EXPECT_EQ(ping->payload, "server ping");
    struct Expected {
        std::uint8_t opcode;
        bool fin;
        std::string payload;
    };
    for (const Expected& expected : {Expected{op::kText, false, "one "}, Expected{op::kContinuation, false, "two "},
                                     Expected{op::kContinuation, true, "three"}}) {
        auto frame = client->readFrame();
        ASSERT_TRUE(frame) << expected.payload;
        EXPECT_EQ(frame->opcode, expected.opcode);
        EXPECT_EQ(frame->fin, expected.fin);
        EXPECT_EQ(frame->payload, expected.payload);
    }
    client->sendFrame(op::kPong, "server ping");
    EXPECT_TRUE(log_.waitFor("pong:server ping"));
}

TEST_P(WebSockets, DeliversAMessageSentOneByteAtATime) {
    serveWs();
    auto client = connect();
    std::string text(300, 'a');  // a 16-bit length
    for (std::size_t i = 0; i < text.size(); ++i)
        text[i] = static_cast<char>('a' + i % 26);
    for (char byte : clientFrame(op::kText, text))
        client->send(std::string_view(&byte, 1));
    auto echo = client->readFrame();
    ASSERT_TRUE(echo);
    EXPECT_EQ(echo->payload, text);
}

TEST_P(WebSockets, AssemblesFragmentsAroundAnInterleavedPing) {
    serveWs();
    auto client = connect();
    client->send(clientFrame(op::kText, "Hel", false) + clientFrame(op::kPing, "p1") +
                 clientFrame(op::kContinuation, "lo ", false));
    // The pong comes at once, before the message is complete.
    auto pong = client->readFrame();
    ASSERT_TRUE(pong);
    EXPECT_EQ(pong->opcode, op::kPong);
    EXPECT_EQ(pong->payload, "p1");
    client->sendFrame(op::kContinuation, "w\xc3", false);  // a character split across fragments
    client->sendFrame(op::kContinuation, "\xb6rld", true);
    auto echo = client->readFrame();
    ASSERT_TRUE(echo);
    EXPECT_EQ(echo->opcode, op::kText);
    EXPECT_EQ(echo->payload, "Hello w\xc3\xb6rld");

    // And a fragmented binary message, in one write.
    client->send(clientFrame(op::kBinary, std::string("\x00\x01", 2), false) +
                 clientFrame(op::kContinuation, "", false) + clientFrame(op::kContinuation, "\x02", true));
    echo = client->readFrame();
    ASSERT_TRUE(echo);
    EXPECT_EQ(echo->opcode, op::kBinary);
    EXPECT_EQ(echo->payload, std::string("\x00\x01\x02", 3));
    EXPECT_TRUE(log_.waitFor("ping:p1"));
    EXPECT_LT(log_.indexOf("ping:p1"), log_.indexOf("message:1:Hello"));
}

TEST_P(WebSockets, DeliversFramesSentWithTheUpgradeRequestAfterOpen) {
    serveWs([this](Behavior& behavior, App&) {
        behavior.open = [log = &log_](Socket* ws) {
            log->add("open:" + std::to_string(ws->getUserData()->id));
            ws->send("welcome", OpCode::Text);
        };
    });
    WsTestClient client(port());
    client.send(upgradeRequest() + clientFrame(op::kText, "early") + clientFrame(op::kBinary, "second"));
    auto response = client.readHead();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 101);
    for (std::string expected : {"welcome", "early", "second"}) {
        auto frame = client.readFrame();
        ASSERT_TRUE(frame) << expected;
        EXPECT_EQ(frame->payload, expected);
    }
    auto events = log_.events();
    ASSERT_GE(events.size(), 3u) << joined(events);
    EXPECT_EQ(events[0], "open:0");
    EXPECT_EQ(events[1], "message:1:early");
    EXPECT_EQ(events[2], "message:2:second");
}

// The handshake's strings, copied for an upgrade that happens after the upgrade handler returned.
struct LaterUpgrade {
    std::string key, protocol, extensions;
    HttpResponse* response = nullptr;
    WebSocketContext* context = nullptr;
    bool aborted = false;
};

TEST_P(WebSockets, UpgradesLaterAndDeliversTheFramesThatCameWithTheRequest) {
    std::atomic<int> destroyed{0};
    serveWs([&destroyed](Behavior& behavior, App& app) {
        behavior.upgrade = [app = &app, counter = &destroyed](HttpResponse* res, HttpRequest* req,
                                                              WebSocketContext* context) {
            auto* later = new LaterUpgrade{std::string(req->getHeader("sec-websocket-key")),
                                           std::string(req->getHeader("sec-websocket-protocol")),
                                           std::string(req->getHeader("sec-websocket-extensions")), res, context};
            res->onAborted([later] { later->aborted = true; });
            app->defer([later, counter] {
                if (!later->aborted) {
                    later->response->upgrade(PerSocket{7, counter}, later->key, later->protocol, later->extensions,
                                             later->context);
                }
                delete later;
            });
        };
    });
    WsTestClient client(port());
    client.send(upgradeRequest() + clientFrame(op::kText, "early") + clientFrame(op::kPing, "p"));
    auto response = client.readHead();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 101);
    EXPECT_EQ(response->header("sec-websocket-accept"), kSampleAccept);
    auto echo = client.readFrame();
    ASSERT_TRUE(echo);
    EXPECT_EQ(echo->payload, "early");
    auto pong = client.readFrame();
    ASSERT_TRUE(pong);
    EXPECT_EQ(pong->opcode, op::kPong);
    EXPECT_TRUE(log_.waitFor("open:7"));
    client.sendClose(1000);
    EXPECT_TRUE(client.waitForClose());
    EXPECT_TRUE(log_.waitFor("close:1000:"));
    server().runOnLoop([](App&) {});
    EXPECT_EQ(destroyed.load(), 1);
}

TEST_P(WebSockets, AnswersAPingWithItsPayloadAndCallsThePingHandler) {
    serveWs();
    auto client = connect();
    client->sendFrame(op::kPing, "are you there?");
    auto pong = client->readFrame();
    ASSERT_TRUE(pong);
    EXPECT_EQ(pong->opcode, op::kPong);
    EXPECT_TRUE(pong->fin);
    EXPECT_EQ(pong->payload, "are you there?");
    EXPECT_TRUE(log_.waitFor("ping:are you there?"));
    // An empty ping, and a pong the client sends unasked.
    client->sendFrame(op::kPing, "");
    pong = client->readFrame();
    ASSERT_TRUE(pong);
    EXPECT_EQ(pong->opcode, op::kPong);
    EXPECT_EQ(pong->payload, "");
    client->sendFrame(op::kPong, "unasked");
    EXPECT_TRUE(log_.waitFor("pong:unasked"));
}

// ---- protocol violations ----

TEST_P(WebSockets, FailsAnUnmaskedFrameWith1002) {
    serveWs();
    expectFailure(clientFrame(op::kText, "hi", true, 0, false), 1002);
    EXPECT_EQ(log_.count("message:"), 0u);
}

TEST_P(WebSockets, FailsRsv2With1002) {
    serveWs();
    expectFailure(clientFrame(op::kText, "hi", true, kRsv2), 1002);
}

TEST_P(WebSockets, FailsRsv1WithoutCompressionWith1002) {
    serveWs();
    expectFailure(clientFrame(op::kText, "hi", true, kRsv1), 1002);
}

TEST_P(WebSockets, FailsReservedOpcodesWith1002) {
    serveWs();
    expectFailure(clientFrame(0x3, "hi"), 1002);
    expectFailure(clientFrame(0xB, "hi"), 1002);
}

TEST_P(WebSockets, FailsAControlFrameOver125BytesWith1002) {
    serveWs();
    expectFailure(clientFrame(op::kPing, std::string(126, 'p')), 1002);
    EXPECT_EQ(log_.count("ping:"), 0u);
}

TEST_P(WebSockets, FailsAFragmentedControlFrameWith1002) {
    serveWs();
    expectFailure(clientFrame(op::kPing, "p", false), 1002);
}

TEST_P(WebSockets, FailsAContinuationWithoutStartWith1002) {
    serveWs();
    expectFailure(clientFrame(op::kContinuation, "lost"), 1002);
    // A new message while a fragmented one is in progress is no better.
    expectFailure(clientFrame(op::kText, "a", false) + clientFrame(op::kText, "b"), 1002);
    EXPECT_EQ(log_.count("message:"), 0u);
}

TEST_P(WebSockets, FailsInvalidUtf8With1007) {
    serveWs();
    expectFailure(clientFrame(op::kText, "ok\xff"), 1007);
    expectFailure(clientFrame(op::kText, "\xed\xa0\x80"), 1007);  // a surrogate
    EXPECT_EQ(log_.count("message:"), 0u);
}

TEST_P(WebSockets, FailsInvalidUtf8AtTheFirstBadFragment) {
    serveWs();
    // The final fragment is never sent: the server must not wait for it.
    expectFailure(clientFrame(op::kText, "valid \xc3", false) + clientFrame(op::kContinuation, "\x28 bad", false),
                  1007);
    // Invalid in the first fragment already, split across two reads.
    auto client = connect();
    std::string frame = clientFrame(op::kText, "abc\xf0\x28\x8c\x28", false);
    client->send(std::string_view(frame).substr(0, frame.size() - 3));
    EXPECT_TRUE(client->staysQuiet(5ms));
    client->send(std::string_view(frame).substr(frame.size() - 3));
    auto close = client->readCloseFrame();
    ASSERT_TRUE(close);
    EXPECT_EQ(close->closeCode(), 1007);
    EXPECT_TRUE(client->waitForClose());
    EXPECT_EQ(log_.count("message:"), 0u);
}

TEST_P(WebSockets, FailsAMessageOverMaxPayloadLengthWith1009) {
    serveWs([](Behavior& behavior, App&) { behavior.maxPayloadLength = 1024; });
    // At the limit: delivered.
    {
        auto client = connect();
        client->sendBinary(std::string(1024, 'x'));
        auto echo = client->readFrame();
        ASSERT_TRUE(echo);
        EXPECT_EQ(echo->payload.size(), 1024u);
    }
    expectFailure(clientFrame(op::kBinary, std::string(1025, 'x')), 1009);
    // Fragments that are small alone but too long together.
    expectFailure(clientFrame(op::kBinary, std::string(600, 'x'), false) +
                      clientFrame(op::kContinuation, std::string(600, 'x'), true),
                  1009);
    EXPECT_EQ(log_.count("message:"), 1u);
}

TEST_P(WebSockets, FailsCloseFramesWithInvalidCodesWith1002) {
    serveWs();
    expectFailure(clientFrame(op::kClose, closePayload(1005)), 1002);
    expectFailure(clientFrame(op::kClose, closePayload(999)), 1002);
    expectFailure(clientFrame(op::kClose, closePayload(1006)), 1002);
    expectFailure(clientFrame(op::kClose, std::string("\x03", 1)), 1002);  // a one-byte payload
}

TEST_P(WebSockets, FailsACloseReasonThatIsNotUtf8With1007) {
    serveWs();
    expectFailure(clientFrame(op::kClose, closePayload(1000, "bad \xff reason")), 1007);
}

// ---- closing ----

TEST_P(WebSockets, EchoesThePeersCloseFrameAndCallsTheCloseHandler) {
    serveWs();
    auto client = connect();
    client->sendClose(1000, "done");
    auto close = client->readFrame();
    ASSERT_TRUE(close);
    EXPECT_EQ(close->opcode, op::kClose);
    EXPECT_EQ(close->closeCode(), 1000);
    EXPECT_EQ(close->closeReason(), "done");
    EXPECT_TRUE(client->waitForClose());
    EXPECT_TRUE(log_.waitFor("close:1000:done"));

    client = connect();
    client->sendClose(4321);
    close = client->readFrame();
    ASSERT_TRUE(close);
    EXPECT_EQ(close->closeCode(), 4321);
    EXPECT_TRUE(client->waitForClose());
    EXPECT_TRUE(log_.waitFor("close:4321:"));
}

TEST_P(WebSockets, AnEmptyCloseFrameReachesTheHandlerAs1005) {
    serveWs();
    auto client = connect();
    client->sendFrame(op::kClose, "");
    auto close = client->readFrame();
    ASSERT_TRUE(close);
    EXPECT_EQ(close->opcode, op::kClose);
    EXPECT_EQ(close->payload, "");
    EXPECT_TRUE(client->waitForClose());
    EXPECT_TRUE(log_.waitFor("close:1005:"));
}

TEST_P(WebSockets, EndSendsACloseFrameAndRunsTheCloseHandlerAtOnce) {
    serveWs([this](Behavior& behavior, App&) {
        behavior.message = [log = &log_](Socket* ws, std::string_view, OpCode) {
            ws->end(4000, "bye");
            log->add(std::string("after-end:") + (ws->isClosed() ? "closed" : "open"));
            log->add(std::string("send-after-end:") + std::to_string(static_cast<int>(ws->send("late"))));
        };
    });
    auto client = connect();
    client->sendText("end please");
    auto close = client->readFrame();
    ASSERT_TRUE(close);
    EXPECT_EQ(close->opcode, op::kClose);
    EXPECT_EQ(close->closeCode(), 4000);
    EXPECT_EQ(close->closeReason(), "bye");
    client->sendClose(4000);
    EXPECT_TRUE(client->waitForClose());
    ASSERT_TRUE(log_.waitFor("send-after-end:"));
    auto events = log_.events();
    // The close handler ran inside end(), with end's code and reason, exactly once.
    EXPECT_EQ(log_.indexOf("close:4000:bye") + 1, log_.indexOf("after-end:closed")) << joined(events);
    EXPECT_EQ(log_.count("send-after-end:2"), 1u) << joined(events);  // SendStatus::Dropped
    server().runOnLoop([](App&) {});
    EXPECT_EQ(log_.count("close:"), 1u) << joined(log_.events());
}

TEST_P(WebSockets, CloseClosesAtOnceAndTheHandlerGets1006) {
    serveWs([this](Behavior& behavior, App&) {
        behavior.message = [log = &log_](Socket* ws, std::string_view, OpCode) {
            ws->close();
            log->add(std::string("after-close:") + (ws->isClosed() ? "closed" : "open"));
        };
    });
    auto client = connect();
    client->sendText("close please");
    // No close frame: the connection just ends.
    EXPECT_EQ(client->raw().readUntilClose(), "");
    EXPECT_TRUE(log_.waitFor("after-close:closed"));
    EXPECT_EQ(log_.count("close:1006:"), 1u) << joined(log_.events());
    EXPECT_TRUE(waitForNoConnections());
}

TEST_P(WebSockets, APeerThatDisconnectsWithoutCloseFrameGives1006) {
    serveWs();
    auto client = connect();
    client.reset();
    EXPECT_TRUE(log_.waitFor("close:1006:"));
    EXPECT_TRUE(waitForNoConnections());
}

TEST_P(WebSockets, ClosingTheAppClosesItsWebSockets) {
    serveWs();
    auto client = connect();
    server_.reset();
    EXPECT_EQ(log_.count("close:1006:"), 1u) << joined(log_.events());
    EXPECT_TRUE(client->waitForClose());
}

// ---- timeouts ----

ServerOptions fastSweep() {
    ServerOptions options;
    options.sweepIntervalMs = 100;
    return options;
}

TEST_P(WebSockets, IdleTimeoutWithoutPingsCloses) {
    serveWs(
        [](Behavior& behavior, App&) {
            behavior.idleTimeout = WebSocketSettings::kMinIdleTimeoutSeconds;
            behavior.sendPingsAutomatically = false;
        },
        fastSweep());
    auto start = Clock::now();
    auto client = connect();
    EXPECT_TRUE(client->waitForClose(12s));
    EXPECT_GE(Clock::now() - start, 7500ms);
    EXPECT_TRUE(log_.waitFor("close:1006:"));
}

TEST_P(WebSockets, IdleTimeoutPingsAndAPongKeepsTheConnectionOpen) {
    serveWs(
        [](Behavior& behavior, App&) {
            behavior.idleTimeout = WebSocketSettings::kMinIdleTimeoutSeconds;
            behavior.sendPingsAutomatically = true;
        },
        fastSweep());
    auto start = Clock::now();
    auto answering = connect();
    auto silent = connect();
    auto ping = answering->readFrame(10s);
    ASSERT_TRUE(ping);
    EXPECT_EQ(ping->opcode, op::kPing);
    EXPECT_GE(Clock::now() - start, 3s);
    answering->sendFrame(op::kPong, ping->payload);
    auto silentPing = silent->readFrame(10s);
    ASSERT_TRUE(silentPing);
    EXPECT_EQ(silentPing->opcode, op::kPing);
    // The client that does not answer is closed once the idle timeout is over...
    EXPECT_TRUE(silent->waitForClose(10s));
    EXPECT_GE(Clock::now() - start, 7500ms);
    EXPECT_TRUE(log_.waitFor("close:1006:"));
    // ...while the one that answered is still open past it, and is pinged again.
    ping = answering->readFrame(10s);
    ASSERT_TRUE(ping);
    EXPECT_EQ(ping->opcode, op::kPing);
    answering->sendText("still here");
    auto echo = answering->readFrame();
    ASSERT_TRUE(echo);
    EXPECT_EQ(echo->payload, "still here");
    EXPECT_EQ(log_.count("close:"), 1u) << joined(log_.events());
}

// ---- backpressure ----

TEST_P(WebSockets, SendReportsBackpressureDropsOverTheLimitAndDrains) {
    constexpr std::size_t kMessageBytes = 16 * 1024;
    serveWs([this](Behavior& behavior, App&) {
        behavior.maxBackpressure = 256 * 1024;
        behavior.message = [log = &log_](Socket* ws, std::string_view, OpCode) {
            std::string chunk(kMessageBytes, 'b');
            int counts[3] = {0, 0, 0};
            int first = -1;
            for (int i = 0; i < 100000 && counts[2] == 0; ++i) {
                int status = static_cast<int>(ws->send(chunk, OpCode::Binary));
                if (first < 0) first = status;
                ++counts[status];
            }
            log->add("flood:" + std::to_string(first) + ":" + std::to_string(counts[1]) + ":" +
                     std::to_string(counts[0]) + ":" + std::to_string(counts[2]));
        };
        behavior.drain = [log = &log_](Socket* ws) {
            log->add("drain:" + std::to_string(ws->getBufferedAmount()));
            if (log->count("drain:") == 1) ws->send("after drain", OpCode::Text);
        };
    });
    auto client = connect();
    client->raw().setReceiveBuffer(65536);
    client->sendText("flood");
    ASSERT_TRUE(log_.waitFor("flood:", 1, 10s));
    std::string flood = log_.events()[log_.indexOf("flood:")];
    int first = 0, success = 0, backpressure = 0, dropped = 0;
    ASSERT_EQ(std::sscanf(flood.c_str(), "flood:%d:%d:%d:%d", &first, &success, &backpressure, &dropped), 4);
    EXPECT_EQ(first, static_cast<int>(SendStatus::Success)) << flood;
    EXPECT_GE(backpressure, 1) << flood;
    EXPECT_EQ(dropped, 1) << flood;
    EXPECT_EQ(log_.count("dropped:" + std::to_string(kMessageBytes)), 1u) << joined(log_.events());
    EXPECT_EQ(log_.count("drain"), 0u);
    // Reading everything drains the buffer: the drain handler runs, and what it sends arrives last.
    for (int i = 0; i < success + backpressure; ++i) {
        auto frame = client->readFrame(10s);
        ASSERT_TRUE(frame) << i;
        ASSERT_EQ(frame->payload.size(), kMessageBytes) << i;
    }
    auto last = client->readFrame();
    ASSERT_TRUE(last);
    EXPECT_EQ(last->payload, "after drain");
    EXPECT_TRUE(log_.waitFor("drain:"));
}

TEST_P(WebSockets, CloseOnBackpressureLimitClosesWhenAMessageIsDropped) {
    serveWs([this](Behavior& behavior, App&) {
        behavior.maxBackpressure = 64 * 1024;
        behavior.closeOnBackpressureLimit = true;
        behavior.message = [log = &log_](Socket* ws, std::string_view, OpCode) {
            std::string chunk(16 * 1024, 'b');
            int sent = 0;
            while (sent < 100000 && ws->send(chunk, OpCode::Binary) != SendStatus::Dropped)
                ++sent;
            log->add(std::string("flooded:") + (ws->isClosed() ? "closed" : "open"));
        };
    });
    auto client = connect();
    client->raw().setReceiveBuffer(65536);
    client->sendText("flood");
    ASSERT_TRUE(log_.waitFor("flooded:", 1, 10s));
    EXPECT_EQ(log_.count("flooded:closed"), 1u) << joined(log_.events());
    EXPECT_EQ(log_.count("dropped:"), 1u);
    EXPECT_EQ(log_.count("close:1006:"), 1u) << joined(log_.events());
    EXPECT_TRUE(client->waitForClose(10s));
}

// ---- pub/sub ----

TEST_P(WebSockets, PublishReachesOtherSubscribersButNotTheSender) {
    serveWs([this](Behavior& behavior, App&) {
        behavior.open = [log = &log_](Socket* ws) {
            log->add("open:" + std::to_string(ws->getUserData()->id));
            ws->subscribe("room");
        };
        behavior.message = [](Socket* ws, std::string_view message, OpCode opCode) {
            ws->publish("room", message, opCode);
        };
        behavior.subscription = [log = &log_](Socket*, std::string_view topic, int newCount, int oldCount) {
            log->add("sub:" + std::string(topic) + ":" + std::to_string(newCount) + ":" + std::to_string(oldCount));
        };
    });
    auto a = connect();
    auto b = connect();
    auto c = connect();
    std::vector<std::string> subscriptions;
    for (const std::string& event : log_.events()) {
        if (event.rfind("sub:", 0) == 0) subscriptions.push_back(event);
    }
    EXPECT_EQ(subscriptions, (std::vector<std::string>{"sub:room:1:0", "sub:room:2:1", "sub:room:3:2"}));
    std::size_t subscribers = 0;
    server().runOnLoop([&subscribers](App& app) { subscribers = app.numSubscribers("room"); });
    EXPECT_EQ(subscribers, 3u);

    a->sendText("from a");
    for (WsTestClient* receiver : {b.get(), c.get()}) {
        auto frame = receiver->readFrame();
        ASSERT_TRUE(frame);
        EXPECT_EQ(frame->opcode, op::kText);
        EXPECT_EQ(frame->payload, "from a");
    }
    // App::publish reaches everybody; a's first frame is this one (it never got its own message).
    bool delivered = false;
    server().runOnLoop([&delivered](App& app) { delivered = app.publish("room", "to all", OpCode::Binary); });
    EXPECT_TRUE(delivered);
    for (WsTestClient* receiver : {a.get(), b.get(), c.get()}) {
        auto frame = receiver->readFrame();
        ASSERT_TRUE(frame);
        EXPECT_EQ(frame->opcode, op::kBinary);
        EXPECT_EQ(frame->payload, "to all");
    }
    // Leaving unsubscribes.
    c->sendClose(1000);
    ASSERT_TRUE(log_.waitFor("close:1000:"));
    server().runOnLoop([&subscribers](App& app) { subscribers = app.numSubscribers("room"); });
    EXPECT_EQ(subscribers, 2u);
    EXPECT_EQ(log_.count("sub:room:2:3"), 1u) << joined(log_.events());
    server().runOnLoop([&delivered](App& app) { delivered = app.publish("nobody", "x"); });
    EXPECT_FALSE(delivered);
}

TEST_P(WebSockets, PublishedMessagesKeepTheirOrderAndPrecedeALaterDirectSend) {
    serveWs([](Behavior& behavior, App& app) {
        behavior.open = [](Socket* ws) { ws->subscribe("news"); };
        behavior.message = [app = &app](Socket* ws, std::string_view message, OpCode) {
            if (message == "burst") {
                for (int i = 0; i < 20; ++i)
                    ws->publish("news", "item " + std::to_string(i), OpCode::Text);
            } else {
                app->publish("news", "published", OpCode::Text);
                ws->send("direct", OpCode::Text);
            }
        };
    });
    WsTestClient a(port());
    ASSERT_EQ(a.handshake().value_or(Response{}).status, 101);
    WsTestClient b(port());
    ASSERT_EQ(b.handshake().value_or(Response{}).status, 101);
    server().runOnLoop([](App&) {});  // both opened, both subscribed

    a.sendText("burst");
    for (int i = 0; i < 20; ++i) {
        auto frame = b.readFrame();
        ASSERT_TRUE(frame) << i;
        EXPECT_EQ(frame->payload, "item " + std::to_string(i));
    }
    a.sendText("mixed");
    for (std::string expected : {"published", "direct"}) {
        auto frame = a.readFrame();
        ASSERT_TRUE(frame) << expected;
        EXPECT_EQ(frame->payload, expected);
    }
    auto other = b.readFrame();
    ASSERT_TRUE(other);
    EXPECT_EQ(other->payload, "published");
}

// ---- permessage-deflate ----

constexpr std::string_view kDeflateOffer = "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n";

TEST_P(WebSockets, NegotiatesDeflateAndInflatesAndCompresses) {
    serveWs([this](Behavior& behavior, App&) {
        behavior.compression = SHARED_COMPRESSOR | SHARED_DECOMPRESSOR;
        behavior.message = [log = &log_](Socket* ws, std::string_view message, OpCode opCode) {
            log->add("message:" + std::to_string(static_cast<int>(opCode)) + ":" + std::string(message));
            ws->send(message, opCode, true);
        };
    });
    WsTestClient client(port());
    auto response = client.handshake("/ws", kDeflateOffer);
    ASSERT_TRUE(response);
    ASSERT_EQ(response->status, 101);
    EXPECT_EQ(response->header("sec-websocket-extensions").rfind("permessage-deflate", 0), 0u)
        << response->header("sec-websocket-extensions");

    std::string message;
    for (int i = 0; i < 50; ++i)
        message += "compress me, compress me again " + std::to_string(i) + "; ";
    client.sendFrame(op::kText, deflateMessage(message), true, kRsv1);
    ASSERT_TRUE(log_.waitFor("message:1:compress me"));
    EXPECT_EQ(log_.count("message:1:" + message), 1u);
    auto echo = client.readFrame();
    ASSERT_TRUE(echo);
    EXPECT_EQ(echo->opcode, op::kText);
    EXPECT_EQ(echo->rsv, kRsv1);
    EXPECT_LT(echo->payload.size(), message.size());
    EXPECT_EQ(inflateMessage(echo->payload), message);

    // A compressed message in fragments (RSV1 on the first only), and an uncompressed one on the same socket.
    std::string compressed = deflateMessage(message);
    client.send(clientFrame(op::kBinary, compressed.substr(0, 10), false, kRsv1) +
                clientFrame(op::kContinuation, compressed.substr(10), true));
    echo = client.readFrame();
    ASSERT_TRUE(echo);
    EXPECT_EQ(echo->opcode, op::kBinary);
    EXPECT_EQ(inflateMessage(echo->payload), message);
    client.sendText("plain");
    ASSERT_TRUE(log_.waitFor("message:1:plain"));
    echo = client.readFrame();
    ASSERT_TRUE(echo);
    EXPECT_EQ(echo->rsv == kRsv1 ? inflateMessage(echo->payload) : echo->payload, "plain");

    // A compressed frame split across reads.
    std::string frame = clientFrame(op::kText, compressed, true, kRsv1);
    client.send(std::string_view(frame).substr(0, frame.size() / 2));
    EXPECT_TRUE(client.staysQuiet(5ms));
    client.send(std::string_view(frame).substr(frame.size() / 2));
    echo = client.readFrame();
    ASSERT_TRUE(echo);
    EXPECT_EQ(inflateMessage(echo->payload), message);
    EXPECT_EQ(log_.count("message:1:" + message), 2u);
}

TEST_P(WebSockets, PublishesCompressedToADeflateSubscriber) {
    serveWs([](Behavior& behavior, App&) {
        behavior.compression = SHARED_COMPRESSOR | SHARED_DECOMPRESSOR;
        behavior.open = [](Socket* ws) { ws->subscribe("z"); };
    });
    WsTestClient deflating(port());
    auto response = deflating.handshake("/ws", kDeflateOffer);
    ASSERT_TRUE(response);
    ASSERT_EQ(response->status, 101);
    WsTestClient plain(port());
    ASSERT_EQ(plain.handshake().value_or(Response{}).status, 101);
    std::string message(2000, 'z');
    server().runOnLoop([&message](App& app) { app.publish("z", message, OpCode::Text, true); });
    auto compressedFrame = deflating.readFrame();
    ASSERT_TRUE(compressedFrame);
    EXPECT_EQ(compressedFrame->rsv, kRsv1);
    EXPECT_EQ(inflateMessage(compressedFrame->payload), message);
    auto plainFrame = plain.readFrame();
    ASSERT_TRUE(plainFrame);
    EXPECT_EQ(plainFrame->rsv, 0);
    EXPECT_EQ(plainFrame->payload, message);
}

TEST_P(WebSockets, DoesNotNegotiateDeflateWhenDisabled) {
    serveWs();
    WsTestClient client(port());
    auto response = client.handshake("/ws", kDeflateOffer);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 101);
    EXPECT_FALSE(response->hasHeader("sec-websocket-extensions"));
}

TEST_P(WebSockets, FailsADeflateBombWith1009) {
    serveWs([](Behavior& behavior, App&) {
        behavior.compression = SHARED_COMPRESSOR | SHARED_DECOMPRESSOR;
        behavior.maxPayloadLength = 1024 * 1024;
    });
    WsTestClient client(port());
    auto response = client.handshake("/ws", kDeflateOffer);
    ASSERT_TRUE(response);
    ASSERT_EQ(response->status, 101);
    std::string bomb = deflateMessage(std::string(16 * 1024 * 1024, '\0'));
    ASSERT_LT(bomb.size(), 64u * 1024);
    client.sendFrame(op::kBinary, bomb, true, kRsv1);
    auto close = client.readCloseFrame();
    ASSERT_TRUE(close);
    EXPECT_EQ(close->closeCode(), 1009);
    EXPECT_TRUE(client.waitForClose());
    EXPECT_TRUE(log_.waitFor("close:1009:"));
    EXPECT_EQ(log_.count("message:"), 0u);
}

// ---- user data ----

TEST_P(WebSockets, UserDataComesFromUpgradeAndIsDestroyedOnceAfterClose) {
    std::atomic<int> destroyed{0};
    serveWs([this, &destroyed](Behavior& behavior, App&) {
        behavior.upgrade = [counter = &destroyed](HttpResponse* res, HttpRequest* req, WebSocketContext* context) {
            int id = std::atoi(std::string(req->getQuery()).c_str());
            if (id == 0) id = 42;
            res->upgrade(PerSocket{id, counter}, req->getHeader("sec-websocket-key"),
                         req->getHeader("sec-websocket-protocol"), req->getHeader("sec-websocket-extensions"), context);
        };
        behavior.message = [](Socket* ws, std::string_view, OpCode) {
            ws->send(std::to_string(ws->getUserData()->id), OpCode::Text);
        };
        behavior.close = [log = &log_, counter = &destroyed](Socket* ws, int code, std::string_view) {
            // Still alive during the close handler.
            log->add("close:" + std::to_string(code) + ":id " + std::to_string(ws->getUserData()->id) + " destroyed " +
                     std::to_string(counter->load()));
        };
    });
    auto client = connect();
    EXPECT_EQ(log_.count("open:42"), 1u) << joined(log_.events());
    EXPECT_EQ(destroyed.load(), 0);
    client->sendText("who am I?");
    auto frame = client->readFrame();
    ASSERT_TRUE(frame);
    EXPECT_EQ(frame->payload, "42");
    client->sendClose(1000);
    EXPECT_TRUE(client->waitForClose());
    ASSERT_TRUE(log_.waitFor("close:1000:id 42 destroyed 0")) << joined(log_.events());
    server().runOnLoop([](App&) {});
    EXPECT_EQ(destroyed.load(), 1);

    // A connection still open when the App closes.
    auto other = connect();
    server_.reset();
    EXPECT_EQ(log_.count("close:1006:id 42"), 1u) << joined(log_.events());
    EXPECT_EQ(destroyed.load(), 2);
}

TEST_P(WebSockets, UpgradeHandlerMayRefuseWithAnHttpResponse) {
    serveWs([](Behavior& behavior, App&) {
        behavior.upgrade = [](HttpResponse* res, HttpRequest*, WebSocketContext*) {
            res->writeStatus("403 Forbidden")->end("no");
        };
    });
    TestClient client(port());
    client.send(upgradeRequest());
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 403);
    EXPECT_EQ(response->body, "no");
    EXPECT_EQ(log_.count("open:"), 0u);
}

}  // namespace
}  // namespace loopwire::test
