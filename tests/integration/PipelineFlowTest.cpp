// Issue 11, points 1 and 3: when a connection stops and starts reading. Pipelined requests queue behind a
// deferred response (reading pauses once a head's worth waits) and behind responses the peer has not read
// (reading pauses past limits::kMaxOutputBacklogBytes); every order of "the queue crosses the limit", "a
// response completes at once or later" and "the queue drains" must answer every request, in order, and a peer
// that never reads must not make the server grow.
#include "Fixture.h"

#include "base/Limits.h"

#include <atomic>
#include <deque>
#include <fstream>
#include <ostream>
#include <mutex>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <vector>

namespace loopwire::test {
namespace {

using namespace std::chrono_literals;

// One step of a pipelined sequence: `count` requests answered at once (GET /h?<n>), or one deferred request
// (GET /d?<n>) answered when the test says so.
struct Step {
    enum Kind { Immediate, Deferred } kind;
    int count = 1;
};

struct Scenario {
    const char* name;
    std::vector<Step> steps;  // written back to back, in one send
    bool lateRequest;         // one more immediate request written 20 ms later
};

// 1,000 requests of ~30 bytes are ~30 KB: past the 16 KiB a pending response may have queued behind it.
constexpr int kMany = 1000;
constexpr int kFew = 10;

const Scenario kScenarios[] = {
    // The reproduction in the issue: the queue crosses the limit, drains while the second deferred response is
    // pending, then one more request arrives.
    {"DeferredManyDeferredThenLate", {{Step::Deferred}, {Step::Immediate, kMany}, {Step::Deferred}}, true},
    {"DeferredManyThenLate", {{Step::Deferred}, {Step::Immediate, kMany}}, true},
    {"DeferredFewDeferredThenLate", {{Step::Deferred}, {Step::Immediate, kFew}, {Step::Deferred}}, true},
    {"ManyDeferredMany", {{Step::Immediate, kMany}, {Step::Deferred}, {Step::Immediate, kMany}}, true},
    {"DeferredManyDeferredManyDeferred",
     {{Step::Deferred}, {Step::Immediate, kMany}, {Step::Deferred}, {Step::Immediate, kMany}, {Step::Deferred}},
     true},
    {"DeferredDeferredDeferred", {{Step::Deferred}, {Step::Deferred}, {Step::Deferred}}, true},
    {"DeferredThenManyLateOnly", {{Step::Deferred}}, true},
    {"ImmediateOnly", {{Step::Immediate, kMany}}, false},
};

void PrintTo(const Scenario& scenario, std::ostream* out) { *out << scenario.name; }

class PipelineFlow : public ::testing::TestWithParam<std::tuple<LoopBackend, Scenario>> {
protected:
    void SetUp() override {
        ServerOptions options;
        options.backend = std::get<0>(GetParam());
        server_ = std::make_unique<TestServer>(options, [this](App& app) {
            app.get("/h", [](HttpResponse* res, HttpRequest* req) { res->end(req->getQuery()); });
            app.get("/d", [this](HttpResponse* res, HttpRequest* req) {
                res->onAborted([] {});
                deferred_.push_back({res, "d" + std::string(req->getQuery())});
            });
        });
    }

    // Completes the oldest deferred response, if one is waiting; on the loop thread.
    bool completeOneDeferred() {
        bool completed = false;
        server_->runOnLoop([&](App&) {
            if (deferred_.empty()) return;
            auto [res, body] = deferred_.front();
            deferred_.pop_front();
            res->end(body);
            completed = true;
        });
        return completed;
    }

    std::unique_ptr<TestServer> server_;
    std::deque<std::pair<HttpResponse*, std::string>> deferred_;  // loop thread only
};

std::string describe(const ::testing::TestParamInfo<std::tuple<LoopBackend, Scenario>>& info) {
    return std::string(std::get<1>(info.param).name) + "_" + backendName(std::get<0>(info.param));
}

TEST_P(PipelineFlow, AnswersEveryRequestInOrder) {
    const Scenario& scenario = std::get<1>(GetParam());
    std::string requests;
    std::vector<std::string> expected;
    int n = 0;
    for (const Step& step : scenario.steps) {
        for (int i = 0; i < step.count; ++i, ++n) {
            const char* path = step.kind == Step::Deferred ? "/d" : "/h";
            requests += "GET " + std::string(path) + "?" + std::to_string(n) + " HTTP/1.1\r\nHost: x\r\n\r\n";
            expected.push_back((step.kind == Step::Deferred ? "d" : "") + std::to_string(n));
        }
    }
    TestClient client(server_->port());
    client.send(requests);
    if (scenario.lateRequest) {
        std::this_thread::sleep_for(20ms);
        client.send("GET /h?late HTTP/1.1\r\nHost: x\r\n\r\n");
        expected.push_back("late");
    }
    // Read in order; when the next answer does not come, a deferred response is due: complete it (50 ms later,
    // as a timer would).
    for (std::size_t i = 0; i < expected.size(); ++i) {
        std::optional<Response> response = client.readResponse(false, 100ms);
        for (int attempt = 0; !response && attempt < 20; ++attempt) {
            std::this_thread::sleep_for(50ms);
            completeOneDeferred();
            response = client.readResponse(false, 500ms);
        }
        ASSERT_TRUE(response) << "answer " << i << " of " << expected.size() << " never came";
        ASSERT_EQ(response->body, expected[i]) << "answer " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Orders, PipelineFlow,
                         ::testing::Combine(::testing::Values(LoopBackend::Epoll, LoopBackend::Libuv),
                                            ::testing::ValuesIn(kScenarios)),
                         describe);

class OutputBacklog : public BackendTest {};
LW_INSTANTIATE_TRANSPORTS(OutputBacklog);

std::size_t residentBytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6)) * 1024;
    }
    return 0;
}

// A peer that reads nothing while it sends 100 MB of pipelined requests: the server stops reading once the
// answers back up, and closes the connection after the write timeout; it never holds more than a few hundred KiB.
TEST_P(OutputBacklog, APeerThatPipelinesWithoutReadingCannotGrowTheServer) {
    static constexpr std::size_t kSendBytes = 100u * 1000 * 1000;
    serve(fastTimeouts(), [](App& app) {
        app.get("/*",
                [](HttpResponse* res, HttpRequest*) { res->end(std::string_view("a response body of some size")); });
    });
    std::size_t before = residentBytes();
    TestClient client(port());
    timeval sendTimeout{0, 200 * 1000};
    setsockopt(client.fd(), SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, sizeof sendTimeout);
    std::string batch;
    while (batch.size() < 64 * 1024)
        batch += "GET /x HTTP/1.1\r\nHost: x\r\n\r\n";
    std::size_t sent = 0;
    std::size_t peak = before;
    while (sent < kSendBytes) {
        // Going on where the last send stopped keeps the stream whole requests, so no 400 ends it early.
        const std::size_t offset = sent % batch.size();
        ssize_t n = ::send(client.fd(), batch.data() + offset, batch.size() - offset, MSG_NOSIGNAL);
        if (n <= 0) break;  // the server stopped reading (send timed out) or closed the connection
        sent += static_cast<std::size_t>(n);
        peak = std::max(peak, residentBytes());
    }
    peak = std::max(peak, residentBytes());
    EXPECT_LT(sent, kSendBytes) << "the server never stopped reading";
    EXPECT_LT(peak - before, 32u * 1024 * 1024) << "sent " << sent;
    // Nothing is read, so the write timeout ends the connection.
    EXPECT_TRUE(waitForNoConnections());
}

// The same peer, reading its answers only after it has sent everything, gets every one of them: holding back
// is flow control, not loss.
TEST_P(OutputBacklog, APeerThatReadsLateGetsEveryAnswer) {
    static constexpr int kRequests = 40000;
    serve([](App& app) { app.get("/*", [](HttpResponse* res, HttpRequest* req) { res->end(req->getQuery()); }); });
    TestClient client(port());
    std::thread writer([&client] {
        std::string requests;
        for (int i = 0; i < kRequests; ++i)
            requests += "GET /x?" + std::to_string(i) + " HTTP/1.1\r\nHost: x\r\n\r\n";
        client.send(requests);
    });
    std::this_thread::sleep_for(300ms);
    int answered = 0;
    for (; answered < kRequests; ++answered) {
        auto response = client.readResponse(false, 5s);
        if (!response || response->body != std::to_string(answered)) break;
    }
    writer.join();
    EXPECT_EQ(answered, kRequests);
}

}  // namespace
}  // namespace loopwire::test
