// Fields of the response head that the handler and loopwire could both write: Connection (issue 10, point 5)
// and Content-Length (issue 11), and the Content-Length a tryEnd declares (issue 11): one of each on the wire,
// and never a body longer than its declared length, which would desynchronise a keep-alive connection.
#include "Fixture.h"

#include <string>

namespace loopwire::test {
namespace {

class ResponseHead : public BackendTest {};
LW_INSTANTIATE_TRANSPORTS(ResponseHead);

std::size_t countOf(const std::string& text, const std::string& what) {
    std::size_t count = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++count;
    return count;
}

std::string lower(std::string text) {
    for (char& c : text) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return text;
}

TEST_P(ResponseHead, TheHandlersConnectionFieldIsNotDuplicatedWhenTheClientAsksToClose) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) { res->writeHeader("Connection", "keep-alive")->end("sse"); });
    });
    TestClient client(port());
    client.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    std::string reply = lower(client.readUntilClose());
    EXPECT_EQ(countOf(reply, "connection:"), 1u) << reply;
    EXPECT_NE(reply.find("connection: keep-alive\r\n"), std::string::npos) << reply;
    // The client asked to close: the connection still closes after the response.
    EXPECT_NE(reply.find("\r\n\r\nsse"), std::string::npos) << reply;
}

TEST_P(ResponseHead, TheHandlersConnectionCloseClosesAKeepAliveConnection) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) { res->writeHeader("connection", "Close")->end("bye"); });
    });
    TestClient client(port());
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    std::string reply = lower(client.readUntilClose());
    EXPECT_EQ(countOf(reply, "connection:"), 1u) << reply;
    EXPECT_NE(reply.find("\r\n\r\nbye"), std::string::npos) << reply;
}

TEST_P(ResponseHead, Http10KeepAliveIsNotDuplicatedEither) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) { res->writeHeader("Connection", "keep-alive")->end("ten"); });
    });
    TestClient client(port());
    client.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->headers.count("connection"), 1u);
    EXPECT_EQ(response->body, "ten");
}

TEST_P(ResponseHead, AContentLengthTheHandlerWroteIsSentOnce) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) {
            res->writeHeader("content-length", "5")->end("hello");
            if (res->refusedWrite()) std::abort();
        });
    });
    TestClient client(port());
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n");
    for (int i = 0; i < 2; ++i) {
        auto response = client.readResponse();
        ASSERT_TRUE(response);
        EXPECT_EQ(response->headers.count("content-length"), 1u);
        EXPECT_EQ(response->header("content-length"), "5");
        EXPECT_EQ(response->body, "hello");
    }
}

TEST_P(ResponseHead, AContentLengthThatDisagreesWithTheBodyIsRefused) {
    std::atomic<int> refused{0};
    serve([&refused](App& app) {
        app.get("/", [&refused](HttpResponse* res, HttpRequest*) {
            res->writeHeader("Content-Length", "100")->end("short");
            if (res->refusedWrite()) ++refused;
        });
    });
    TestClient client(port());
    // Pipelined: a wrong length would swallow the second response into the first body.
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n");
    for (int i = 0; i < 2; ++i) {
        auto response = client.readResponse();
        ASSERT_TRUE(response);
        EXPECT_EQ(response->headers.count("content-length"), 1u);
        EXPECT_EQ(response->body, "short");
    }
    server().runOnLoop([](App&) {});
    EXPECT_EQ(refused.load(), 2);
}

TEST_P(ResponseHead, AContentLengthThatIsNotANumberIsRefused) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) { res->writeHeader("Content-Length", "12abc")->end("body"); });
    });
    auto response = fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->headers.count("content-length"), 1u);
    EXPECT_EQ(response->header("content-length"), "4");
}

TEST_P(ResponseHead, TheAnswerToHeadKeepsTheDeclaredLength) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) { res->writeHeader("Content-Length", "1234")->end(); });
    });
    TestClient client(port());
    client.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\nHEAD / HTTP/1.1\r\nHost: x\r\n\r\n");
    for (int i = 0; i < 2; ++i) {
        auto response = client.readResponse(true);
        ASSERT_TRUE(response);
        EXPECT_EQ(response->headers.count("content-length"), 1u);
        EXPECT_EQ(response->header("content-length"), "1234");
    }
    EXPECT_TRUE(client.staysQuiet(std::chrono::milliseconds(50)));
}

TEST_P(ResponseHead, EndWithoutBodyUsesTheDeclaredLengthWhenItIsGivenNone) {
    serve([](App& app) {
        app.get("/",
                [](HttpResponse* res, HttpRequest*) { res->writeHeader("Content-Length", "77")->endWithoutBody(); });
    });
    auto response = fetch(port(), "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n", true);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->headers.count("content-length"), 1u);
    EXPECT_EQ(response->header("content-length"), "77");
}

TEST_P(ResponseHead, AChunkedResponseDropsTheDeclaredLength) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) {
            res->writeHeader("Content-Length", "10");
            res->write("chunk");
            res->end("ed");
        });
    });
    auto response = fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_FALSE(response->hasHeader("content-length"));
    EXPECT_EQ(response->header("transfer-encoding"), "chunked");
    EXPECT_EQ(response->body, "chunked");
}

TEST_P(ResponseHead, TryEndNeverSendsMoreThanTheTotalSize) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) {
            auto [ok, done] = res->tryEnd("abcdef", 3);
            if (!ok || !done) std::abort();
        });
    });
    TestClient client(port());
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n");
    for (int i = 0; i < 2; ++i) {
        auto response = client.readResponse();
        ASSERT_TRUE(response);
        EXPECT_EQ(response->header("content-length"), "3");
        EXPECT_EQ(response->body, "abc");
    }
    EXPECT_TRUE(client.staysQuiet(std::chrono::milliseconds(50)));
}

TEST_P(ResponseHead, TryEndClipsTheLastPieceOfAStream) {
    serve([](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) {
            res->tryEnd("1234", 6);
            auto [ok, done] = res->tryEnd("5678", 6);
            if (!ok || !done || res->getWriteOffset() != 6) std::abort();
        });
    });
    auto response = fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "123456");
}

}  // namespace
}  // namespace loopwire::test
