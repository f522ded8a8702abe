// The four connection timeouts, each with short configured values (ServerOptions) and a fast sweep.
#include "Fixture.h"

#include <string>
#include <thread>

namespace loopwire::test {
namespace {

using namespace std::chrono_literals;

class Timeouts : public BackendTest {};
LW_INSTANTIATE_TRANSPORTS(Timeouts);

void hello(App& app) {
    app.get("/*", [](HttpResponse* res, HttpRequest*) { res->end("hi"); });
}

TEST_P(Timeouts, ClosesAnIdleKeepAliveConnection) {
    serve(fastTimeouts(), hello);
    TestClient client(port());
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(client.readResponse());
    auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(client.waitForClose(3s));
    EXPECT_GE(std::chrono::steady_clock::now() - start, 100ms);
}

TEST_P(Timeouts, AnsweredRequestsKeepTheConnectionAlive) {
    serve(fastTimeouts(), hello);
    TestClient client(port());
    // Requests spaced under the idle timeout, for longer than it in total.
    for (int i = 0; i < 6; ++i) {
        client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        ASSERT_TRUE(client.readResponse()) << i;
        std::this_thread::sleep_for(50ms);
    }
}

TEST_P(Timeouts, HeaderDeadlineStopsASlowloris) {
    serve(fastTimeouts(), hello);
    TestClient client(port());
    auto start = std::chrono::steady_clock::now();
    client.send("GET / HTTP/1.1\r\n");
    // Dribbling header bytes does not extend the deadline, which runs from the first byte.
    bool closed = false;
    for (int i = 0; i < 100 && !closed; ++i) {
        client.send("X-Slow: 1\r\n");
        closed = client.waitForClose(20ms);
    }
    EXPECT_TRUE(closed);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 1500ms);
}

TEST_P(Timeouts, HeaderDeadlineAnswers408) {
    serve(fastTimeouts(), hello);
    TestClient client(port());
    client.send("GET / HTTP/1.1\r\nHost: x\r\n");
    std::string reply = client.readUntilClose(3s);
    EXPECT_EQ(reply.rfind("HTTP/1.1 408 ", 0), 0u) << reply;
}

TEST_P(Timeouts, MinimumBodyRateStopsASlowUpload) {
    std::atomic<int> aborted{0};
    ServerOptions options = fastTimeouts();
    options.minBodyBytesPerSecond = 1000;
    serve(options, [&aborted](App& app) {
        app.post("/", [&aborted](HttpResponse* res, HttpRequest*) {
            res->onAborted([&aborted] { ++aborted; });
            res->onData([res](std::string_view, bool isLast) {
                if (isLast) res->end("done");
            });
        });
    });
    TestClient client(port());
    client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n");
    // One byte every 10 ms is 100 bytes/s, far under the minimum.
    bool closed = false;
    for (int i = 0; i < 300 && !closed; ++i) {
        client.send("b");
        closed = client.waitForClose(10ms);
    }
    EXPECT_TRUE(closed || client.waitForClose(2s));
    server().runOnLoop([](App&) {});
    EXPECT_EQ(aborted.load(), 1);
}

TEST_P(Timeouts, FastUploadIsNotCut) {
    ServerOptions options = fastTimeouts();
    options.minBodyBytesPerSecond = 1000;
    serve(options, [](App& app) {
        app.post("/", [](HttpResponse* res, HttpRequest*) {
            res->onAborted([] {});
            res->onData([res](std::string_view, bool isLast) {
                if (isLast) res->end("done");
            });
        });
    });
    TestClient client(port());
    client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 30000\r\n\r\n");
    // 1000 bytes every 10 ms is 100 kB/s, for 300 ms: longer than bodyTimeoutMs, but fast enough.
    for (int i = 0; i < 30; ++i) {
        client.send(std::string(1000, 'f'));
        std::this_thread::sleep_for(10ms);
    }
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "done");
}

TEST_P(Timeouts, AbortsAStalledReader) {
    std::atomic<int> aborted{0};
    serve(fastTimeouts(), [&aborted](App& app) {
        app.get("/", [&aborted](HttpResponse* res, HttpRequest*) {
            res->onAborted([&aborted] { ++aborted; });
            res->write(std::string(16 * 1024 * 1024, 's'));
        });
    });
    TestClient client(port());
    client.setReceiveBuffer(4096);
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    // Never read: the server must give up after writeTimeoutMs.
    EXPECT_TRUE(waitForNoConnections());
    EXPECT_EQ(aborted.load(), 1);
}

// Issue 11, point 2: a tryEnd stream keeps nothing in backpressure (tryEnd takes only what the socket takes), so
// waiting for onWritable must have the write timeout too.
TEST_P(Timeouts, AbortsAReaderThatStopsReadingATryEndStream) {
    static constexpr std::uint64_t kBodyBytes = 256 * 1024 * 1024;
    std::atomic<int> aborted{0};
    serve(fastTimeouts(), [&aborted](App& app) {
        app.get("/stream", [&aborted](HttpResponse* res, HttpRequest*) {
            static const std::string piece(64 * 1024, 'p');
            auto pump = [res] {
                for (;;) {
                    std::uint64_t left = kBodyBytes - res->getWriteOffset();
                    auto [ok, done] = res->tryEnd(
                        std::string_view(piece).substr(0, std::min<std::uint64_t>(left, piece.size())), kBodyBytes);
                    if (done || !ok) return;
                }
            };
            res->onAborted([&aborted] { ++aborted; });
            res->onWritable([pump](std::uint64_t) {
                pump();
                return true;
            });
            pump();
        });
    });
    TestClient client(port());
    client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_EQ(client.readBytes(64 * 1024).size(), 64u * 1024);
    // Then it keeps the connection open and reads nothing more.
    EXPECT_TRUE(waitForNoConnections());
    EXPECT_EQ(aborted.load(), 1);
}

TEST_P(Timeouts, ATryEndStreamFromATimerIsTimedOutToo) {
    // The stream registers no onWritable, so it only ends by the write timeout while the kernel takes nothing
    // more. Over TLS the last chunk's refused records wait as backpressure, and the kernel, which grows its
    // buffers on loopback, takes them a moment later: onWritable is due (and the stream, having none, stops),
    // as it would be over TCP after a client read a little. The TLS variant has nothing to time out here; on a
    // MemoryStream, whose room does not grow, it has, and unit_http_connection tests it (HttpConnectionTest,
    // ATryEndStreamFromOutsideACallbackIsTimedOutWhenTheClientStopsReading).
    if (overTls()) GTEST_SKIP() << "premise holds for plain TCP only (see the comment)";
    static constexpr std::uint64_t kBodyBytes = 256 * 1024 * 1024;
    std::atomic<int> aborted{0};
    serve(fastTimeouts(), [&aborted](App& app) {
        app.get("/stream", [&aborted, &app](HttpResponse* res, HttpRequest*) {
            res->onAborted([&aborted] { ++aborted; });
            // The stream starts later, outside any callback of the connection.
            std::thread([&app, res] {
                std::this_thread::sleep_for(20ms);
                app.defer([res] {
                    static const std::string piece(1024 * 1024, 't');
                    while (res->tryEnd(piece, kBodyBytes).first) {
                    }
                });
            }).detach();
        });
    });
    TestClient client(port());
    client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_TRUE(waitForNoConnections());
    EXPECT_EQ(aborted.load(), 1);
}

TEST_P(Timeouts, PendingResponseWithoutBackpressureHasNoDeadline) {
    serve(fastTimeouts(), [](App& app) {
        app.get("/", [&app](HttpResponse* res, HttpRequest*) {
            res->onAborted([] {});
            // Answered 400 ms later: longer than every configured timeout.
            std::thread([&app, res] {
                std::this_thread::sleep_for(400ms);
                app.defer([res] { res->end("late"); });
            }).detach();
        });
    });
    TestClient client(port());
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    auto response = client.readResponse(false, 3s);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "late");
}

}  // namespace
}  // namespace loopwire::test
