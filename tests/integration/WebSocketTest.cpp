// WebSocket connections over real loopback sockets: the handshake, echo of every message shape, control frames,
// every protocol violation and its close code, and the closing handshake from both sides. Timeouts, backpressure,
// pub/sub, compression and user data are in WebSocketFlowTest.cpp. Every test runs on both loop backends.
#include "WebSocketFixture.h"
#include "base/Limits.h"

#include <string>

namespace loopwire::test::websocket {
namespace {

LW_INSTANTIATE_TRANSPORTS(WebSockets);

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

// Issue 18: without a key or a version the request is no handshake to uWebSockets, which hands it to the HTTP
// routes (engine.io answers such requests itself); when none takes it, the handshake's error is the answer.
TEST_P(WebSockets, AnUpgradeWithoutKeyOrVersionGoesToTheHttpRoutesFirst) {
    serveWs([](Behavior&, App& app) {
        app.any("/*", [](HttpResponse* res, HttpRequest*) { res->writeStatus("400 Bad Request")->end("from any"); });
    });
    std::string withoutKey = upgradeRequest();
    withoutKey.erase(withoutKey.find("Sec-WebSocket-Key:"),
                     withoutKey.find("Sec-WebSocket-Version:") - withoutKey.find("Sec-WebSocket-Key:"));
    std::string withoutVersion = upgradeRequest();
    withoutVersion.erase(withoutVersion.find("Sec-WebSocket-Version: 13\r\n"), 27);
    for (const std::string& request : {withoutKey, withoutVersion}) {
        auto response = fetch(port(), request);
        ASSERT_TRUE(response) << request;
        EXPECT_EQ(response->status, 400) << request;
        EXPECT_EQ(response->body, "from any") << request;
    }
    EXPECT_EQ(log_.count("open:"), 0u);
}

TEST_P(WebSockets, AnUpgradeWithoutKeyOrVersionThatNoRouteTakesGetsTheHandshakeError) {
    serveWs();
    std::string withoutVersion = upgradeRequest();
    withoutVersion.erase(withoutVersion.find("Sec-WebSocket-Version: 13\r\n"), 27);
    auto response = fetch(port(), withoutVersion);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 426);
    EXPECT_EQ(response->header("sec-websocket-version"), "13");
    std::string withoutKey =
        "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n";
    response = fetch(port(), withoutKey);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 400);
    // An upgrade to another protocol is no WebSocket request at all: with no route for it, a 404.
    response = fetch(port(), "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 404);
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

// Issue 18: every GET is first offered to the WebSocket routes, and the any routes must wait until the GET routes
// have had it (hyper-express and every app with a catch-all 404 broke here).
TEST_P(WebSockets, AnAnyRouteTakesNoGetRequestFromItsGetRouteBesideAWsRoute) {
    serveWs([](Behavior&, App& app) {
        app.get("/a", [](HttpResponse* res, HttpRequest*) { res->end("get"); });
        app.any("/*", [](HttpResponse* res, HttpRequest*) { res->writeStatus("404 Not Found")->end("any"); });
    });
    auto got = fetch(port(), "GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(got);
    EXPECT_EQ(got->status, 200);
    EXPECT_EQ(got->body, "get");
    auto other = fetch(port(), "GET /b HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(other);
    EXPECT_EQ(other->body, "any");
    // A plain GET on the ws route's own path also falls through to the any route, and an upgrade still upgrades.
    auto plain = fetch(port(), "GET /ws HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->body, "any");
    WsTestClient client(port());
    auto upgraded = client.handshake();
    ASSERT_TRUE(upgraded);
    EXPECT_EQ(upgraded->status, 101);
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

// Issue 18: a 101 status and header fields written before the upgrade go out with the 101 answer (engine.io and
// crossws do this); anything else written first leaves the response unable to switch.
TEST_P(WebSockets, UpgradesAfterA101StatusAndHeaderFieldsAndRefusesAfterOtherOutput) {
    serveWs([](Behavior& behavior, App&) {
        behavior.upgrade = [](HttpResponse* res, HttpRequest* req, WebSocketContext* context) {
            if (req->getQuery() != "late") {
                res->writeStatus("101 Switching Protocols")->writeHeader("Set-Cookie", "io=abc");
                EXPECT_TRUE(res->canUpgrade());
                res->upgrade(PerSocket{3, nullptr}, req->getHeader("sec-websocket-key"), "", "", context);
                return;
            }
            res->writeHeader("X-Early", "yes");
            EXPECT_FALSE(res->canUpgrade());
            res->upgrade(PerSocket{4, nullptr}, req->getHeader("sec-websocket-key"), "", "", context);
            res->end("still a response");
        };
    });
    WsTestClient client(port());
    auto response = client.handshake("/ws");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 101);
    EXPECT_EQ(response->header("set-cookie"), "io=abc");
    EXPECT_EQ(response->header("sec-websocket-accept"), kSampleAccept);
    EXPECT_TRUE(log_.waitFor("open:3"));
    client.sendText("hi");
    auto echo = client.readFrame();
    ASSERT_TRUE(echo);
    EXPECT_EQ(echo->payload, "hi");
    WsTestClient refused(port());
    auto answer = refused.handshake("/ws?late");
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 200);
    EXPECT_EQ(answer->header("x-early"), "yes");
    EXPECT_EQ(log_.count("open:4"), 0u);
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

// limits::kMaxWebSocketFragments: a message of that many frames is delivered; one more frame fails it with 1009.
TEST_P(WebSockets, FailsAMessageOfTooManyFragmentsWith1009) {
    serveWs();
    std::string atTheLimit = clientFrame(op::kText, "a", false);
    for (std::size_t i = 2; i < limits::kMaxWebSocketFragments; ++i)
        atTheLimit += clientFrame(op::kContinuation, "", false);
    const std::string last = clientFrame(op::kContinuation, "z", true);
    auto client = connect();
    client->send(atTheLimit + last);
    auto echoed = client->readFrame(20s);
    ASSERT_TRUE(echoed);
    EXPECT_EQ(echoed->payload, "az");
    expectFailure(atTheLimit + clientFrame(op::kContinuation, "", false) + last, 1009);
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

// Issue 18: a code RFC 6455 keeps off the wire never reaches it; the peer gets a close frame without a code (1005)
// and the close handler the code as given.
TEST_P(WebSockets, EndWithACodeThatMayNotTravelSendsACloseFrameWithoutCode) {
    serveWs([](Behavior& behavior, App&) {
        behavior.message = [](Socket* ws, std::string_view message, OpCode) {
            ws->end(std::stoi(std::string(message)), "reason");
        };
    });
    for (int code : {1006, 999, 1004, 1005, 1015, 2000, 5000}) {
        auto client = connect();
        client->sendText(std::to_string(code));
        auto close = client->readFrame();
        ASSERT_TRUE(close) << code;
        EXPECT_EQ(close->opcode, op::kClose) << code;
        EXPECT_TRUE(close->payload.empty()) << code;
        EXPECT_TRUE(log_.waitFor("close:" + std::to_string(code) + ":reason")) << code;
    }
    for (int code : {1000, 1012, 4999}) {
        auto client = connect();
        client->sendText(std::to_string(code));
        auto close = client->readFrame();
        ASSERT_TRUE(close) << code;
        EXPECT_EQ(close->closeCode(), code);
    }
}

// Issue 18: fragments out of order are refused and never put an invalid frame sequence on the wire.
TEST_P(WebSockets, FragmentsOutOfOrderAreRefused) {
    serveWs([this](Behavior& behavior, App&) {
        behavior.message = [log = &log_](Socket* ws, std::string_view, OpCode) {
            std::string results;
            for (SendStatus status :
                 {ws->sendFragment("lone middle"), ws->sendLastFragment("lone last"),
                  ws->sendFirstFragment("one", OpCode::Text), ws->send("inside"), ws->sendFirstFragment("again"),
                  ws->sendFragment(" two"), ws->sendLastFragment(" three"), ws->send("after")}) {
                results += std::to_string(static_cast<int>(status));
            }
            log->add("results:" + results + ":" + (ws->isSendingFragments() ? "sending" : "done"));
        };
    });
    auto client = connect();
    client->sendText("go");
    ASSERT_TRUE(log_.waitFor("results:"));
    EXPECT_EQ(log_.count("results:22122111:done"), 1u) << joined(log_.events());
    auto first = client->readFrame();
    ASSERT_TRUE(first);
    EXPECT_EQ(first->opcode, op::kText);
    EXPECT_FALSE(first->fin);
    EXPECT_EQ(first->payload, "one");
    auto second = client->readFrame();
    ASSERT_TRUE(second);
    EXPECT_EQ(second->opcode, op::kContinuation);
    EXPECT_EQ(second->payload, " two");
    auto third = client->readFrame();
    ASSERT_TRUE(third);
    EXPECT_EQ(third->opcode, op::kContinuation);
    EXPECT_TRUE(third->fin);
    auto after = client->readFrame();
    ASSERT_TRUE(after);
    EXPECT_EQ(after->opcode, op::kBinary);
    EXPECT_TRUE(after->fin);
    EXPECT_EQ(after->payload, "after");
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

}  // namespace
}  // namespace loopwire::test::websocket
