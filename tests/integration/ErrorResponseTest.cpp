// Malformed requests over a socket: each gets its canned error status and a closed connection, and the
// connection next to it is untouched.
#include "Fixture.h"
#include "base/Limits.h"

#include <string>
#include <vector>

namespace loopwire::test {
namespace {

class ErrorResponses : public BackendTest {};
LW_INSTANTIATE_TRANSPORTS(ErrorResponses);

struct BadRequest {
    const char* name;
    std::string bytes;
    int status;
};

std::vector<BadRequest> badRequests() {
    return {
        {"SpaceBeforeColon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400},
        {"ObsFold", "GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n 2\r\n\r\n", 400},
        {"BareLf", "GET / HTTP/1.1\nHost: x\n\n", 400},
        {"BareCr", "GET / HTTP/1.1\rHost: x\r\n\r\n", 400},
        {"NulInValue", std::string("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n", 37), 400},
        {"MissingHost", "GET / HTTP/1.1\r\n\r\n", 400},
        {"RepeatedHost", "GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400},
        {"ContentLengthAndChunked",
         "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
        {"DifferingContentLength", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
         400},
        {"MalformedContentLength", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3a\r\n\r\nabc", 400},
        {"TransferEncodingNotChunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 400},
        {"ChunkSizeOverflow", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffffff\r\n",
         400},
        {"BadChunkSize", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
        {"ChunkExtensionTooLong",
         "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1;" +
             std::string(limits::kMaxChunkExtensionBytes + 10, 'e') + "\r\n",
         400},
        {"UnsupportedVersion", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505},
        {"TargetTooLong", "GET /" + std::string(limits::kMaxRequestTargetBytes, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n",
         414},
        {"HeaderSectionTooLarge",
         "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(limits::kMaxHeaderSectionBytes, 'h') + "\r\n\r\n", 431},
        {"GarbageRequestLine", "HELLO\r\n\r\n", 400},
    };
}

// Reads the whole body before answering, so that body errors reach a pending response.
void bodyReadingRoutes(App& app) {
    app.any("/*", [](HttpResponse* res, HttpRequest*) {
        res->onAborted([] {});
        res->onData([res](std::string_view, bool isLast) {
            if (isLast) res->end("handled");
        });
    });
}

TEST_P(ErrorResponses, EachMalformedRequestGetsItsStatusAndAClosedConnection) {
    serve(bodyReadingRoutes);
    for (const BadRequest& bad : badRequests()) {
        SCOPED_TRACE(bad.name);
        TestClient client(port());
        client.send(bad.bytes);
        auto response = client.readResponse();
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status, bad.status);
        EXPECT_EQ(response->header("connection"), "close");
        EXPECT_TRUE(client.waitForClose());
    }
}

TEST_P(ErrorResponses, AHeadThatStopsAtExactlyTheLimitIsStillReadTo431) {
    serve([](App& app) { app.any("/*", [](HttpResponse* res, HttpRequest*) { res->end("handled"); }); });
    std::string head = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: ";
    head.append(limits::kMaxHeaderSectionBytes - head.size(), 'h');
    TestClient client(port());
    client.send(head);  // exactly the limit, and not finished: the server must keep reading
    EXPECT_TRUE(client.staysQuiet(std::chrono::milliseconds(50)));
    client.send("\r\n\r\n");
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 431);
}

TEST_P(ErrorResponses, TooManyHeadersGets431) {
    serve([](App& app) { app.any("/*", [](HttpResponse* res, HttpRequest*) { res->end("handled"); }); });
    std::string request = "GET / HTTP/1.1\r\nHost: x\r\n";
    for (std::size_t i = 0; i < limits::kMaxHeaderCount; ++i)
        request += "X-" + std::to_string(i) + ": v\r\n";
    request += "\r\n";
    TestClient client(port());
    client.send(request);
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 431);
    EXPECT_TRUE(client.waitForClose());
}

TEST_P(ErrorResponses, ABadBodyAfterAnEarlyAnswerClosesWithoutAnotherResponse) {
    serve([](App& app) { app.post("/*", [](HttpResponse* res, HttpRequest*) { res->end("early"); }); });
    TestClient client(port());
    client.send("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "early");
    EXPECT_EQ(client.readUntilClose(), "");
}

TEST_P(ErrorResponses, AnErrorAfterGoodPipelinedRequestsKeepsTheirAnswers) {
    serve([](App& app) { app.get("/*", [](HttpResponse* res, HttpRequest*) { res->end("ok"); }); });
    TestClient client(port());
    client.send(
        "GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\nGET /3 HTTP/1.1\r\nHost : x\r\n\r\n");
    EXPECT_EQ(client.readResponse()->body, "ok");
    EXPECT_EQ(client.readResponse()->body, "ok");
    EXPECT_EQ(client.readResponse()->status, 400);
    EXPECT_TRUE(client.waitForClose());
}

TEST_P(ErrorResponses, ABadClientDoesNotDisturbAnother) {
    serve([](App& app) { app.get("/*", [](HttpResponse* res, HttpRequest*) { res->end("ok"); }); });
    TestClient good(port());
    good.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(good.readResponse());
    TestClient bad(port());
    bad.send("GET / HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n");
    EXPECT_EQ(bad.readResponse()->status, 400);
    good.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    auto response = good.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "ok");
}

}  // namespace
}  // namespace loopwire::test
