// HTTP/2 as real clients speak it (ServerOptions::http2): curl, h2load and nghttp (nghttp2-client), with prior
// knowledge on cleartext and by ALPN over TLS, on both loop backends, against the same routes HTTP/1.1 reaches.
// (curl 7.88 cannot reuse a prior-knowledge connection, with any server: several requests on one cleartext
// connection are h2load's and nghttp's.)
#include "Fixture.h"

#include <string>

namespace loopwire::test {
namespace {

class Http2Clients : public BackendTest {
protected:
    void SetUp() override {
        if (runCommand("command -v curl >/dev/null && echo yes").output.find("yes") == std::string::npos) {
            GTEST_FAIL() << "curl is not installed (bash scripts/deps.sh --install)";
        }
        ServerOptions options = this->options();
        options.http2 = true;
        serve(options, [](App& app) {
            app.get("/hello", [](HttpResponse* res, HttpRequest*) { res->end("Hello world!"); });
            app.get("/echo/:word", [](HttpResponse* res, HttpRequest* req) {
                std::string answer = std::string(req->getMethod()) + " " + std::string(req->getUrl()) + " " +
                                     std::string(req->getQuery()) + " " + std::string(req->getParameter(0)) + " " +
                                     std::string(req->getHeader("host")) + " " +
                                     std::string(req->getHeader("x-custom"));
                res->writeStatus("201 Created")->writeHeader("X-Answer", "yes")->end(answer);
            });
            app.post("/length", [](HttpResponse* res, HttpRequest*) {
                auto* total = new std::size_t(0);
                res->onAborted([total] { delete total; });
                res->onData([res, total](std::string_view chunk, bool isLast) {
                    *total += chunk.size();
                    if (!isLast) return;
                    std::string answer = std::to_string(*total);
                    delete total;
                    res->end(answer);
                });
            });
            app.get("/large", [](HttpResponse* res, HttpRequest*) { res->end(std::string(1 << 20, 'x')); });
            app.get("/chunks", [](HttpResponse* res, HttpRequest*) {
                res->write("one,");
                res->write("two,");
                res->end("three");
            });
        });
    }
    std::string url(const std::string& path) const {
        return std::string(overTls() ? "https" : "http") + "://127.0.0.1:" + std::to_string(port()) + path;
    }
    std::string curl(const std::string& arguments) const {
        const std::string mode =
            overTls() ? "--http2 --cacert " + TestCertificates::get().caFile : std::string("--http2-prior-knowledge");
        return "curl -s " + mode + " " + arguments;
    }
};
LW_INSTANTIATE_TRANSPORTS(Http2Clients);

TEST_P(Http2Clients, AnswersOverHttp2) {
    const auto result = runCommand(curl("-w ' %{http_version}' " + url("/hello")));
    EXPECT_EQ(result.status, 0);
    EXPECT_EQ(result.output, "Hello world! 2");
}

TEST_P(Http2Clients, RequestLooksAsOnHttp11) {
    const auto result = runCommand(curl("-i -H 'X-Custom: value' " + url("/echo/word?a=1")));
    EXPECT_EQ(result.status, 0);
    EXPECT_NE(result.output.find("HTTP/2 201"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("x-answer: yes"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("get /echo/word a=1 word 127.0.0.1:" + std::to_string(port()) + " value"),
              std::string::npos)
        << result.output;
}

TEST_P(Http2Clients, ManyStreamsOnEachConnection) {
    // h2load: 2 connections, 10 streams in flight on each.
    const auto result = runCommand("h2load -n 2000 -c 2 -m 10 " + url("/hello") + " 2>&1");
    EXPECT_EQ(result.status, 0) << result.output;
    EXPECT_NE(result.output.find("2000 succeeded, 0 failed, 0 errored"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("2000 2xx"), std::string::npos) << result.output;
}

TEST_P(Http2Clients, NghttpFetchesInParallel) {
    const auto result =
        runCommand("nghttp -n --stat " + url("/hello") + " " + url("/echo/a") + " " + url("/large") + " 2>&1");
    EXPECT_EQ(result.status, 0) << result.output;
    for (const char* path : {"/hello", "/echo/a", "/large"})
        EXPECT_NE(result.output.find(std::string(path) + "\n"), std::string::npos) << result.output;
}

TEST_P(Http2Clients, UploadsAndLargeBodiesUnderFlowControl) {
    auto result = runCommand("head -c 3000000 /dev/zero | " + curl("--data-binary @- " + url("/length")));
    EXPECT_EQ(result.status, 0);
    EXPECT_EQ(result.output, "3000000");
    result = runCommand(curl(url("/large") + " | wc -c"));
    EXPECT_EQ(result.status, 0);
    EXPECT_EQ(result.output, std::to_string(1 << 20) + "\n");
}

TEST_P(Http2Clients, ChunkedWritesAndMissingRoutes) {
    EXPECT_EQ(runCommand(curl(url("/chunks"))).output, "one,two,three");
    EXPECT_EQ(runCommand(curl("-o /dev/null -w '%{http_code}' " + url("/missing"))).output, "404");
}

TEST_P(Http2Clients, Http11StillAnswers) {
    const std::string mode = overTls() ? "--http1.1 --cacert " + TestCertificates::get().caFile : "--http1.1";
    const auto result = runCommand("curl -s " + mode + " -w ' %{http_version}' " + url("/hello"));
    EXPECT_EQ(result.output, "Hello world! 1.1");
}

}  // namespace
}  // namespace loopwire::test
