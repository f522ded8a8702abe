// Hostile and careless peers: random bytes, mutated requests, connections dropped at every stage. The server
// must answer or close each of them, never crash (the sanitizer build runs this too), and keep serving others.
#include "Fixture.h"

#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace loopwire::test {
namespace {

class Robustness : public BackendTest {
protected:
    void SetUp() override {
        serve([](App& app) {
            app.get("/*",
                    [](HttpResponse* res, HttpRequest* req) { res->writeHeader("X-Path", req->getUrl())->end("get"); });
            app.post("/*", [](HttpResponse* res, HttpRequest*) {
                res->onAborted([] {});
                res->onData([res](std::string_view, bool isLast) {
                    if (isLast) res->end("post");
                });
            });
            app.get("/async", [&app](HttpResponse* res, HttpRequest*) {
                auto* alive = new bool(true);
                res->onAborted([alive] { *alive = false; });
                app.defer([res, alive] {
                    if (*alive) res->end("async");
                    delete alive;
                });
            });
        });
    }

    void expectStillServing() {
        auto response = fetch(port(), "GET /check HTTP/1.1\r\nHost: x\r\n\r\n");
        ASSERT_TRUE(response);
        EXPECT_EQ(response->body, "get");
    }
};
LW_INSTANTIATE_TRANSPORTS(Robustness);

const std::vector<std::string>& seeds() {
    static const std::vector<std::string> requests = {
        "GET /a HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
        "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "GET /async HTTP/1.1\r\nHost: x\r\n\r\n",
        "HEAD /d HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n",
        "GET /e?x=%41 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    };
    return requests;
}

TEST_P(Robustness, SurvivesMutatedAndTruncatedRequests) {
    std::mt19937 random(12345);
    for (int i = 0; i < 600; ++i) {
        std::string bytes;
        int pipelined = 1 + static_cast<int>(random() % 3);
        for (int k = 0; k < pipelined; ++k)
            bytes += seeds()[random() % seeds().size()];
        int mutations = static_cast<int>(random() % 4);
        for (int m = 0; m < mutations && !bytes.empty(); ++m) {
            std::size_t at = random() % bytes.size();
            switch (random() % 4) {
                case 0:
                    bytes[at] = static_cast<char>(random() % 256);
                    break;
                case 1:
                    bytes.erase(at, 1 + random() % 4);
                    break;
                case 2:
                    bytes.insert(at, 1, static_cast<char>(random() % 256));
                    break;
                default:
                    bytes.insert(at, bytes.substr(0, random() % 16));
                    break;
            }
        }
        TestClient client(port());
        // Send in random pieces, and sometimes stop early: a peer may go away at any byte.
        std::size_t sent = 0;
        std::size_t stopAt = random() % 5 == 0 ? random() % (bytes.size() + 1) : bytes.size();
        while (sent < stopAt) {
            std::size_t piece = 1 + random() % 64;
            piece = std::min(piece, stopAt - sent);
            client.send(std::string_view(bytes).substr(sent, piece));
            sent += piece;
        }
        if (random() % 3 == 0) client.readUntilClose(std::chrono::milliseconds(5));
    }
    expectStillServing();
}

TEST_P(Robustness, SurvivesRandomBytes) {
    std::mt19937 random(777);
    for (int i = 0; i < 200; ++i) {
        std::string bytes(1 + random() % 2048, '\0');
        for (char& c : bytes)
            c = static_cast<char>(random() % 256);
        TestClient client(port());
        client.send(bytes);
        client.readUntilClose(std::chrono::milliseconds(5));
    }
    expectStillServing();
}

TEST_P(Robustness, ManyConnectionsClosedMidResponse) {
    for (int i = 0; i < 100; ++i) {
        TestClient client(port());
        client.send("GET /async HTTP/1.1\r\nHost: x\r\n\r\nGET /async HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    expectStillServing();
    // Every connection the test opened is gone once the server has seen the closes.
    for (int i = 0; i < 200 && server().connectionCount() > 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(server().connectionCount(), 0u);
}

}  // namespace
}  // namespace loopwire::test
