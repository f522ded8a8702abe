// App::close(CloseOptions{drainMs}): the listeners stop at once, idle connections close, a request in progress is
// answered with Connection: close, WebSockets get 1001, and drainMs cuts what is left as close() would; onClosed runs
// once nothing is left. Every transport, both backends.
#include "Fixture.h"
#include "WsTestClient.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

namespace loopwire::test {
namespace {

using namespace std::chrono_literals;

bool waitFor(const std::atomic<bool>& flag, std::chrono::milliseconds limit = 5s) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!flag && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(5ms);
    return flag;
}

// Whether something accepts TCP connections on 127.0.0.1:port.
bool acceptsConnections(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    return connected;
}

class GracefulClose : public BackendTest {
protected:
    // The server's handlers point into the fixture: the server goes first.
    ~GracefulClose() override { server_.reset(); }

    // GET /slow is held until the test answers it (held_); anything else is answered at once.
    void serveHoldingSlowRequests() {
        serve([this](App& app) {
            app.get("/slow", [this](HttpResponse* res, HttpRequest*) {
                held_.response = res;
                res->onAborted([this] { held_.aborted = true; });
                held_.arrived = true;
            });
            app.get("/*", [](HttpResponse* res, HttpRequest*) { res->end("hi"); });
        });
    }
    // A client whose GET /slow the server holds.
    TestClient& holdingClient() {
        TestClient& client = connection_.emplace(port());
        client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
        EXPECT_TRUE(waitFor(held_.arrived));
        return client;
    }
    // App::close(CloseOptions{drainMs}) on the server's thread; closed_ turns true when its onClosed runs.
    void drain(std::uint32_t drainMs) {
        server().runOnLoop(
            [this, drainMs](App& app) { app.close(CloseOptions{.drainMs = drainMs}, [this] { closed_ = true; }); });
    }
    // The server lingers until the client closes too (so that its last response is not lost to a reset): closes
    // the client, then waits for onClosed.
    bool clientClosesAndDrainEnds() {
        connection_.reset();
        return waitFor(closed_, 3s);
    }

    struct HeldResponse {
        HttpResponse* response = nullptr;
        std::atomic<bool> arrived{false};
        std::atomic<bool> aborted{false};
    };
    HeldResponse held_;
    std::optional<TestClient> connection_;
    std::atomic<bool> closed_{false};
};
LW_INSTANTIATE_TRANSPORTS(GracefulClose);

TEST_P(GracefulClose, StopsListeningAndClosesIdleConnectionsAtOnce) {
    serveHoldingSlowRequests();
    TestClient& client = connection_.emplace(port());
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "hi");

    server().runOnLoop([this](App& app) {
        app.close(CloseOptions{.drainMs = 10'000}, [this] { closed_ = true; });
        // Never inside the call, even with nothing left.
        EXPECT_FALSE(closed_);
    });
    EXPECT_FALSE(acceptsConnections(port()));
    // The idle keep-alive connection ends well before drainMs.
    EXPECT_TRUE(client.waitForClose(3s));
    EXPECT_TRUE(clientClosesAndDrainEnds());
}

TEST_P(GracefulClose, ARequestInProgressIsAnsweredWithConnectionCloseThenTheConnectionCloses) {
    serveHoldingSlowRequests();
    TestClient& client = holdingClient();
    // A second request pipelined behind the held one is not answered: the connection ends after the first.
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    drain(10'000);
    EXPECT_FALSE(acceptsConnections(port()));
    // The connection waits for its response.
    EXPECT_TRUE(client.staysQuiet(150ms));
    EXPECT_FALSE(closed_);

    server().runOnLoop([this](App&) { held_.response->end("done"); });
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "done");
    EXPECT_EQ(response->header("connection"), "close");
    EXPECT_TRUE(client.waitForClose(3s));
    EXPECT_FALSE(held_.aborted);
    EXPECT_TRUE(clientClosesAndDrainEnds());
}

TEST_P(GracefulClose, AHeadBegunBeforeTheDrainIsAnsweredWithConnectionClose) {
    serveHoldingSlowRequests();
    TestClient& client = connection_.emplace(port());
    client.send("GET /head-in-parts HTTP/1.1\r\n");
    // The server has read the first part (a partial head) before the drain begins.
    std::this_thread::sleep_for(50ms);
    drain(10'000);
    EXPECT_TRUE(client.staysQuiet(100ms));
    client.send("Host: x\r\n\r\n");
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "hi");
    EXPECT_EQ(response->header("connection"), "close");
    EXPECT_TRUE(client.waitForClose(3s));
    EXPECT_TRUE(clientClosesAndDrainEnds());
}

TEST_P(GracefulClose, WhatIsLeftAfterDrainMsIsClosedAndAborted) {
    serveHoldingSlowRequests();
    TestClient& client = holdingClient();
    const auto start = std::chrono::steady_clock::now();
    drain(200);
    EXPECT_TRUE(client.waitForClose(3s));
    EXPECT_GE(std::chrono::steady_clock::now() - start, 150ms);
    EXPECT_TRUE(waitFor(held_.aborted, 3s));
    EXPECT_TRUE(waitFor(closed_, 3s));
}

TEST_P(GracefulClose, CloseEndsADrainAtOnce) {
    serveHoldingSlowRequests();
    TestClient& client = holdingClient();
    server().runOnLoop([this](App& app) {
        app.close(CloseOptions{.drainMs = 60'000}, [this] { closed_ = true; });
        // A shorter drain brings the end closer; a longer one does not push it back.
        app.close(CloseOptions{.drainMs = 120'000});
        app.close();
        EXPECT_TRUE(held_.aborted);
    });
    EXPECT_TRUE(client.waitForClose(3s));
    EXPECT_TRUE(waitFor(closed_, 3s));
}

TEST_P(GracefulClose, ZeroDrainClosesEverythingNowAndStillCallsBack) {
    serveHoldingSlowRequests();
    TestClient& client = holdingClient();
    server().runOnLoop([this](App& app) {
        app.close(CloseOptions{}, [this] { closed_ = true; });
        EXPECT_TRUE(held_.aborted);
        EXPECT_FALSE(closed_);
    });
    EXPECT_TRUE(client.waitForClose(3s));
    EXPECT_TRUE(waitFor(closed_, 3s));
}

TEST_P(GracefulClose, WebSocketsGetGoingAway) {
    std::atomic<int> closeCode{0};
    serve([&closeCode](App& app) {
        WebSocketBehavior<int> behavior;
        behavior.close = [&closeCode](WebSocket<int>*, int code, std::string_view) { closeCode = code; };
        app.ws<int>("/ws", std::move(behavior));
    });
    std::optional<WsTestClient> connection;
    WsTestClient& client = connection.emplace(port());
    auto handshake = client.handshake();
    ASSERT_TRUE(handshake);
    ASSERT_NE(handshake->statusLine.find("101"), std::string::npos);

    drain(10'000);
    auto frame = client.readCloseFrame(3s);
    ASSERT_TRUE(frame);
    EXPECT_EQ(frame->closeCode(), 1001);
    const auto until = std::chrono::steady_clock::now() + 3s;
    while (closeCode == 0 && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(5ms);
    EXPECT_EQ(closeCode, 1001);
    EXPECT_FALSE(closed_);
    // The closing handshake ends as end() ends it: the server closes once the client answers.
    client.sendClose(1001);
    EXPECT_TRUE(client.waitForClose(3s));
    // The server lingers until the client closes too (so that its last response is not lost to a reset).
    connection.reset();
    EXPECT_TRUE(waitFor(closed_, 3s));
}

}  // namespace
}  // namespace loopwire::test
