// Issue 10, point 4: a loop that could not run (a handler blocked it) times nothing out for that time. A request
// that waited unread while the loop was blocked is answered, whether the connection was idle, in the middle of a
// head, or in the middle of a body; and a connection idle before the block keeps the rest of its idle time.
#include "Fixture.h"

#include <atomic>
#include <string>
#include <thread>

namespace loopwire::test {
namespace {

using namespace std::chrono_literals;

class BlockedLoop : public BackendTest {
protected:
    // Timeouts of 300 ms, swept every 20 ms, and a route that blocks the loop thread for 900 ms: three times
    // every timeout. The timeout clock counts at most 2 * 20 ms of it.
    static constexpr auto kBlock = 900ms;

    ServerOptions blockingOptions() const {
        ServerOptions options = fastTimeouts();
        options.idleTimeoutMs = 300;
        options.headerTimeoutMs = 300;
        options.bodyTimeoutMs = 300;
        options.writeTimeoutMs = 300;
        options.minBodyBytesPerSecond = 0;
        return options;
    }

    void serveBlocking() {
        serve(blockingOptions(), [this](App& app) {
            app.get("/block", [this](HttpResponse* res, HttpRequest*) {
                blocking_ = true;
                std::this_thread::sleep_for(kBlock);
                res->end("unblocked");
            });
            app.get("/*", [](HttpResponse* res, HttpRequest*) { res->end("hello"); });
            app.post("/*", [](HttpResponse* res, HttpRequest*) {
                res->onAborted([] {});
                res->onData([res](std::string_view, bool isLast) {
                    if (isLast) res->end("body");
                });
            });
        });
    }

    // Starts the block from its own connection (connected already, when given) and returns once the loop is inside
    // it.
    std::unique_ptr<TestClient> startBlock(std::unique_ptr<TestClient> blocker = nullptr) {
        if (!blocker) blocker = std::make_unique<TestClient>(port());
        blocker->send("GET /block HTTP/1.1\r\nHost: x\r\n\r\n");
        while (!blocking_)
            std::this_thread::sleep_for(1ms);
        return blocker;
    }

    std::atomic<bool> blocking_{false};
    std::atomic<bool> bigWritten_{false};
};
LW_INSTANTIATE_BACKENDS(BlockedLoop);

TEST_P(BlockedLoop, AnswersKeepAliveRequestsThatArrivedDuringTheBlock) {
    serveBlocking();
    TestClient first(port());
    TestClient second(port());
    for (TestClient* client : {&first, &second}) {
        client->send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
        ASSERT_TRUE(client->readResponse());
    }
    auto blocker = startBlock();
    // Sent while the loop cannot read them; the block outlasts the idle timeout of both connections.
    first.send("GET /b HTTP/1.1\r\nHost: x\r\n\r\n");
    second.send("GET /c HTTP/1.1\r\nHost: x\r\n\r\n");
    for (TestClient* client : {&first, &second}) {
        auto response = client->readResponse(false, 5s);
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status, 200);
        EXPECT_EQ(response->body, "hello");
    }
    EXPECT_EQ(blocker->readResponse()->body, "unblocked");
}

TEST_P(BlockedLoop, AnswersAHeadThatWasCompletedDuringTheBlock) {
    serveBlocking();
    TestClient client(port());
    client.send("GET /half HTTP/1.1\r\n");
    std::this_thread::sleep_for(50ms);
    auto blocker = startBlock();
    client.send("Host: x\r\n\r\n");
    auto response = client.readResponse(false, 5s);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, "hello");
}

TEST_P(BlockedLoop, AnswersABodyThatWasCompletedDuringTheBlock) {
    serveBlocking();
    TestClient client(port());
    client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhalf-");
    std::this_thread::sleep_for(50ms);
    auto blocker = startBlock();
    client.send("done!");
    auto response = client.readResponse(false, 5s);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, "body");
}

TEST_P(BlockedLoop, AnIdleConnectionKeepsTheIdleTimeItHadLeft) {
    serveBlocking();
    TestClient idle(port());
    idle.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(idle.readResponse());
    // 100 of its 300 ms are used up; then the loop is blocked for 900 ms, and the connection sends nothing.
    std::this_thread::sleep_for(100ms);
    auto blocker = startBlock();
    ASSERT_TRUE(blocker->readResponse(false, 5s));
    // On the wall clock its idle time ran out long ago; on the loop's it has about 150 ms left.
    idle.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n");
    auto response = idle.readResponse(false, 2s);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "hello");
    // And the idle timeout still works afterwards.
    EXPECT_TRUE(idle.waitForClose(3s));
}

TEST_P(BlockedLoop, AResponseThePeerReadDuringTheBlockIsNotTimedOut) {
    static constexpr std::size_t kBigBody = 64 * 1024 * 1024;
    ServerOptions options = blockingOptions();
    serve(options, [this](App& app) {
        app.get("/block", [this](HttpResponse* res, HttpRequest*) {
            blocking_ = true;
            std::this_thread::sleep_for(kBlock);
            res->end("unblocked");
        });
        // More than the kernel's buffers hold: most of it waits in the connection's backpressure.
        app.get("/big", [this](HttpResponse* res, HttpRequest*) {
            res->end(std::string(kBigBody, 'b'));
            bigWritten_ = true;
        });
    });
    // The block starts as soon as the backlog is there (the blocker connected beforehand): the backlog's write
    // deadline runs from then, and only the block, never a slow start of it on a loaded machine, may take it past
    // its 300 ms.
    auto blocker = std::make_unique<TestClient>(port());
    TestClient reader(port());
    reader.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
    while (!bigWritten_)
        std::this_thread::sleep_for(1ms);
    blocker = startBlock(std::move(blocker));
    // Read while the loop is blocked (what the kernel holds) and after: every byte arrives.
    auto response = reader.readResponse(false, 10s);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body.size(), kBigBody);
}

}  // namespace
}  // namespace loopwire::test
