// WebSocket connections over real loopback sockets, what happens over time: idle timeouts and automatic pings,
// backpressure and drops, pub/sub ordering, permessage-deflate (and a deflate bomb) and the user data's lifetime.
// Every test runs on both loop backends.
#include "WebSocketFixture.h"
#include "loop/Loop.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <string>
#include <vector>

namespace loopwire::test::websocket {
namespace {

class WebSocketFlow : public WebSockets {};
LW_INSTANTIATE_TRANSPORTS(WebSocketFlow);

// ---- timeouts ----

ServerOptions fastSweep() {
    ServerOptions options;
    options.sweepIntervalMs = 100;
    return options;
}

TEST_P(WebSocketFlow, IdleTimeoutWithoutPingsCloses) {
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

TEST_P(WebSocketFlow, IdleTimeoutPingsAndAPongKeepsTheConnectionOpen) {
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

TEST_P(WebSocketFlow, MaxLifetimeEndsAConnectionThatIsNotIdleWith1000) {
    serveWs([](Behavior& behavior, App&) { behavior.maxLifetime = 1; }, fastSweep());
    auto client = connect();
    // Minutes pass on the timeout clock in an instant; the sweep (every 100 ms) acts on the new time.
    auto skip = [this](std::uint64_t ms) {
        server().runOnLoop([ms](App& app) { app.loop().advanceTimeoutClockForTesting(ms); });
        std::this_thread::sleep_for(300ms);
    };
    skip(59'000);
    client->sendText("still young");
    auto echo = client->readFrame();
    ASSERT_TRUE(echo);
    EXPECT_EQ(echo->payload, "still young");
    EXPECT_EQ(log_.count("close:"), 0u) << joined(log_.events());
    // A busy connection is ended all the same once its minute is over: traffic does not extend a lifetime.
    skip(2'000);
    auto closing = client->readFrame(5s);
    ASSERT_TRUE(closing);
    EXPECT_EQ(closing->opcode, op::kClose);
    EXPECT_EQ(closing->closeCode(), 1000);
    EXPECT_EQ(closing->closeReason(), "please reconnect");
    EXPECT_TRUE(log_.waitFor("close:1000:please reconnect")) << joined(log_.events());
}

// ---- backpressure ----

TEST_P(WebSocketFlow, SendReportsBackpressureDropsOverTheLimitAndDrains) {
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

// Issue 18: as in uWebSockets, the connection the limit closes stays open for the rest of the handler (every
// further send is dropped and reported, none throws in the addon), and closes once the batch is over.
TEST_P(WebSocketFlow, CloseOnBackpressureLimitDropsTheRestAndClosesAfterTheHandler) {
    serveWs([this](Behavior& behavior, App&) {
        behavior.maxBackpressure = 64 * 1024;
        behavior.closeOnBackpressureLimit = true;
        behavior.message = [log = &log_](Socket* ws, std::string_view, OpCode) {
            std::string chunk(16 * 1024, 'b');
            int sent = 0;
            while (sent < 100000 && ws->send(chunk, OpCode::Binary) != SendStatus::Dropped)
                ++sent;
            int later = static_cast<int>(ws->send("more", OpCode::Text));
            log->add(std::string("flooded:") + (ws->isClosed() ? "closed" : "open") + ":" + std::to_string(later));
        };
    });
    auto client = connect();
    client->raw().setReceiveBuffer(65536);
    client->sendText("flood");
    ASSERT_TRUE(log_.waitFor("flooded:", 1, 10s));
    EXPECT_EQ(log_.count("flooded:open:2"), 1u) << joined(log_.events());
    EXPECT_TRUE(log_.waitFor("close:1006:", 1, 10s)) << joined(log_.events());
    EXPECT_EQ(log_.count("dropped:16384"), 1u) << joined(log_.events());
    EXPECT_EQ(log_.count("dropped:4"), 1u) << joined(log_.events());
    EXPECT_LT(log_.indexOf("flooded:"), log_.indexOf("close:1006:"));
    EXPECT_TRUE(client->waitForClose(10s));
}

// Issue 18: pongs count against the backlog. A peer that sends pings and never reads is read no further once what
// waits for it passes maxBackpressure, so the server keeps at most that plus one read for it, and every other
// connection is served meanwhile.
TEST_P(WebSocketFlow, APeerThatFloodsPingsAndNeverReadsIsHeldToTheBacklogLimit) {
    constexpr std::size_t kLimit = 64 * 1024;
    std::atomic<AnyWebSocket*> flooder{nullptr};
    serveWs([this, &flooder](Behavior& behavior, App&) {
        behavior.maxBackpressure = kLimit;
        behavior.open = [log = &log_, &flooder](Socket* ws) {
            AnyWebSocket* none = nullptr;
            flooder.compare_exchange_strong(none, ws);
            log->add("open:" + std::to_string(ws->getUserData()->id));
        };
        behavior.ping = {};
        // Forgotten once closed, so that the check below never reads a socket that is gone.
        behavior.close = [log = &log_, &flooder](Socket* ws, int code, std::string_view) {
            AnyWebSocket* self = ws;
            flooder.compare_exchange_strong(self, nullptr);
            log->add("close:" + std::to_string(code));
        };
    });
    auto client = connect();
    client->raw().setReceiveBuffer(4096);
    timeval sendTimeout{0, 100 * 1000};
    setsockopt(client->raw().fd(), SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, sizeof sendTimeout);
    std::string pings;
    while (pings.size() < 64 * 1024)
        pings += clientFrame(op::kPing, std::string(125, 'p'));
    const auto started = Clock::now();
    auto nextCheck = started + 1s;
    int othersServed = 0;
    std::size_t sent = 0;
    // A send that times out may stop inside a frame: the next one goes on from there, so the stream stays whole
    // frames and the server never has a protocol error to close on.
    std::size_t offset = 0;
    while (Clock::now() < started + 3s) {
        const std::size_t taken = client->raw().send(std::string_view(pings).substr(offset));
        sent += taken;
        offset = (offset + taken) % pings.size();
        if (Clock::now() >= nextCheck) {
            // Another client, meanwhile: it opens and gets its echo at once.
            nextCheck += 1s;
            const auto checked = Clock::now();
            auto other = connect();
            other->sendText("still here");
            auto echo = other->readFrame(2s);
            if (echo && echo->payload == "still here" && Clock::now() - checked < 2s) ++othersServed;
        }
    }
    EXPECT_GE(othersServed, 2);
    std::size_t buffered = 0;
    bool open = false;
    server().runOnLoop([&](App&) {
        AnyWebSocket* ws = flooder.load();
        open = ws != nullptr;
        if (open) buffered = ws->getBufferedAmount();
    });
    EXPECT_TRUE(open) << "the server closed the flooding connection: " << joined(log_.events());
    // The limit, one read's worth of pongs (a read is at most the loop's receive buffer), and TLS records' framing.
    EXPECT_LE(buffered, kLimit + Loop::kReceiveBufferBytes + 64 * 1024);
    // The server stopped reading: the client's sends stalled once the kernel's buffers on both sides were full
    // (each stalled send gives up after 100 ms). Read without end, it would have pushed gigabytes.
    EXPECT_LT(sent, std::size_t{64} << 20);
}

// Issue 21: getBufferedAmount() counts the frames as they were written, over TLS too, not the records' bytes (22 or
// more of framing each). The client reads nothing; the server sends until backpressure, then one-byte messages,
// each queued (over TLS, sealed) on its own: the amount grows by their frames' 3 bytes each, exactly.
TEST_P(WebSocketFlow, BufferedAmountCountsTheFramesAsWrittenOverTlsToo) {
    constexpr int kMessages = 10000;
    serveWs([log = &log_](Behavior& behavior, App&) {
        behavior.maxBackpressure = 0;  // no limit: nothing is dropped
        behavior.message = [log](Socket* ws, std::string_view, OpCode) {
            const std::string chunk(16384, 'x');
            int chunks = 0;
            while (ws->send(chunk) != SendStatus::Backpressure && ++chunks < 10000) {
            }
            const std::size_t before = ws->getBufferedAmount();
            for (int i = 0; i < kMessages; ++i)
                ws->send("z");
            log->add(before > 0 ? "backpressure" : "none");
            log->add("grew:" + std::to_string(ws->getBufferedAmount() - before));
        };
    });
    auto client = connect();
    client->raw().setReceiveBuffer(4096);
    client->sendText("go");
    ASSERT_TRUE(log_.waitFor("grew:", 1, 10s));
    EXPECT_EQ(log_.count("backpressure"), 1u) << joined(log_.events());
    EXPECT_EQ(log_.count("grew:" + std::to_string(kMessages * 3)), 1u) << joined(log_.events());
}

// ---- pub/sub ----

TEST_P(WebSocketFlow, PublishReachesOtherSubscribersButNotTheSender) {
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

// Twenty publishes in one handler reach each of three subscribers in one write: one send() per subscriber.
TEST_P(WebSocketFlow, ABatchOfPublishesLeavesInOneWritePerSubscriber) {
    serveWs([](Behavior& behavior, App&) {
        behavior.open = [](Socket* ws) { ws->subscribe("news"); };
        behavior.message = [](Socket* ws, std::string_view, OpCode) {
            for (int i = 0; i < 20; ++i)
                ws->publish("news", "item " + std::to_string(i), OpCode::Text);
        };
    });
    WsTestClient publisher(port());
    ASSERT_EQ(publisher.handshake().value_or(Response{}).status, 101);
    std::vector<std::unique_ptr<WsTestClient>> subscribers;
    for (int i = 0; i < 3; ++i) {
        subscribers.push_back(std::make_unique<WsTestClient>(port()));
        ASSERT_EQ(subscribers.back()->handshake().value_or(Response{}).status, 101);
    }
    std::uint64_t before = 0;
    server().runOnLoop([&before](App& app) { before = app.loop().sendCalls(); });
    publisher.sendText("go");
    for (auto& subscriber : subscribers) {
        for (int i = 0; i < 20; ++i) {
            auto frame = subscriber->readFrame();
            ASSERT_TRUE(frame) << i;
            EXPECT_EQ(frame->payload, "item " + std::to_string(i));
        }
    }
    std::uint64_t after = 0;
    server().runOnLoop([&after](App& app) { after = app.loop().sendCalls(); });
    EXPECT_EQ(after - before, 3u);
}

TEST_P(WebSocketFlow, PublishedMessagesKeepTheirOrderAndPrecedeALaterDirectSend) {
    serveWs([this](Behavior& behavior, App& app) {
        behavior.open = [log = &log_](Socket* ws) {
            ws->subscribe("news");
            log->add("open:" + std::to_string(ws->getUserData()->id));
        };
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

// Issue 18: a message published to a socket between its sendFirstFragment and its sendLastFragment (here in a later
// loop turn) waits and follows the fragmented message instead of landing inside it.
TEST_P(WebSocketFlow, APublishDuringAFragmentedMessageFollowsItsLastFragment) {
    serveWs([this](Behavior& behavior, App& app) {
        behavior.open = [log = &log_](Socket* ws) {
            ws->subscribe("news");
            log->add("open:" + std::to_string(ws->getUserData()->id));
        };
        behavior.message = [app = &app](Socket* ws, std::string_view message, OpCode) {
            if (message == "start") {
                ws->sendFirstFragment("frag-1 ", OpCode::Text);
                app->publish("news", "published", OpCode::Text);
                app->defer([ws] { ws->sendLastFragment("frag-2"); });
            }
        };
    });
    auto client = connect();
    client->sendText("start");
    auto first = client->readFrame();
    ASSERT_TRUE(first);
    EXPECT_EQ(first->payload, "frag-1 ");
    EXPECT_FALSE(first->fin);
    auto last = client->readFrame();
    ASSERT_TRUE(last);
    EXPECT_EQ(last->opcode, op::kContinuation);
    EXPECT_EQ(last->payload, "frag-2");
    EXPECT_TRUE(last->fin);
    auto published = client->readFrame();
    ASSERT_TRUE(published);
    EXPECT_EQ(published->opcode, op::kText);
    EXPECT_EQ(published->payload, "published");
}

TEST_P(WebSocketFlow, NegotiatesDeflateAndInflatesAndCompresses) {
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

TEST_P(WebSocketFlow, PublishesCompressedToADeflateSubscriber) {
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

// Issue 47: every published message that maxBackpressure refuses is reported dropped once, as uWebSockets reports
// it, the first of its batch and every one after it: batches of five messages on two topics, to a plain subscriber
// and to a deflating one that takes the shared compressed frames. What each subscriber reads and what was reported
// dropped for it add up to every message published.
TEST_P(WebSocketFlow, EveryPublishedMessageTheLimitRefusesIsReportedDroppedOnce) {
    constexpr int kBatches = 60;
    constexpr int kPerBatch = 5;
    constexpr int kMessages = kBatches * kPerBatch;
    serveWs([this](Behavior& behavior, App&) {
        behavior.compression = SHARED_COMPRESSOR;
        behavior.maxBackpressure = 256 * 1024;
        behavior.open = [log = &log_](Socket* ws) {
            ws->getUserData()->id = static_cast<int>(log->count("open:")) + 1;
            ws->subscribe("a");
            ws->subscribe("b");
            log->add("open:" + std::to_string(ws->getUserData()->id));
        };
        behavior.dropped = [log = &log_](Socket* ws, std::string_view message, OpCode) {
            log->add("dropped:" + std::to_string(ws->getUserData()->id) + ":" + std::to_string(message.size()));
        };
    });
    auto plain = connect();
    auto deflating = connect(kDeflateOffer);
    for (WsTestClient* client : {plain.get(), deflating.get()})
        client->raw().setReceiveBuffer(65536);
    // Bytes that do not compress, so that the compressed frames press on the limit as the plain ones do.
    std::string message(32 * 1024, '\0');
    std::uint32_t state = 12345;
    for (char& byte : message) {
        state = state * 1103515245u + 12345u;
        byte = static_cast<char>(state >> 24);
    }
    for (int batch = 0; batch < kBatches; ++batch) {
        server().runOnLoop([&message](App& app) {
            for (int i = 0; i < kPerBatch; ++i)
                app.publish(i % 2 == 0 ? "a" : "b", message, OpCode::Binary, true);
        });
    }
    server().runOnLoop([](App&) {});
    const std::string size = std::to_string(message.size());
    const int droppedPlain = static_cast<int>(log_.count("dropped:1:" + size));
    const int droppedDeflating = static_cast<int>(log_.count("dropped:2:" + size));
    EXPECT_GT(droppedPlain, kBatches) << "the drops must span batches, several in some";
    EXPECT_GT(droppedDeflating, kBatches);
    for (auto [client, dropped] :
         {std::pair{plain.get(), droppedPlain}, std::pair{deflating.get(), droppedDeflating}}) {
        SCOPED_TRACE(client == plain.get() ? "plain" : "deflating");
        for (int i = 0; i < kMessages - dropped; ++i) {
            auto frame = client->readFrame(10s);
            ASSERT_TRUE(frame) << i << " of " << kMessages - dropped << " read";
            const std::string payload =
                frame->rsv == kRsv1 ? inflateMessage(frame->payload).value_or("") : frame->payload;
            ASSERT_TRUE(payload == message) << i;
        }
        EXPECT_FALSE(client->readFrame(300ms)) << "more arrived than was not reported dropped";
    }
}

TEST_P(WebSocketFlow, DoesNotNegotiateDeflateWhenDisabled) {
    serveWs();
    WsTestClient client(port());
    auto response = client.handshake("/ws", kDeflateOffer);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 101);
    EXPECT_FALSE(response->hasHeader("sec-websocket-extensions"));
}

TEST_P(WebSocketFlow, FailsADeflateBombWith1009) {
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

TEST_P(WebSocketFlow, UserDataComesFromUpgradeAndIsDestroyedOnceAfterClose) {
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

TEST_P(WebSocketFlow, UpgradeHandlerMayRefuseWithAnHttpResponse) {
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
}  // namespace loopwire::test::websocket
