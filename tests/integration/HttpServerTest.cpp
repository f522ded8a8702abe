// Requests over real loopback sockets: keep-alive, pipelining, bodies, 100-continue, HEAD, routing, and the
// response API. Every test runs on both loop backends.
#include "Fixture.h"
#include "loop/Loop.h"

#include <atomic>
#include <future>
#include <string>
#include <thread>
#include <unistd.h>

namespace loopwire::test {
namespace {

class HttpServer : public BackendTest {};
LW_INSTANTIATE_TRANSPORTS(HttpServer);

void helloRoutes(App& app) {
    app.get("/*", [](HttpResponse* res, HttpRequest*) { res->end("Hello world!"); });
}

TEST_P(HttpServer, AnswersAGet) {
    serve(helloRoutes);
    auto response = fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, "Hello world!");
    EXPECT_EQ(response->header("content-length"), "12");
    EXPECT_EQ(response->header("date").size(), 29u);
}

TEST_P(HttpServer, KeepsTheConnectionAlive) {
    serve(helloRoutes);
    TestClient client(port());
    for (int i = 0; i < 5; ++i) {
        client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        auto response = client.readResponse();
        ASSERT_TRUE(response) << "request " << i;
        EXPECT_EQ(response->body, "Hello world!");
        EXPECT_FALSE(response->hasHeader("connection"));
    }
}

TEST_P(HttpServer, AnswersPipelinedRequestsInOrder) {
    serve(
        [](App& app) { app.get("/:n", [](HttpResponse* res, HttpRequest* req) { res->end(req->getParameter(0)); }); });
    TestClient client(port());
    std::string batch;
    for (int i = 0; i < 50; ++i)
        batch += "GET /" + std::to_string(i) + " HTTP/1.1\r\nHost: x\r\n\r\n";
    client.send(batch);
    for (int i = 0; i < 50; ++i) {
        auto response = client.readResponse();
        ASSERT_TRUE(response);
        EXPECT_EQ(response->body, std::to_string(i));
    }
}

TEST_P(HttpServer, PipelinedResponsesLeaveInOneSyscall) {
    serve([](App& app) {
        app.get("/*", [](HttpResponse* res, HttpRequest*) {
            res->writeHeader("X-Pieces", "several")->end("one response of several writes");
        });
    });
    TestClient client(port());
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(client.readResponse());
    std::uint64_t before = 0;
    server().runOnLoop([&before](App& app) { before = app.loop().sendCalls(); });
    std::string batch;
    for (int i = 0; i < 50; ++i)
        batch += "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    client.send(batch);
    for (int i = 0; i < 50; ++i)
        ASSERT_TRUE(client.readResponse());
    std::uint64_t after = 0;
    server().runOnLoop([&after](App& app) { after = app.loop().sendCalls(); });
    // The 50 requests may arrive in more than one read; each read's responses leave in one send.
    EXPECT_GE(after - before, 1u);
    EXPECT_LE(after - before, 2u);
}

TEST_P(HttpServer, OneResponseIsOneSyscall) {
    serve([](App& app) {
        app.get("/*", [](HttpResponse* res, HttpRequest*) {
            res->writeStatus("200 OK")->writeHeader("A", "1")->writeHeader("B", "2");
            res->write("chunk");
            res->end("last");
        });
    });
    TestClient client(port());
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(client.readResponse());
    std::uint64_t before = 0;
    server().runOnLoop([&before](App& app) { before = app.loop().sendCalls(); });
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(client.readResponse());
    std::uint64_t after = 0;
    server().runOnLoop([&after](App& app) { after = app.loop().sendCalls(); });
    EXPECT_EQ(after - before, 1u);
}

TEST_P(HttpServer, PipelinedRequestsWaitForAPendingResponse) {
    serve([](App& app) {
        app.get("/slow", [&app](HttpResponse* res, HttpRequest*) {
            res->onAborted([] {});
            // Answered later, from a deferred task: the next request must not overtake it.
            app.defer([res] { res->end("slow"); });
        });
        app.get("/fast", [](HttpResponse* res, HttpRequest*) { res->end("fast"); });
    });
    TestClient client(port());
    client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHost: x\r\n\r\n");
    auto first = client.readResponse();
    auto second = client.readResponse();
    ASSERT_TRUE(first && second);
    EXPECT_EQ(first->body, "slow");
    EXPECT_EQ(second->body, "fast");
}

TEST_P(HttpServer, AResponseCompletedFromAnotherConnectionResumesItsPipeline) {
    serve([](App& app) {
        static HttpResponse* waiting = nullptr;
        waiting = nullptr;
        app.get("/wait", [](HttpResponse* res, HttpRequest*) {
            res->onAborted([] { waiting = nullptr; });
            waiting = res;
        });
        app.get("/after", [](HttpResponse* res, HttpRequest*) { res->end("after"); });
        app.get("/release", [](HttpResponse* res, HttpRequest*) {
            // Completing the other response here must not run its next request inside this handler.
            if (waiting != nullptr) waiting->end("released");
            waiting = nullptr;
            res->end("done");
        });
    });
    TestClient a(port());
    a.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\nGET /after HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_TRUE(a.staysQuiet(std::chrono::milliseconds(20)));
    TestClient b(port());
    b.send("GET /release HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(b.readResponse()->body, "done");
    EXPECT_EQ(a.readResponse()->body, "released");
    EXPECT_EQ(a.readResponse()->body, "after");
}

TEST_P(HttpServer, RoutesCannotChangeWhileDispatching) {
    std::atomic<int> added{-1};
    serve([&added](App& app) {
        app.get("/", [&app, &added](HttpResponse* res, HttpRequest*) {
            added = app.removeRoute("GET", "/") ? 1 : 0;
            res->end("still here");
        });
    });
    EXPECT_EQ(fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n")->body, "still here");
    EXPECT_EQ(added.load(), 0);
    EXPECT_EQ(fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n")->body, "still here");
}

TEST_P(HttpServer, ClosesAfterConnectionClose) {
    serve(helloRoutes);
    TestClient client(port());
    client.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->header("connection"), "close");
    EXPECT_TRUE(client.waitForClose());
}

TEST_P(HttpServer, Http10ClosesUnlessKeepAlive) {
    serve(helloRoutes);
    {
        TestClient client(port());
        client.send("GET / HTTP/1.0\r\n\r\n");
        auto response = client.readResponse();
        ASSERT_TRUE(response);
        EXPECT_EQ(response->body, "Hello world!");
        EXPECT_TRUE(client.waitForClose());
    }
    TestClient client(port());
    client.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->header("connection"), "keep-alive");
    client.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    EXPECT_TRUE(client.readResponse());
}

// Sockets are edge-triggered (see docs/decisions/loop-and-sockets.md): a read that fills the receive buffer (for
// TLS, its ciphertext half) must ask to be reported again, since no new arrival announces the bytes left behind.
// The whole request is queued while the server's loop is held, on a Unix socket whose sender may queue that much
// (its send buffer is what bounds the queue), so that nothing arrives after the first read.
TEST_P(HttpServer, ReadsOnAfterAReadThatFillsTheBuffer) {
    const std::string path = "/tmp/loopwire-fill-" + std::to_string(::getpid()) + "-" + backendName(backend()) +
                             (overTls() ? "-tls" : "") + ".sock";
    constexpr std::size_t kBodyBytes = 3 * Loop::kReceiveBufferBytes + 123;
    TestServer server(options(), answerWithBodyLength, path);
    TestClient client(path);
    enlargeSendBuffer(client.fd(), 4 * static_cast<int>(kBodyBytes));
    // Held for as long as the send takes, or a second where the kernel cannot queue it all (then the server
    // reads while the client writes, and the test checks less).
    std::promise<void> sent;
    std::promise<void> holding;
    std::thread holder([&] {
        server.runOnLoop([&](App&) {
            holding.set_value();
            sent.get_future().wait_for(std::chrono::seconds(1));
        });
    });
    holding.get_future().wait();
    client.send(postWithBody(kBodyBytes));
    sent.set_value();
    holder.join();
    auto response = client.readResponse();
    ASSERT_TRUE(response) << "no answer: the rest of the body was never read";
    EXPECT_EQ(response->body, "received " + std::to_string(kBodyBytes));
}

TEST_P(HttpServer, AnswersAfterTheClientHalfCloses) {
    serve(helloRoutes);
    TestClient client(port());
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    client.shutdownWrite();
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "Hello world!");
    EXPECT_TRUE(client.waitForClose());
}

TEST_P(HttpServer, Default404) {
    serve([](App& app) { app.get("/only", [](HttpResponse* res, HttpRequest*) { res->end("x"); }); });
    auto response = fetch(port(), "GET /other HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 404);
    response = fetch(port(), "POST /only HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 404);
}

TEST_P(HttpServer, RoutesByMethodParameterWildcardAndYield) {
    serve([](App& app) {
        app.get("/users/:id", [](HttpResponse* res,
                                 HttpRequest* req) { res->end("get user " + std::string(req->getParameter("id"))); })
            .post("/users/:id",
                  [](HttpResponse* res, HttpRequest* req) { res->end("post " + std::string(req->getParameter(0))); })
            .get("/files/*",
                 [](HttpResponse* res, HttpRequest* req) { res->end("file " + std::string(req->getUrl())); })
            // Asks the method before yielding: the next route asks again, of the same request.
            .get("/yield", [](HttpResponse*, HttpRequest* req) { req->setYield(req->getMethod() == "get"); })
            .any("/*", [](HttpResponse* res, HttpRequest* req) {
                res->end("any " + std::string(req->getMethod()) + " " + std::string(req->getCaseSensitiveMethod()));
            });
    });
    EXPECT_EQ(fetch(port(), "GET /users/42 HTTP/1.1\r\nHost: x\r\n\r\n")->body, "get user 42");
    EXPECT_EQ(fetch(port(), "POST /users/7 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")->body, "post 7");
    EXPECT_EQ(fetch(port(), "GET /files/a/b.txt HTTP/1.1\r\nHost: x\r\n\r\n")->body, "file /files/a/b.txt");
    EXPECT_EQ(fetch(port(), "GET /yield HTTP/1.1\r\nHost: x\r\n\r\n")->body, "any get GET");
    EXPECT_EQ(fetch(port(), "DELETE /x HTTP/1.1\r\nHost: x\r\n\r\n")->body, "any delete DELETE");
    EXPECT_EQ(fetch(port(), "BrEw /x HTTP/1.1\r\nHost: x\r\n\r\n")->body, "any brew BrEw");
}

TEST_P(HttpServer, RemovedRouteAnswers404) {
    serve([](App& app) {
        app.get("/gone", [](HttpResponse* res, HttpRequest*) { res->end("here"); });
        EXPECT_TRUE(app.removeRoute("GET", "/gone"));
        EXPECT_FALSE(app.removeRoute("GET", "/gone"));
    });
    EXPECT_EQ(fetch(port(), "GET /gone HTTP/1.1\r\nHost: x\r\n\r\n")->status, 404);
}

TEST_P(HttpServer, ReadsHeadersQueryAndUrl) {
    serve([](App& app) {
        app.get("/q", [](HttpResponse* res, HttpRequest* req) {
            std::string body = std::string(req->getHeader("x-one")) + "|" + std::string(req->getHeader("x-two")) + "|" +
                               std::string(req->getQuery()) + "|" + std::string(req->getQuery("name")) + "|" +
                               std::string(req->getQuery("missing")) + "|" + std::string(req->getUrl()) + "|" +
                               std::string(req->getFullUrl());
            int count = 0;
            req->forEach([&count](std::string_view, std::string_view) { ++count; });
            res->end(body + "|" + std::to_string(count));
        });
    });
    auto response = fetch(port(), "GET /q?name=a%20b+c&x=1 HTTP/1.1\r\nHost: x\r\nX-One: 1\r\nX-TWO:  two  \r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "1|two|name=a%20b+c&x=1|a b c||/q|/q?name=a%20b+c&x=1|3");
}

TEST_P(HttpServer, StreamsAContentLengthBodyToOnData) {
    serve([](App& app) {
        app.post("/echo", [](HttpResponse* res, HttpRequest*) {
            auto* body = new std::string;
            res->onAborted([body] { delete body; });
            res->onData([res, body](std::string_view chunk, bool isLast) {
                body->append(chunk);
                if (!isLast) return;
                std::string copy = std::move(*body);
                delete body;
                res->end(copy);
            });
        });
    });
    TestClient client(port());
    std::string payload(100000, 'p');
    client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(payload.size()) + "\r\n\r\n");
    client.send(payload.substr(0, 1000));
    client.send(payload.substr(1000));
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, payload);
}

TEST_P(HttpServer, StreamsAChunkedBodyToOnDataV2) {
    serve([](App& app) {
        app.post("/count", [](HttpResponse* res, HttpRequest*) {
            auto* state = new std::string;
            res->onAborted([state] { delete state; });
            res->onDataV2([res, state](std::string_view chunk, std::uint64_t remaining) {
                state->append(chunk);
                if (remaining != 0) return;
                std::string copy = std::move(*state);
                delete state;
                res->end(copy);
            });
        });
    });
    TestClient client(port());
    client.send("POST /count HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    client.send("5\r\nhello\r\n");
    client.send("6;ext=1\r\n world\r\n0\r\n");
    client.send("Trailer: x\r\n\r\n");
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "hello world");
    // The connection goes on with the next request.
    client.send("POST /count HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok");
    auto second = client.readResponse();
    ASSERT_TRUE(second);
    EXPECT_EQ(second->body, "ok");
}

TEST_P(HttpServer, OnDataGetsAnEmptyLastChunkWithoutBody) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) {
            res->onAborted([] {});
            res->onData([res](std::string_view chunk, bool isLast) {
                res->end(std::string(isLast ? "last" : "more") + std::to_string(chunk.size()));
            });
        });
    });
    EXPECT_EQ(fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n")->body, "last0");
}

TEST_P(HttpServer, Sends100ContinueBeforeTheBody) {
    serve([](App& app) {
        app.post("/", [](HttpResponse* res, HttpRequest*) {
            res->onAborted([] {});
            res->onData([res](std::string_view chunk, bool isLast) {
                if (isLast) res->end("got " + std::string(chunk));
            });
        });
    });
    TestClient client(port());
    client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
    std::string interim = client.readBytes(25);
    EXPECT_EQ(interim, "HTTP/1.1 100 Continue\r\n\r\n");
    client.send("body");
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "got body");
}

TEST_P(HttpServer, HeadGetsTheGetHeadersWithoutBody) {
    serve(helloRoutes);
    TestClient client(port());
    client.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n");
    auto response = client.readResponse(true);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->header("content-length"), "12");
    // No body bytes: the next response follows directly.
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    auto next = client.readResponse();
    ASSERT_TRUE(next);
    EXPECT_EQ(next->body, "Hello world!");
}

TEST_P(HttpServer, ExplicitHeadRouteWins) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) { res->end("get"); });
        app.head("/", [](HttpResponse* res, HttpRequest*) { res->writeHeader("X-Head", "1")->endWithoutBody(3); });
    });
    TestClient client(port());
    client.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n");
    auto response = client.readResponse(true);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->header("x-head"), "1");
    EXPECT_EQ(response->header("content-length"), "3");
}

TEST_P(HttpServer, WritesStatusAndHeaders) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) {
            res->writeStatus("201 Created")->writeHeader("X-A", "a")->writeHeader("X-N", std::uint64_t{42})->end("c");
        });
    });
    auto response = fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->statusLine, "HTTP/1.1 201 Created");
    EXPECT_EQ(response->header("x-a"), "a");
    EXPECT_EQ(response->header("x-n"), "42");
}

TEST_P(HttpServer, RefusesResponseSplitting) {
    std::atomic<int> refused{0};
    serve([&refused](App& app) {
        app.get("/", [&refused](HttpResponse* res, HttpRequest*) {
            res->writeStatus("200 OK\r\nX-Evil: 1");
            res->writeHeader("X-Bad", "a\r\nX-Evil: 1");
            res->writeHeader("X-Nul", std::string_view("a\0b", 3));
            res->writeHeader("Bad Name", "v");
            res->writeHeader("X-Lf", "a\nb");
            if (res->refusedWrite()) ++refused;
            res->writeHeader("X-Good", "fine");
            res->end("ok");
        });
    });
    auto response = fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->statusLine, "HTTP/1.1 200 OK");
    EXPECT_FALSE(response->hasHeader("x-evil"));
    EXPECT_FALSE(response->hasHeader("x-bad"));
    EXPECT_FALSE(response->hasHeader("x-nul"));
    EXPECT_FALSE(response->hasHeader("x-lf"));
    EXPECT_EQ(response->header("x-good"), "fine");
    EXPECT_EQ(refused.load(), 1);
}

TEST_P(HttpServer, WritesAChunkedResponse) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) {
            res->write("hello ");
            res->write("");
            res->write("chunked ");
            res->end("world");
        });
    });
    auto response = fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->header("transfer-encoding"), "chunked");
    EXPECT_EQ(response->body, "hello chunked world");
}

TEST_P(HttpServer, AnswersA204WithoutContentLength) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) { res->writeStatus("204 No Content")->end(); });
    });
    auto response = fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 204);
    EXPECT_FALSE(response->hasHeader("content-length"));
}

TEST_P(HttpServer, EndWithCloseConnectionClosesGracefully) {
    serve([](App& app) { app.get("/", [](HttpResponse* res, HttpRequest*) { res->end("bye", true); }); });
    TestClient client(port());
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "bye");
    EXPECT_EQ(response->header("connection"), "close");
    EXPECT_TRUE(client.waitForClose());
}

TEST_P(HttpServer, HandlerWithoutResponseOrOnAbortedGets500) {
    serve([](App& app) { app.get("/", [](HttpResponse*, HttpRequest*) {}); });
    auto response = fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 500);
}

TEST_P(HttpServer, OnAbortedFiresOnceWhenTheClientLeaves) {
    std::atomic<int> aborted{0};
    std::atomic<bool> registered{false};
    serve([&](App& app) {
        app.get("/", [&](HttpResponse* res, HttpRequest*) {
            res->onAborted([&aborted] { ++aborted; });
            registered = true;
        });
    });
    {
        TestClient client(port());
        client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        for (int i = 0; i < 500 && !registered; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    for (int i = 0; i < 500 && aborted == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    server().runOnLoop([](App&) {});
    EXPECT_EQ(aborted.load(), 1);
}

TEST_P(HttpServer, OnAbortedDoesNotFireAfterTheResponse) {
    std::atomic<int> aborted{0};
    serve([&](App& app) {
        app.get("/", [&](HttpResponse* res, HttpRequest*) {
            res->onAborted([&aborted] { ++aborted; });
            res->end("done");
        });
    });
    {
        TestClient client(port());
        client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        ASSERT_TRUE(client.readResponse());
    }
    server().runOnLoop([](App&) {});
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    server().runOnLoop([](App&) {});
    EXPECT_EQ(aborted.load(), 0);
}

TEST_P(HttpServer, CloseAbortsThePendingResponse) {
    std::atomic<int> aborted{0};
    serve([&](App& app) {
        app.get("/", [&](HttpResponse* res, HttpRequest*) {
            res->onAborted([&aborted] { ++aborted; });
            res->close();
        });
    });
    TestClient client(port());
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_TRUE(client.waitForClose());
    server().runOnLoop([](App&) {});  // the callback ran on the server thread: wait for it to be done
    EXPECT_EQ(aborted.load(), 1);
}

TEST_P(HttpServer, CorkBatchesWritesFromOutsideAHandler) {
    serve([](App& app) {
        app.get("/", [&app](HttpResponse* res, HttpRequest*) {
            res->onAborted([] {});
            app.defer([res] {
                res->cork([res] {
                    res->writeStatus("200 OK");
                    res->writeHeader("X-Corked", "yes");
                    res->end("corked");
                });
            });
        });
    });
    auto response = fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->header("x-corked"), "yes");
    EXPECT_EQ(response->body, "corked");
}

TEST_P(HttpServer, WritesOutsideACallbackAreDelivered) {
    serve([](App& app) {
        app.get("/", [&app](HttpResponse* res, HttpRequest*) {
            res->onAborted([] {});
            app.defer([res] {
                res->writeStatus("202 Accepted");
                res->writeHeader("X-Late", "1");
                res->write("part;");
                res->end("end");
            });
        });
    });
    auto response = fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 202);
    EXPECT_EQ(response->body, "part;end");
}

TEST_P(HttpServer, StreamsALargeBodyWithTryEndAndOnWritable) {
    constexpr std::uint64_t kTotal = 8 * 1024 * 1024;
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) {
            static const std::string block(256 * 1024, 'z');
            res->onAborted([] {});
            auto pump = [res] {
                for (;;) {
                    std::uint64_t offset = res->getWriteOffset();
                    std::uint64_t left = kTotal - offset;
                    std::string_view piece(block.data(), left < block.size() ? left : block.size());
                    auto [ok, done] = res->tryEnd(piece, kTotal);
                    if (done || !ok) return;
                }
            };
            pump();
            if (!res->hasResponded()) {
                res->onWritable([pump](std::uint64_t) {
                    pump();
                    return true;
                });
            }
        });
    });
    TestClient client(port());
    client.setReceiveBuffer(16 * 1024);
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    auto response = client.readResponse(false, std::chrono::milliseconds(20000));
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body.size(), kTotal);
    EXPECT_EQ(response->body.find_first_not_of('z'), std::string::npos);
}

// Issue 21: tryEnd takes only about what the kernel takes, over TLS too (where records, once sealed, cannot be taken
// back: the socket seals 64 KiB at a time and stops at the first group the kernel does not take whole). A 32 MiB
// body offered at once to a client that reads slowly is taken in part, and the rest follows through onWritable.
TEST_P(HttpServer, ATryEndTooLargeForTheKernelIsTakenInPartOverTlsToo) {
    static constexpr std::uint64_t kTotal = 32 * 1024 * 1024;
    std::atomic<std::uint64_t> firstOffset{0};
    std::atomic<bool> firstOk{true};
    serve([&](App& app) {
        app.get("/", [&](HttpResponse* res, HttpRequest*) {
            static const std::string body(kTotal, 'q');
            res->onAborted([] {});
            auto [ok, done] = res->tryEnd(body, kTotal);
            firstOk = ok;
            firstOffset = res->getWriteOffset();
            if (done) return;
            res->onWritable([res](std::uint64_t offset) {
                auto [more, finished] = res->tryEnd(std::string_view(body).substr(offset), kTotal);
                return more || finished;
            });
        });
    });
    TestClient client(port());
    client.setReceiveBuffer(16 * 1024);
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    auto response = client.readResponse(false, std::chrono::milliseconds(30000));
    ASSERT_TRUE(response);
    EXPECT_FALSE(firstOk.load());
    EXPECT_LT(firstOffset.load(), kTotal);
    EXPECT_GT(firstOffset.load(), 0u);
    EXPECT_EQ(response->body.size(), kTotal);
    EXPECT_EQ(response->body.find_first_not_of('q'), std::string::npos);
}

TEST_P(HttpServer, LargeEndIsBufferedAndDelivered) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) { res->end(std::string(4 * 1024 * 1024, 'b')); });
    });
    TestClient client(port());
    client.setReceiveBuffer(16 * 1024);
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n");
    for (int i = 0; i < 2; ++i) {
        auto response = client.readResponse(false, std::chrono::milliseconds(20000));
        ASSERT_TRUE(response);
        EXPECT_EQ(response->body.size(), 4u * 1024 * 1024);
    }
}

TEST_P(HttpServer, PauseStopsReadingTheBodyUntilResume) {
    std::atomic<std::size_t> received{0};
    serve([&](App& app) {
        app.post("/", [&](HttpResponse* res, HttpRequest*) {
            res->onAborted([] {});
            res->pause();
            app.defer([res] { res->resume(); });
            res->onData([res, &received](std::string_view chunk, bool isLast) {
                received += chunk.size();
                if (isLast) res->end("resumed");
            });
        });
    });
    TestClient client(port());
    client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "resumed");
    EXPECT_EQ(received.load(), 5u);
}

TEST_P(HttpServer, ReportsTheRemoteAddress) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) {
            res->end(std::string(res->getRemoteAddressAsText()) + " " + std::to_string(res->getRemoteAddress().size()) +
                     " " + std::to_string(res->getRemotePort() != 0));
        });
    });
    EXPECT_EQ(fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n")->body, "127.0.0.1 4 1");
}

}  // namespace
}  // namespace loopwire::test
