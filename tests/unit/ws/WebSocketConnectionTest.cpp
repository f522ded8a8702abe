// WebSocketConnection on a MemoryStream: the connection's reading, writing, closing and backpressure, driven by
// bytes the test writes and checked in the bytes it reads, with no kernel socket, in plain TCP and over TLS (a
// TlsClient on the test's side); and a walk that fails each read and each write of a whole conversation in turn.
#include "../../WsFrames.h"
#include "net/MemoryStream.h"
#include "net/Socket.h"
#include "unit/net/MemoryClient.h"

#include <loopwire/App.h>
#include <loopwire/WebSocket.h>
#include <loopwire/WebSocketBehavior.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace loopwire::test {
namespace {

using namespace op;

// The whole frames at the front of bytes (a partial one stays there for the next read).
std::vector<Frame> takeFrames(std::string& bytes) {
    std::vector<Frame> frames;
    while (auto frame = takeFrame(bytes))
        frames.push_back(std::move(*frame));
    return frames;
}

struct Session {
    int id = 0;
    int* destroyed = nullptr;
    Session() = default;
    Session(Session&& other) noexcept : id(other.id), destroyed(std::exchange(other.destroyed, nullptr)) {}
    Session& operator=(Session&&) = delete;
    ~Session() {
        if (destroyed != nullptr) ++*destroyed;
    }
};

// A message as the event log shows it: itself when short, else its length and a checksum (a log of long messages
// would be unreadable in a failure).
std::string describe(std::string_view message) {
    if (message.size() <= 64) return std::string(message);
    std::uint32_t sum = 2166136261u;
    for (char byte : message)
        sum = (sum ^ static_cast<unsigned char>(byte)) * 16777619u;
    return "[" + std::to_string(message.size()) + " bytes, " + std::to_string(sum) + "]";
}

using Behavior = WebSocketBehavior<Session>;
using Ws = WebSocket<Session>;

// The parameters: the loop's backend, and whether the connection speaks TLS.
class WebSocketConnectionTest : public ::testing::TestWithParam<MemoryVariant> {
protected:
    void SetUp() override { restart(); }
    void TearDown() override { shutDown(); }

    bool tls() const { return std::get<1>(GetParam()); }
    ServerOptions serverOptions() const {
        ServerOptions options;
        options.backend = std::get<0>(GetParam());
        return options;
    }

    // A new client and App: the state of a test that has not begun.
    void restart() {
        shutDown();
        client_ = std::make_unique<MemoryClient>(tls());
        app_ = makeMemoryApp(tls(), serverOptions());
        events_.clear();
        received_.clear();
        upgrades_ = destroyed_ = 0;
        socket_ = nullptr;
    }

    MemoryStream& stream() { return client_->stream(); }
    bool clientSends(std::string_view bytes) { return client_->send(bytes); }
    std::string clientReceives() { return client_->receive(); }
    void pump() { client_->pump(); }

    // Serves /ws with a route that logs every event and echoes every message; customize changes it first.
    void serve(const std::function<void(Behavior&)>& customize = {}) {
        Behavior behavior;
        behavior.upgrade = [this](HttpResponse* response, HttpRequest* request, WebSocketContext* context) {
            Session session;
            session.id = ++upgrades_;
            session.destroyed = &destroyed_;
            response->upgrade(std::move(session), request->getHeader("sec-websocket-key"),
                              request->getHeader("sec-websocket-protocol"),
                              request->getHeader("sec-websocket-extensions"), context);
        };
        behavior.open = [this](Ws* ws) {
            socket_ = ws;
            log("open");
        };
        behavior.message = [this](Ws* ws, std::string_view message, OpCode opCode) {
            log("message:" + std::to_string(static_cast<int>(opCode)) + ":" + describe(message));
            ws->send(message, opCode);
        };
        behavior.dropped = [this](Ws*, std::string_view message, OpCode) {
            log("dropped:" + std::to_string(message.size()));
        };
        behavior.drain = [this](Ws*) { log("drain"); };
        behavior.ping = [this](Ws*, std::string_view message) { log("ping:" + describe(message)); };
        behavior.pong = [this](Ws*, std::string_view message) { log("pong:" + std::string(message)); };
        behavior.close = [this](Ws*, int code, std::string_view reason) {
            socket_ = nullptr;
            log("close:" + std::to_string(code) + ":" + std::string(reason));
        };
        if (customize) customize(behavior);
        app_->ws<Session>("/ws", std::move(behavior));
    }

    // Has the App serve the stream and sends the upgrade request; expects the 101 and the open handler.
    void connect() {
        ASSERT_TRUE(client_->connect(*app_)) << client_->tlsError();
        clientSends(upgradeRequest("/ws"));
        pump();
        const std::string response = takeHead();
        ASSERT_EQ(response.rfind("HTTP/1.1 101 ", 0), 0u) << response;
        ASSERT_NE(response.find(std::string("Sec-WebSocket-Accept: ") + std::string(kSampleAccept)), std::string::npos)
            << response;
        ASSERT_EQ(events_, std::vector<std::string>{"open"});
        events_.clear();
    }

    // Sends bytes and runs the loop; returns the frames the server wrote meanwhile.
    std::vector<Frame> exchange(std::string_view bytes) {
        EXPECT_TRUE(clientSends(bytes));
        pump();
        return frames();
    }
    std::vector<Frame> frames() {
        received_ += clientReceives();
        return takeFrames(received_);
    }

    void shutDown() {
        if (!app_) return;
        app_->close();
        pump();
        app_.reset();
    }

    void log(std::string event) { events_.push_back(std::move(event)); }

    // The response head at the front of what the server wrote (the rest stays for frames()).
    std::string takeHead() {
        received_ += clientReceives();
        const std::size_t end = received_.find("\r\n\r\n");
        if (end == std::string::npos) return received_;
        std::string head = received_.substr(0, end + 4);
        received_.erase(0, end + 4);
        return head;
    }

    // Declared before the App: the client's stream outlives the socket made on it.
    std::unique_ptr<MemoryClient> client_;
    std::unique_ptr<App> app_;
    std::vector<std::string> events_;
    std::string received_;
    Ws* socket_ = nullptr;
    int upgrades_ = 0;
    int destroyed_ = 0;
};

using Events = std::vector<std::string>;

TEST_P(WebSocketConnectionTest, AMessageIsDeliveredAndEchoedInOneFrame) {
    serve();
    connect();
    auto echoed = exchange(clientFrame(kText, "hello"));
    EXPECT_EQ(events_, Events{"message:1:hello"});
    ASSERT_EQ(echoed.size(), 1u);
    EXPECT_EQ(echoed[0].opcode, kText);
    EXPECT_TRUE(echoed[0].fin);
    EXPECT_FALSE(echoed[0].masked);
    EXPECT_EQ(echoed[0].payload, "hello");
}

// The parser meets every split a TCP stream can make: each frame of a conversation cut at every chunk size.
TEST_P(WebSocketConnectionTest, EveryChunkSizeDeliversTheSameMessages) {
    serve([](Behavior& behavior) { behavior.maxPayloadLength = 100'000; });
    connect();
    const std::string big(70'000, 'b');
    std::string conversation = clientFrame(kText, "one") + clientFrame(kBinary, std::string(300, '\x01')) +
                               clientFrame(kText, "tw", false) + clientFrame(kPing, "p") +
                               clientFrame(kContinuation, "o", true) + clientFrame(kBinary, big);
    for (std::size_t chunk : {1u, 2u, 3u, 7u, 125u, 4096u}) {
        events_.clear();
        stream().setReadChunk(chunk);
        auto echoed = exchange(conversation);
        ASSERT_EQ(events_, (Events{"message:1:one", "message:2:" + describe(std::string(300, '\x01')), "ping:p",
                                   "message:1:two", "message:2:" + describe(big)}))
            << "chunk " << chunk;
        ASSERT_EQ(echoed.size(), 5u) << "chunk " << chunk;
        EXPECT_EQ(echoed[2].opcode, kPong);
        EXPECT_EQ(echoed[2].payload, "p");
        EXPECT_EQ(echoed[3].payload, "two");
        EXPECT_TRUE(echoed[4].payload == big);
    }
}

TEST_P(WebSocketConnectionTest, APingIsAnsweredBeforeItsHandlerRunsAndAPongIsReported) {
    serve([](Behavior& behavior) {
        behavior.ping = [](Ws* ws, std::string_view) { ws->send("after the ping", OpCode::Text); };
    });
    connect();
    auto written = exchange(clientFrame(kPing, "are you there") + clientFrame(kPong, "unsolicited"));
    ASSERT_EQ(written.size(), 2u);
    EXPECT_EQ(written[0].opcode, kPong);
    EXPECT_EQ(written[0].payload, "are you there");
    EXPECT_EQ(written[1].payload, "after the ping");
    EXPECT_EQ(events_, Events{"pong:unsolicited"});
}

TEST_P(WebSocketConnectionTest, TheClientsCloseFrameIsEchoedAndEndsTheConnection) {
    serve();
    connect();
    auto written = exchange(clientFrame(kClose, closePayload(4000, "bye")));
    ASSERT_EQ(written.size(), 1u);
    EXPECT_EQ(written[0].opcode, kClose);
    EXPECT_EQ(written[0].closeCode(), 4000);
    EXPECT_EQ(events_, Events{"close:4000:bye"});
    EXPECT_EQ(destroyed_, 1);
    // The server ends its side; the stream closes once the client has ended its own.
    EXPECT_TRUE(stream().serverEndedWriting());
    stream().endWriting();
    pump();
    EXPECT_TRUE(stream().serverClosed());
}

TEST_P(WebSocketConnectionTest, EndSendsACloseFrameAndWaitsForThePeers) {
    serve();
    connect();
    socket_->end(1001, "going away");
    pump();
    auto written = frames();
    ASSERT_EQ(written.size(), 1u);
    EXPECT_EQ(written[0].opcode, kClose);
    EXPECT_EQ(written[0].closeCode(), 1001);
    EXPECT_EQ(written[0].payload.substr(2), "going away");
    EXPECT_EQ(events_, Events{"close:1001:going away"});
    EXPECT_FALSE(stream().serverClosed());
    // Data frames that cross our close frame are read and dropped; the peer's close frame ends it.
    exchange(clientFrame(kText, "late") + clientFrame(kClose, closePayload(1001)));
    EXPECT_EQ(events_, Events{"close:1001:going away"});
    EXPECT_TRUE(stream().serverClosed());
}

TEST_P(WebSocketConnectionTest, ProtocolErrorsFailTheConnectionWithTheirCode) {
    struct Case {
        const char* name;
        std::string bytes;
        int code;
    };
    const std::vector<Case> cases = {
        {"unmasked frame", clientFrame(kText, "x", true, 0, false), 1002},
        {"RSV1 without compression", clientFrame(kText, "x", true, kRsv1), 1002},
        {"invalid UTF-8 in text", clientFrame(kText, "\xc3\x28"), 1007},
        {"invalid UTF-8 across fragments", clientFrame(kText, "ok\xe2\x82", false) + clientFrame(kContinuation, "\x28"),
         1007},
        {"continuation without a message", clientFrame(kContinuation, "x"), 1002},
        {"fragmented ping", clientFrame(kPing, "x", false), 1002},
        {"too large", clientFrame(kBinary, std::string(16 * 1024 + 1, 'z')), 1009},
        {"close code 1005 on the wire", clientFrame(kClose, closePayload(1005)), 1002},
    };
    for (const Case& testCase : cases) {
        SCOPED_TRACE(testCase.name);
        restart();
        serve();
        connect();
        auto written = exchange(testCase.bytes);
        ASSERT_FALSE(written.empty());
        EXPECT_EQ(written.back().opcode, kClose);
        EXPECT_EQ(written.back().closeCode(), testCase.code);
        ASSERT_EQ(events_.size(), 1u);
        EXPECT_EQ(events_[0].rfind("close:" + std::to_string(testCase.code) + ":", 0), 0u) << events_[0];
        // The server's FIN follows the close frame; it closes once the peer's FIN comes (closeLingering).
        EXPECT_TRUE(stream().serverEndedWriting());
        stream().endWriting();
        pump();
        EXPECT_TRUE(stream().serverClosed());
        EXPECT_FALSE(stream().serverReset());
        shutDown();
    }
}

// The head of a masked binary frame that announces 2^62 bytes: the peer goes on to send them.
std::string hugeFrameHead() {
    std::string head = "\x82\xff";
    head += '\x40';
    head += std::string(7, '\0');
    return head + "\x01\x02\x03\x04";
}

// Issue 47: a peer that breaks the protocol and goes on sending gets its close frame all the same. Its next bytes
// arrive once the close frame is queued, before the server would have closed: a close then would reset the
// connection, which destroys the close frame in the peer's receive buffer (the stream models that). The server
// reads and discards them instead, and closes after the peer's FIN.
TEST_P(WebSocketConnectionTest, APeerThatGoesOnSendingAfterAProtocolErrorGetsItsCloseFrame) {
    serve();
    connect();
    stream().setReadChunk(64);
    EXPECT_TRUE(clientSends(hugeFrameHead() + std::string(100'000, 'x')));
    pump();
    const auto written = frames();
    ASSERT_EQ(written.size(), 1u);
    EXPECT_EQ(written[0].opcode, kClose);
    EXPECT_EQ(written[0].closeCode(), 1009);
    EXPECT_FALSE(stream().serverReset());
    EXPECT_EQ(stream().unreadByServer(), 0u) << "what follows is read and discarded as it comes";
    EXPECT_TRUE(stream().serverEndedWriting());
    EXPECT_FALSE(stream().serverClosed());
    ASSERT_EQ(events_.size(), 1u);
    EXPECT_EQ(events_[0].rfind("close:1009:", 0), 0u) << events_[0];
    // Raw bytes: over TLS the client has read the server's close_notify and sends no more records, but a peer that
    // goes on sending would; the server discards them unread either way.
    stream().write(std::string(1000, 'y'));
    stream().endWriting();
    pump();
    EXPECT_TRUE(stream().serverClosed());
    EXPECT_FALSE(stream().serverReset());
    EXPECT_EQ(events_.size(), 1u);
}

// The linger's bound: a peer that never stops sending is cut off once it has sent Socket::kMaxLingerBytes more.
TEST_P(WebSocketConnectionTest, APeerThatNeverStopsSendingAfterAProtocolErrorIsCutOffAtTheLingerBound) {
    serve();
    connect();
    const auto written = exchange(hugeFrameHead());
    ASSERT_EQ(written.size(), 1u);
    EXPECT_EQ(written[0].closeCode(), 1009);
    constexpr std::size_t kChunk = 64 * 1024;
    const std::string chunk(kChunk, 'x');
    std::size_t sent = 0;
    while (!stream().serverClosed() && sent <= 2 * Socket::kMaxLingerBytes) {
        stream().write(chunk);  // raw, as above
        pump();
        sent += kChunk;
    }
    EXPECT_TRUE(stream().serverClosed());
    EXPECT_GT(sent, Socket::kMaxLingerBytes) << "closed before the bound";
    EXPECT_LE(sent, Socket::kMaxLingerBytes + kChunk);
}

TEST_P(WebSocketConnectionTest, APeerThatEndsWithoutACloseFrameIsReported1006) {
    serve();
    connect();
    stream().endWriting();
    pump();
    EXPECT_EQ(events_, Events{"close:1006:"});
    EXPECT_TRUE(stream().serverClosed());
    EXPECT_EQ(destroyed_, 1);
}

TEST_P(WebSocketConnectionTest, AResetConnectionIsReported1006) {
    serve();
    connect();
    stream().reset();
    pump();
    EXPECT_EQ(events_, Events{"close:1006:"});
    EXPECT_TRUE(stream().serverClosed());
}

// getBufferedAmount counts what the kernel (here the stream) did not take; drain comes once the peer has read it.
TEST_P(WebSocketConnectionTest, BackpressureIsBufferedCountedAndDrained) {
    serve([](Behavior& behavior) { behavior.maxBackpressure = 256 * 1024; });
    connect();
    stream().setRoom(10'000);
    const std::string message(50'000, 'm');
    EXPECT_EQ(socket_->send(message, OpCode::Binary), SendStatus::Backpressure);
    const std::size_t buffered = socket_->getBufferedAmount();
    // What the stream did not take, as the application wrote it: over TLS too, not the records' bytes.
    EXPECT_GT(buffered, 39'000u);
    EXPECT_LE(buffered, 40'100u);
    pump();
    EXPECT_TRUE(events_.empty());
    for (int round = 0; round < 100 && events_.empty(); ++round) {
        received_ += clientReceives();
        pump();
    }
    EXPECT_EQ(events_, Events{"drain"});
    EXPECT_EQ(socket_->getBufferedAmount(), 0u);
    auto written = frames();
    ASSERT_EQ(written.size(), 1u);
    EXPECT_TRUE(written[0].payload == message);
}

TEST_P(WebSocketConnectionTest, AMessageOverMaxBackpressureIsDropped) {
    serve([](Behavior& behavior) { behavior.maxBackpressure = 1024; });
    connect();
    stream().setRoom(100);
    EXPECT_EQ(socket_->send(std::string(2000, 'a'), OpCode::Binary), SendStatus::Backpressure);
    EXPECT_EQ(socket_->send("over the limit", OpCode::Text), SendStatus::Dropped);
    EXPECT_EQ(events_, Events{"dropped:14"});
}

// A peer that sends pings and never reads their pongs is read no further once the pongs pass maxBackpressure (and
// one read more: the one that passed it); as it reads, reading resumes, and every ping gets its pong.
TEST_P(WebSocketConnectionTest, APeerThatDoesNotReadItsPongsIsNotReadEither) {
    serve([](Behavior& behavior) { behavior.maxBackpressure = 4096; });
    connect();
    stream().setRoom(1000);
    stream().setReadChunk(1000);
    const std::string ping = clientFrame(kPing, std::string(100, 'p'));
    // One at a time: over TLS, one record each, so that the server can act on each as it comes.
    for (int i = 0; i < 200; ++i)
        clientSends(ping);
    const std::size_t sent = stream().unreadByServer();
    pump();
    const std::size_t readBeforeHolding = sent - stream().unreadByServer();
    EXPECT_LT(readBeforeHolding, 1000u + 4096u + 2 * 1000u) << "of " << sent;
    std::vector<Frame> written;
    for (int round = 0; round < 10'000 && written.size() < 200; ++round) {
        for (Frame& frame : frames())
            written.push_back(std::move(frame));
        pump();
    }
    EXPECT_EQ(written.size(), 200u);
    EXPECT_EQ(stream().unreadByServer(), 0u);
    EXPECT_EQ(
        std::count_if(events_.begin(), events_.end(), [](const std::string& e) { return e.rfind("ping:", 0) == 0; }),
        200);
}

// The walk: one conversation (upgrade, messages both ways, a ping, a close handshake), in which the Nth read and
// then the Nth write of the server fails as on a reset connection, for every N the conversation has. Whatever N is,
// nothing crashes or leaks (ASan), the connection ends, the close handler runs once for an open handler that ran,
// with 1006 unless the close handshake was done, and every message the server saw before the fault was a message
// the client sent, in order.
class WebSocketConnectionFaultWalk : public WebSocketConnectionTest {
protected:
    // Runs the conversation; returns the number of server reads and writes it took.
    std::pair<std::size_t, std::size_t> converse() {
        stream().setReadChunk(40);
        // A fault may end the handshake: the conversation goes on, and finds the connection closed.
        client_->connect(*app_);
        const std::vector<std::string> steps = {
            upgradeRequest("/ws"),
            clientFrame(kText, "first"),
            clientFrame(kBinary, std::string(1000, 'x')),
            clientFrame(kPing, "ping"),
            clientFrame(kText, "fragm", false) + clientFrame(kContinuation, "ented"),
            clientFrame(kClose, closePayload(1000, "done")),
        };
        for (const std::string& step : steps) {
            clientSends(step);
            pump();
            clientReceives();
        }
        readsBeforeFin_ = stream().receives();
        writesBeforeFin_ = stream().sends();
        closedBeforeFin_ = stream().serverClosed();
        stream().endWriting();
        pump();
        return {stream().receives(), stream().sends()};
    }
    // Where the conversation stood when the client sent its FIN.
    std::size_t readsBeforeFin_ = 0;
    std::size_t writesBeforeFin_ = 0;
    bool closedBeforeFin_ = false;
    // Runs the conversation once for each of the first `calls` reads (or writes) failing.
    void walk(bool writes, std::size_t calls);
};

TEST_P(WebSocketConnectionFaultWalk, EveryFailedReadOrWriteEndsTheConnectionCleanly) {
    serve();
    const auto [reads, writes] = converse();
    ASSERT_FALSE(events_.empty());
    ASSERT_EQ(events_.back(), "close:1000:done");
    ASSERT_GT(reads, 5u);
    ASSERT_GT(writes, 5u);
    for (const bool failWrites : {false, true})
        walk(failWrites, failWrites ? writes : reads);
}

void WebSocketConnectionFaultWalk::walk(bool writes, std::size_t calls) {
    const Events expectedMessages = {"message:1:first", "message:2:" + describe(std::string(1000, 'x')), "ping:ping",
                                     "message:1:fragmented"};
    for (std::size_t nth = 1; nth <= calls; ++nth) {
        SCOPED_TRACE((writes ? "write " : "read ") + std::to_string(nth));
        restart();
        serve();
        if (writes) {
            stream().failSend(nth, EPIPE);
        } else {
            stream().failReceive(nth, ECONNRESET);
        }
        converse();
        // A failed call ends the connection at once, not when the client goes.
        if (nth <= (writes ? writesBeforeFin_ : readsBeforeFin_)) {
            EXPECT_TRUE(closedBeforeFin_);
        }
        EXPECT_TRUE(stream().serverClosed());
        const bool opened = !events_.empty() && events_.front() == "open";
        const std::size_t closes = std::count_if(events_.begin(), events_.end(),
                                                 [](const std::string& e) { return e.rfind("close:", 0) == 0; });
        EXPECT_EQ(closes, opened ? 1u : 0u);
        if (opened) {
            EXPECT_EQ(events_.back().rfind("close:", 0), 0u) << events_.back();
            if (events_.back() != "close:1000:done") {
                EXPECT_EQ(events_.back(), "close:1006:");
            }
            const Events messages(events_.begin() + 1, events_.end() - 1);
            ASSERT_LE(messages.size(), expectedMessages.size());
            EXPECT_TRUE(std::equal(messages.begin(), messages.end(), expectedMessages.begin()));
        }
        EXPECT_EQ(destroyed_, upgrades_);
        EXPECT_EQ(app_->connectionCount(), 0u);
        shutDown();
    }
}

INSTANTIATE_TEST_SUITE_P(Variants, WebSocketConnectionTest, memoryVariants(), memoryVariantName);
INSTANTIATE_TEST_SUITE_P(Variants, WebSocketConnectionFaultWalk, memoryVariants(), memoryVariantName);

}  // namespace
}  // namespace loopwire::test
