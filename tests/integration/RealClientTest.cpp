// The server as real clients see it: curl (keep-alive, chunked upload, 100-continue, HEAD, errors) and wrk.
#include "Fixture.h"
#include "base/Limits.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace loopwire::test {
namespace {

class RealClients : public BackendTest {
protected:
    void SetUp() override {
        if (runCommand("command -v curl >/dev/null && echo yes").output.find("yes") == std::string::npos) {
            GTEST_FAIL() << "curl is not installed (bash scripts/deps.sh --install)";
        }
        serve([](App& app) {
            app.get("/hello", [](HttpResponse* res, HttpRequest*) { res->end("Hello world!"); });
            app.post("/length", [](HttpResponse* res, HttpRequest* req) {
                auto* total = new std::size_t(0);
                bool chunked = req->getHeader("transfer-encoding") == "chunked";
                res->onAborted([total] { delete total; });
                res->onData([res, total, chunked](std::string_view chunk, bool isLast) {
                    *total += chunk.size();
                    if (!isLast) return;
                    std::string answer = std::to_string(*total) + (chunked ? " chunked" : " fixed");
                    delete total;
                    res->end(answer);
                });
            });
        });
    }
    std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port()) + path; }
};
LW_INSTANTIATE_BACKENDS(RealClients);

TEST_P(RealClients, CurlReusesTheConnection) {
    auto result = runCommand("curl -sv " + url("/hello") + " " + url("/hello") + " 2>&1");
    EXPECT_EQ(result.status, 0);
    std::size_t bodies = 0;
    for (auto at = result.output.find("Hello world!"); at != std::string::npos;
         at = result.output.find("Hello world!", at + 1)) {
        ++bodies;
    }
    EXPECT_EQ(bodies, 2u) << result.output;
    EXPECT_NE(result.output.find("Re-using existing connection"), std::string::npos) << result.output;
}

TEST_P(RealClients, CurlUploadsAChunkedBody) {
    auto result = runCommand("head -c 300000 /dev/zero | curl -s -T - -X POST " + url("/length"));
    EXPECT_EQ(result.status, 0);
    EXPECT_EQ(result.output, "300000 chunked");
}

TEST_P(RealClients, CurlWaitsFor100Continue) {
    std::string path = "/tmp/loopwire-body-" + std::to_string(::getpid());
    std::ofstream(path) << std::string(50000, 'c');
    auto result =
        runCommand("curl -sv -H 'Expect: 100-continue' --data-binary @" + path + " " + url("/length") + " 2>&1");
    std::remove(path.c_str());
    EXPECT_EQ(result.status, 0);
    EXPECT_NE(result.output.find("HTTP/1.1 100 Continue"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("50000 fixed"), std::string::npos) << result.output;
}

TEST_P(RealClients, CurlHead) {
    auto result = runCommand("curl -sI " + url("/hello"));
    EXPECT_EQ(result.status, 0);
    EXPECT_NE(result.output.find("HTTP/1.1 200 OK"), std::string::npos);
    EXPECT_NE(result.output.find("Content-Length: 12"), std::string::npos);
    EXPECT_EQ(result.output.find("Hello world!"), std::string::npos);
}

TEST_P(RealClients, CurlSeesErrorStatuses) {
    EXPECT_EQ(runCommand("curl -s -o /dev/null -w '%{http_code}' " + url("/missing")).output, "404");
    std::string longTarget(limits::kMaxRequestTargetBytes + 1, 'a');
    EXPECT_EQ(runCommand("curl -s -o /dev/null -w '%{http_code}' " + url("/" + longTarget)).output, "414");
    EXPECT_EQ(
        runCommand("curl -s -o /dev/null -w '%{http_code}' -H 'Content-Length: 1x' -X POST " + url("/length")).output,
        "400");
}

TEST_P(RealClients, WrkGetsOnlySuccessfulResponses) {
    if (runCommand("command -v wrk >/dev/null && echo yes").output.find("yes") == std::string::npos) {
        GTEST_FAIL() << "wrk is not installed (bash scripts/deps.sh --install)";
    }
    auto result = runCommand("wrk -t1 -c20 -d1s " + url("/hello") + " 2>&1");
    EXPECT_EQ(result.status, 0) << result.output;
    EXPECT_NE(result.output.find("requests in"), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find("Non-2xx"), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find("Socket errors"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace loopwire::test
