// Proves the first cost rule of DESIGN.md: after warm-up, a request allocates nothing on the server.
//
// This binary replaces the global operator new with one that counts the allocations made on threads that ask
// for it (the server thread); the client runs on the test thread and is not counted. Each scenario drives
// kMeasuredRequests keep-alive requests after kWarmupRequests and asserts the count did not move, on both loop
// backends. An allocation counted inside a measured window prints its call stack, so that a failure (a rare one on a
// loaded machine included) says where the allocation came from.
#include "../H2Frames.h"
#include "../integration/TestClient.h"
#include "../integration/RedisServer.h"
#include "../integration/SplittingRelay.h"
#include "../integration/TemporaryFolder.h"
#include "../integration/TestServer.h"
#include "pubsub/TopicTree.h"

#include <gtest/gtest.h>

#include <execinfo.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::atomic<std::size_t> gServerAllocations{0};
thread_local bool tCountAllocations = false;

// Call stacks printed per measured window at most: the first allocations say where; the rest would only repeat.
constexpr int kMaxTracedAllocations = 3;
constexpr int kMaxTracedFrames = 48;
std::atomic<bool> gTracing{false};
std::atomic<int> gTracedAllocations{0};
thread_local bool tInTrace = false;

// Writes the call stack of a counted allocation to stderr (backtrace_symbols_fd allocates nothing with operator new).
void traceAllocation(std::size_t size) {
    if (tInTrace || gTracedAllocations.fetch_add(1, std::memory_order_relaxed) >= kMaxTracedAllocations) return;
    tInTrace = true;
    void* frames[kMaxTracedFrames];
    const int count = backtrace(frames, kMaxTracedFrames);
    char line[96];
    const int length =
        std::snprintf(line, sizeof line, "counted allocation of %zu bytes in a measured window:\n", size);
    if (length > 0) (void)!write(STDERR_FILENO, line, static_cast<std::size_t>(length));
    backtrace_symbols_fd(frames, count, STDERR_FILENO);
    tInTrace = false;
}

void countAllocation(std::size_t size) {
    if (!tCountAllocations) return;
    gServerAllocations.fetch_add(1, std::memory_order_relaxed);
    if (gTracing.load(std::memory_order_relaxed)) traceAllocation(size);
}

void* countedAllocate(std::size_t size) {
    countAllocation(size);
    if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
    throw std::bad_alloc();
}

void* countedAllocateAligned(std::size_t size, std::align_val_t alignment) {
    countAllocation(size);
    auto align = static_cast<std::size_t>(alignment);
    if (void* memory = std::aligned_alloc(align, (size + align - 1) / align * align)) return memory;
    throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t size) { return countedAllocate(size); }
void* operator new[](std::size_t size) { return countedAllocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    try {
        return countedAllocate(size);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    try {
        return countedAllocate(size);
    } catch (...) {
        return nullptr;
    }
}
void* operator new(std::size_t size, std::align_val_t alignment) { return countedAllocateAligned(size, alignment); }
void* operator new[](std::size_t size, std::align_val_t alignment) { return countedAllocateAligned(size, alignment); }
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete[](void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete(void* memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t, std::align_val_t) noexcept { std::free(memory); }

namespace loopwire::test {
namespace {

constexpr int kWarmupRequests = 1000;
constexpr int kMeasuredRequests = 10000;

// The allocations counted from its construction on, with the call stacks of the first few printed as they happen.
class MeasuredWindow {
public:
    MeasuredWindow() : before_(gServerAllocations.load()) {
        gTracedAllocations = 0;
        gTracing = true;
    }
    ~MeasuredWindow() { gTracing = false; }
    MeasuredWindow(const MeasuredWindow&) = delete;
    MeasuredWindow& operator=(const MeasuredWindow&) = delete;

    std::size_t allocations() const { return gServerAllocations.load() - before_; }

private:
    std::size_t before_;
};

const std::string& cachedBody() {
    static const std::string body(1024, 'c');
    return body;
}

void routes(App& app) {
    tCountAllocations = true;  // this runs on the server thread
    app.get("/hello", [](HttpResponse* res, HttpRequest*) { res->end("Hello world!"); });
    app.get("/headers", [](HttpResponse* res, HttpRequest* req) {
        std::size_t seen =
            req->getHeader("x-one").size() + req->getHeader("x-five").size() + req->getHeader("user-agent").size();
        res->writeStatus("200 OK")
            ->writeHeader("Content-Type", "text/plain")
            ->writeHeader("Cache-Control", "no-store")
            ->writeHeader("X-Seen", static_cast<std::uint64_t>(seen))
            ->writeHeader("X-Request-Id", "abc123")
            ->writeHeader("Vary", "Accept-Encoding")
            ->end("headers");
    });
    app.post("/upload", [](HttpResponse* res, HttpRequest*) {
        res->onAborted([] {});
        res->onData([res](std::string_view, bool isLast) {
            if (isLast) res->end("uploaded");
        });
    });
    app.get("/cached", [](HttpResponse* res, HttpRequest*) { res->end(cachedBody()); });
}

struct Scenario {
    const char* name;
    std::string request;
    int requestsPerWrite;
};

std::string headersRequest() {
    std::string request = "GET /headers HTTP/1.1\r\nHost: x\r\nUser-Agent: zero-alloc-test\r\n";
    const char* names[] = {"X-One", "X-Two", "X-Three", "X-Four", "X-Five", "Accept", "Accept-Language", "Cookie"};
    for (const char* name : names)
        request += std::string(name) + ": value-of-" + name + "\r\n";
    return request + "\r\n";
}

std::string uploadRequest() {
    return "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: "
           "1024\r\n\r\n" +
           std::string(1024, 'u');
}

// Sends `total` requests, `perWrite` at a time, and reads their fixed-size responses.
void drive(TestClient& client, const Scenario& scenario, std::size_t responseBytes, int total) {
    std::string batch;
    for (int i = 0; i < scenario.requestsPerWrite; ++i)
        batch += scenario.request;
    for (int sent = 0; sent < total; sent += scenario.requestsPerWrite) {
        client.send(batch);
        std::string got = client.readBytes(responseBytes * static_cast<std::size_t>(scenario.requestsPerWrite));
        ASSERT_EQ(got.size(), responseBytes * static_cast<std::size_t>(scenario.requestsPerWrite));
    }
}

class ZeroAllocation : public ::testing::TestWithParam<LoopBackend> {};

INSTANTIATE_TEST_SUITE_P(Backends, ZeroAllocation, ::testing::Values(LoopBackend::Epoll, LoopBackend::Libuv),
                         [](const ::testing::TestParamInfo<LoopBackend>& backendInfo) {
                             return backendName(backendInfo.param);
                         });

TEST_P(ZeroAllocation, NoAllocationPerRequestAfterWarmup) {
    const Scenario scenarios[] = {
        {"get-hello-world", "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n", 1},
        {"ten-headers-read-3-write-5", headersRequest(), 1},
        {"post-1kb-through-onData", uploadRequest(), 1},
        {"cached-1kb-response", "GET /cached HTTP/1.1\r\nHost: x\r\n\r\n", 1},
        {"100-pipelined-per-write", "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n", 100},
    };
    ServerOptions options;
    options.backend = GetParam();
    TestServer server(options, routes);
    for (const Scenario& scenario : scenarios) {
        SCOPED_TRACE(scenario.name);
        TestClient client(server.port());
        client.send(scenario.request);
        auto first = client.readResponse();
        ASSERT_TRUE(first);
        ASSERT_EQ(first->status, 200);
        // Every response of a scenario has the same length (the Date header is always 29 bytes).
        client.send(scenario.request);
        std::size_t responseBytes = 0;
        {
            auto second = client.readResponse();
            ASSERT_TRUE(second);
            responseBytes = second->statusLine.size() + 2 + second->body.size() + 2;
            for (const auto& [name, value] : second->headers)
                responseBytes += name.size() + 2 + value.size() + 2;
        }
        drive(client, scenario, responseBytes, kWarmupRequests);
        server.runOnLoop([](App&) {});
        MeasuredWindow window;
        drive(client, scenario, responseBytes, kMeasuredRequests);
        server.runOnLoop([](App&) {});
        const std::size_t allocations = window.allocations();
        EXPECT_EQ(allocations, 0u) << allocations << " allocations in " << kMeasuredRequests << " requests";
    }
}

// HTTP/2 (issue 43): streams opened, answered and closed on a warm connection allocate nothing: a GET, a GET with
// ten fields and five written, and a POST whose 1 KiB body comes in a DATA frame, ten streams per write.
TEST_P(ZeroAllocation, NoAllocationPerHttp2StreamAfterWarmup) {
    using namespace h2frames;
    ServerOptions options;
    options.backend = GetParam();
    options.http2 = true;
    TestServer server(options, routes);
    constexpr std::uint32_t kStreamsPerWrite = 10;
    const Fields tenFields = {{"user-agent", "zero-alloc-test"},
                              {"x-one", "1"},
                              {"x-two", "2"},
                              {"x-three", "3"},
                              {"x-four", "4"},
                              {"x-five", "5"},
                              {"accept", "*/*"},
                              {"accept-language", "en"},
                              {"cookie", "a=b"},
                              {"x-six", "6"}};
    struct H2Scenario {
        const char* name;
        std::string (*request)(std::uint32_t id, const Fields& extra);
    };
    const H2Scenario scenarios[] = {
        {"get-hello-world", [](std::uint32_t id, const Fields&) { return get(id, "/hello"); }},
        {"ten-headers-read-3-write-5",
         [](std::uint32_t id, const Fields& extra) {
             Fields fields = {{":method", "GET"}, {":scheme", "http"}, {":path", "/headers"}, {":authority", "x"}};
             fields.insert(fields.end(), extra.begin(), extra.end());
             return frame(kHeaders, kEndHeaders | kEndStream, id, block(fields));
         }},
        {"post-1kb-through-onData",
         [](std::uint32_t id, const Fields&) {
             const Fields fields = {{":method", "POST"},
                                    {":scheme", "http"},
                                    {":path", "/upload"},
                                    {":authority", "x"},
                                    {"content-length", "1024"}};
             return frame(kHeaders, kEndHeaders, id, block(fields)) +
                    frame(kData, kEndStream, id, std::string(1024, 'u'));
         }},
    };
    for (const H2Scenario& scenario : scenarios) {
        SCOPED_TRACE(scenario.name);
        TestClient client(server.port());
        client.send(preface());
        std::uint32_t nextId = 1;
        // Sends `total` streams, kStreamsPerWrite at a time, and reads frames until each has ended.
        auto run = [&](int total) {
            for (int sent = 0; sent < total; sent += static_cast<int>(kStreamsPerWrite)) {
                std::string batch;
                for (std::uint32_t i = 0; i < kStreamsPerWrite; ++i, nextId += 2)
                    batch += scenario.request(nextId, tenFields);
                // The connection's window, opened again as the server's answers use it.
                batch += frame(kWindowUpdate, 0, 0, uint32(65535));
                client.send(batch);
                std::uint32_t ended = 0;
                while (ended < kStreamsPerWrite) {
                    auto received = readFrame(client);
                    ASSERT_TRUE(received);
                    if ((received->type == kData || received->type == kHeaders) && (received->flags & kEndStream))
                        ++ended;
                    ASSERT_NE(received->type, kRstStream);
                    ASSERT_NE(received->type, kGoAway) << "GOAWAY " << errorCode(*received);
                }
            }
        };
        run(kWarmupRequests);
        server.runOnLoop([](App&) {});
        MeasuredWindow window;
        run(kMeasuredRequests);
        server.runOnLoop([](App&) {});
        const std::size_t allocations = window.allocations();
        EXPECT_EQ(allocations, 0u) << allocations << " allocations in " << kMeasuredRequests << " streams";
    }
}

// App::compress (issue 44): a response coded whole (end) with gzip or zstd, and one streamed in write()s with gzip,
// allocate nothing once the compressors are pooled and the output buffer sized. (Brotli has no reset: its state is
// made anew for each response, by design.)
TEST_P(ZeroAllocation, NoAllocationPerCompressedResponseAfterWarmup) {
    ServerOptions options;
    options.backend = GetParam();
    static const std::string json = [] {
        std::string text;
        for (int i = 0; text.size() < 20000; ++i)
            text += "{\"id\":" + std::to_string(i) + ",\"name\":\"item " + std::to_string(i % 13) + "\"}\n";
        return text;
    }();
    TestServer server(options, [](App& app) {
        tCountAllocations = true;
        app.compress("/*");
        app.get("/json", [](HttpResponse* res, HttpRequest*) {
            res->writeHeader("Content-Type", "application/json")->end(json);
        });
        app.get("/stream", [](HttpResponse* res, HttpRequest*) {
            res->writeHeader("Content-Type", "text/plain");
            res->write(std::string_view(json).substr(0, 10000));
            res->end(std::string_view(json).substr(10000));
        });
    });
    const std::pair<const char*, std::string> scenarios[] = {
        {"gzip-end", "GET /json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"},
        {"zstd-end", "GET /json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: zstd\r\n\r\n"},
        {"gzip-write", "GET /stream HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"},
    };
    for (const auto& [name, request] : scenarios) {
        SCOPED_TRACE(name);
        TestClient client(server.port());
        client.send(request);
        auto first = client.readResponse();
        ASSERT_TRUE(first);
        ASSERT_FALSE(first->header("content-encoding").empty());
        // The same bytes every time (the coders are deterministic and the Date field keeps its length): one
        // exchange read whole, chunk framing included, by waiting for what comes within half a second.
        client.send(request);
        const std::string raw = client.readBytes(std::size_t{1} << 20, std::chrono::milliseconds(500));
        ASSERT_FALSE(raw.empty());
        const Scenario each{name, request, 1};
        // Fewer than the other scenarios: each one codes 20 KB.
        constexpr int kCodedRequests = 1000;
        drive(client, each, raw.size(), kCodedRequests / 10);
        server.runOnLoop([](App&) {});
        MeasuredWindow window;
        drive(client, each, raw.size(), kCodedRequests);
        server.runOnLoop([](App&) {});
        const std::size_t allocations = window.allocations();
        EXPECT_EQ(allocations, 0u) << allocations << " allocations in " << kCodedRequests << " requests";
    }
}

// Static files (App::serveStatic, issue 44): a cached file, a 304, a range of a cached file, several ranges, a
// precompressed variant, and a file too large for the cache, streamed from its descriptor, allocate nothing per
// request once warm; nor do HttpResponse::sendFile's cached file, 304 and streamed file.
TEST_P(ZeroAllocation, NoAllocationPerStaticFileRequestAfterWarmup) {
    TemporaryFolder folder;
    folder.write("one.txt", std::string(1024, 's'));
    folder.write("large.bin", std::string(300 * 1024, 'l'));
    folder.write("page.html", std::string(50 * 1024, 'p'));
    folder.write("page.html.gz", std::string(5 * 1024, 'z'));
    ServerOptions options;
    options.backend = GetParam();
    // HttpResponse::sendFile with options made once, as the API asks.
    SendFileOptions sendOptions;
    sendOptions.root = folder.path();
    sendOptions.compress = false;
    TestServer server(options, [&folder, &sendOptions](App& app) {
        tCountAllocations = true;
        app.get("/send/:name", [&sendOptions](HttpResponse* res, HttpRequest* req) {
            res->sendFile(req->getParameter(0), sendOptions);
        });
        // No compression in the background: a variant that joins its entry during the measured requests allocates
        // (once per file and coding, by design) and changes the answers' sizes.
        StaticFileOptions files;
        files.compress = false;
        app.serveStatic("/files", folder.path(), files);
        // And one that compresses, measured once every variant it makes has joined its entry.
        app.serveStatic("/made", folder.path());
    });
    for (const char* coding : {"br", "zstd", "gzip"}) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        bool made = false;
        while (!made && std::chrono::steady_clock::now() < until) {
            TestClient client(server.port());
            client.send(std::string("GET /made/one.txt HTTP/1.1\r\nHost: x\r\nAccept-Encoding: ") + coding +
                        "\r\n\r\n");
            auto response = client.readResponse();
            ASSERT_TRUE(response);
            made = response->header("content-encoding") == coding;
            if (!made) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        ASSERT_TRUE(made) << coding;
    }
    std::string etag;
    {
        TestClient client(server.port());
        client.send("GET /files/one.txt HTTP/1.1\r\nHost: x\r\n\r\n");
        auto response = client.readResponse();
        ASSERT_TRUE(response);
        ASSERT_EQ(response->status, 200);
        etag = response->header("etag");
    }
    struct StaticScenario {
        const char* name;
        std::string request;
        int expectedStatus;
        int measured;
    };
    const StaticScenario scenarios[] = {
        {"cached-1kb-file", "GET /files/one.txt HTTP/1.1\r\nHost: x\r\n\r\n", 200, kMeasuredRequests},
        {"304-if-none-match", "GET /files/one.txt HTTP/1.1\r\nHost: x\r\nIf-None-Match: " + etag + "\r\n\r\n", 304,
         kMeasuredRequests},
        {"one-range-of-a-cached-file", "GET /files/one.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=100-199\r\n\r\n", 206,
         kMeasuredRequests},
        {"multipart-ranges-of-a-cached-file",
         "GET /files/one.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=0-9,500-509,1000-1009\r\n\r\n", 206,
         kMeasuredRequests},
        {"precompressed-gzip-variant",
         "GET /files/page.html HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip, deflate, br\r\n\r\n", 200,
         kMeasuredRequests},
        {"variant-made-in-the-background", "GET /made/one.txt HTTP/1.1\r\nHost: x\r\nAccept-Encoding: zstd, br\r\n\r\n",
         200, kMeasuredRequests},
        {"head-of-a-streamed-file", "HEAD /files/large.bin HTTP/1.1\r\nHost: x\r\n\r\n", 200, kMeasuredRequests},
        {"streamed-300kb-file", "GET /files/large.bin HTTP/1.1\r\nHost: x\r\n\r\n", 200, 300},
        {"sendFile-cached-1kb-file", "GET /send/one.txt HTTP/1.1\r\nHost: x\r\n\r\n", 200, kMeasuredRequests},
        {"sendFile-304", "GET /send/one.txt HTTP/1.1\r\nHost: x\r\nIf-None-Match: " + etag + "\r\n\r\n", 304,
         kMeasuredRequests},
        {"sendFile-streamed-300kb-file", "GET /send/large.bin HTTP/1.1\r\nHost: x\r\n\r\n", 200, 300},
    };
    for (const StaticScenario& scenario : scenarios) {
        SCOPED_TRACE(scenario.name);
        const bool head = scenario.request.starts_with("HEAD");
        TestClient client(server.port());
        client.send(scenario.request);
        auto first = client.readResponse(head);
        ASSERT_TRUE(first);
        ASSERT_EQ(first->status, scenario.expectedStatus);
        std::size_t responseBytes = first->statusLine.size() + 2 + first->body.size() + 2;
        for (const auto& [name, value] : first->headers)
            responseBytes += name.size() + 2 + value.size() + 2;
        const Scenario each{scenario.name, scenario.request, 1};
        drive(client, each, responseBytes, std::min(kWarmupRequests, scenario.measured));
        server.runOnLoop([](App&) {});
        MeasuredWindow window;
        drive(client, each, responseBytes, scenario.measured);
        server.runOnLoop([](App&) {});
        const std::size_t allocations = window.allocations();
        EXPECT_EQ(allocations, 0u) << allocations << " allocations in " << scenario.measured << " requests";
    }
}

// A client frame: FIN + binary, masked with a fixed key (the server unmasks in place either way).
std::string maskedBinaryFrame(std::size_t length) {
    std::string frame;
    frame += static_cast<char>(0x82);
    if (length < 126) {
        frame += static_cast<char>(0x80 | length);
    } else {
        frame += static_cast<char>(0x80 | 126);
        frame += static_cast<char>(length >> 8);
        frame += static_cast<char>(length & 0xFF);
    }
    const char mask[4] = {0x11, 0x22, 0x33, 0x44};
    frame.append(mask, 4);
    for (std::size_t i = 0; i < length; ++i)
        frame += static_cast<char>('e' ^ mask[i % 4]);
    return frame;
}

// Sends a WebSocket upgrade request on client and reads the answer's head; whether it was 101.
bool upgradeToWebSocket(TestClient& client) {
    client.send(
        "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
    std::string head;
    while (head.find("\r\n\r\n") == std::string::npos) {
        std::string byte = client.readBytes(1);
        if (byte.size() != 1) return false;
        head += byte;
    }
    return head.rfind("HTTP/1.1 101 ", 0) == 0;
}

// A WebSocket echo of uncompressed binary messages (20 bytes and 4 KiB, the ws/echo-* scenarios) allocates
// nothing per message once the connection is open.
TEST_P(ZeroAllocation, NoAllocationPerWebSocketEchoAfterWarmup) {
    struct NoUserData {};
    ServerOptions options;
    options.backend = GetParam();
    TestServer server(options, [](App& app) {
        tCountAllocations = true;
        app.ws<NoUserData>("/*", {.maxPayloadLength = 64 * 1024,
                                  .message = [](WebSocket<NoUserData>* ws, std::string_view message, OpCode opCode) {
                                      ws->send(message, opCode);
                                  }});
    });
    for (std::size_t length : {std::size_t{20}, std::size_t{4096}}) {
        SCOPED_TRACE(length);
        TestClient client(server.port());
        ASSERT_TRUE(upgradeToWebSocket(client));
        const std::string frame = maskedBinaryFrame(length);
        const std::size_t echoBytes = (length < 126 ? 2 : 4) + length;
        auto echo = [&](int messages) {
            for (int i = 0; i < messages; ++i) {
                client.send(frame);
                ASSERT_EQ(client.readBytes(echoBytes).size(), echoBytes);
            }
        };
        echo(kWarmupRequests);
        server.runOnLoop([](App&) {});
        MeasuredWindow window;
        echo(kMeasuredRequests);
        server.runOnLoop([](App&) {});
        const std::size_t allocations = window.allocations();
        EXPECT_EQ(allocations, 0u) << allocations << " allocations in " << kMeasuredRequests << " messages";
    }
}

// Pub/sub across Apps through a real Redis: a message a WebSocket of one App publishes, sent to Redis, received by
// another App and delivered to its subscriber, allocates nothing on either App once the buffers have grown. Sharded
// (SPUBLISH, each kept until its reply): the same. With history (the publish script's EVALSHA, the message
// delivered stamped to both Apps' subscribers, the sender's included): the same.
enum class BrokerMode { Classic, Sharded, History };

void expectNoAllocationPerMessageThroughTheBroker(LoopBackend backend, BrokerMode mode) {
    const bool sharded = mode == BrokerMode::Sharded;
    const bool history = mode == BrokerMode::History;
    ASSERT_TRUE(RedisServer::available()) << "redis-server is missing: scripts/deps.sh";
    RedisServer redis;
    ASSERT_TRUE(redis.running());
    struct NoUserData {};
    ServerOptions options;
    options.backend = backend;
    std::atomic<int> ready{0};
    auto setup = [&](App& app) {
        tCountAllocations = true;
        app.ws<NoUserData>("/*", {.maxPayloadLength = 64 * 1024,
                                  .open = [](WebSocket<NoUserData>* ws) { ws->subscribe("room"); },
                                  .message = [](WebSocket<NoUserData>* ws, std::string_view message,
                                                OpCode opCode) { ws->publish("room", message, opCode); }});
        PubSubOptions pubsub;
        pubsub.url = redis.url();
        pubsub.sharded = sharded;
        if (history) pubsub.history.size = 100;
        app.connectPubSub(pubsub, [&ready](const PubSubEvent& event) {
            if (event.kind == PubSubEventKind::Ready) ++ready;
        });
    };
    TestServer publisher(options, setup);
    TestServer subscriber(options, setup);
    TestClient sender(publisher.port());
    TestClient receiver(subscriber.port());
    ASSERT_TRUE(upgradeToWebSocket(sender));
    ASSERT_TRUE(upgradeToWebSocket(receiver));
    // Both links ready and the subscriber's App subscribed in Redis (the sender's App too: its sender subscribed).
    // Redis counts a subscription as soon as it has read the command, which can be before the App has read the reply
    // that makes its link ready: wait for both.
    for (int i = 0;
         i < 500 &&
         (ready.load() < 2 ||
          !redis.command({"PUBSUB", sharded ? "SHARDNUMSUB" : "NUMSUB", "loopwire:room"}).ends_with(":2\r\n"));
         ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(ready.load(), 2);
    std::uint64_t offset = 0;  // history: the last message's
    for (std::size_t length : {std::size_t{20}, std::size_t{4096}}) {
        SCOPED_TRACE(length);
        const std::string frame = maskedBinaryFrame(length);
        const std::size_t deliveredBytes = (length < 126 ? 2 : 4) + length;
        auto relay = [&](int messages) {
            for (int i = 0; i < messages; ++i) {
                sender.send(frame);
                if (!history) {
                    ASSERT_EQ(receiver.readBytes(deliveredBytes).size(), deliveredBytes);
                    continue;
                }
                // "<16 hex>:<offset>:" in front; the sender gets it too.
                const std::size_t stamped = length + 18 + std::to_string(++offset).size();
                const std::size_t bytes = (stamped < 126 ? 2 : 4) + stamped;
                ASSERT_EQ(receiver.readBytes(bytes).size(), bytes);
                ASSERT_EQ(sender.readBytes(bytes).size(), bytes);
            }
        };
        relay(kWarmupRequests);
        if (sharded) {
            // A burst of publishes in one loop turn, so that what grows with the publishes in flight (a sharded link
            // keeps each SPUBLISH until its reply) has grown past what one message at a time can need on a busy
            // machine.
            constexpr std::size_t kBurst = 24;  // 24 of 4 KiB stay under RedisBroker::kMaxRetainedBufferBytes
            const std::string payload(length, 'b');
            publisher.runOnLoop([&](App& app) {
                for (std::size_t i = 0; i < kBurst; ++i)
                    app.publish("room", payload, OpCode::Binary);
            });
            ASSERT_EQ(receiver.readBytes(kBurst * deliveredBytes).size(), kBurst * deliveredBytes);
            ASSERT_EQ(sender.readBytes(kBurst * deliveredBytes).size(), kBurst * deliveredBytes);  // app.publish's
        }
        publisher.runOnLoop([](App&) {});
        subscriber.runOnLoop([](App&) {});
        MeasuredWindow window;
        relay(kMeasuredRequests);
        publisher.runOnLoop([](App&) {});
        subscriber.runOnLoop([](App&) {});
        const std::size_t allocations = window.allocations();
        EXPECT_EQ(allocations, 0u) << allocations << " allocations in " << kMeasuredRequests << " messages";
    }
}

TEST_P(ZeroAllocation, NoAllocationPerMessageThroughTheBroker) {
    expectNoAllocationPerMessageThroughTheBroker(GetParam(), BrokerMode::Classic);
}

TEST_P(ZeroAllocation, NoAllocationPerMessageThroughTheShardedBroker) {
    expectNoAllocationPerMessageThroughTheBroker(GetParam(), BrokerMode::Sharded);
}

TEST_P(ZeroAllocation, NoAllocationPerMessageOnATopicWithHistory) {
    expectNoAllocationPerMessageThroughTheBroker(GetParam(), BrokerMode::History);
}

// A message that reaches the App in pieces, a read ending inside it (which a loaded machine makes happen at any time),
// allocates nothing either: the link reads into the room behind the part it holds (RedisBroker::kMinReadRoomBytes)
// instead of growing its buffer for a whole chunk's room. Messages published by another program reach the App
// through a relay that, after the warm-up, cuts each piece Redis sends in two.
TEST_P(ZeroAllocation, NoAllocationWhenTheBrokersMessagesArriveInPieces) {
    constexpr int kWholeMessages = 200;
    constexpr int kCutMessages = 200;
    ASSERT_TRUE(RedisServer::available()) << "redis-server is missing: scripts/deps.sh";
    RedisServer redis;
    ASSERT_TRUE(redis.running());
    SplittingRelay relay(redis.port());
    struct NoUserData {};
    ServerOptions options;
    options.backend = GetParam();
    std::atomic<bool> ready{false};
    TestServer subscriber(options, [&](App& app) {
        tCountAllocations = true;
        app.ws<NoUserData>(
            "/*", {.maxPayloadLength = 64 * 1024, .open = [](WebSocket<NoUserData>* ws) { ws->subscribe("room"); }});
        PubSubOptions pubsub;
        pubsub.url = relay.url();
        app.connectPubSub(pubsub, [&ready](const PubSubEvent& event) {
            if (event.kind == PubSubEventKind::Ready) ready = true;
        });
    });
    TestClient receiver(subscriber.port());
    ASSERT_TRUE(upgradeToWebSocket(receiver));
    for (int i = 0;
         i < 500 && (!ready.load() || !redis.command({"PUBSUB", "NUMSUB", "loopwire:room"}).ends_with(":1\r\n")); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(ready.load());
    const std::string message(4096, 'm');
    const std::size_t deliveredBytes = 4 + message.size();
    auto deliver = [&](int messages) {
        for (int i = 0; i < messages; ++i) {
            ASSERT_EQ(redis.command({"PUBLISH", "loopwire:room", message}), ":1\r\n");
            ASSERT_EQ(receiver.readBytes(deliveredBytes).size(), deliveredBytes);
        }
    };
    deliver(kWholeMessages);
    relay.splitFromNowOn();
    subscriber.runOnLoop([](App&) {});
    MeasuredWindow window;
    deliver(kCutMessages);
    subscriber.runOnLoop([](App&) {});
    const std::size_t allocations = window.allocations();
    EXPECT_GE(relay.splitPieces(), kCutMessages);
    EXPECT_EQ(allocations, 0u) << allocations << " allocations in " << kCutMessages << " messages cut in two";
}

// Pub/sub: once its buffers have grown to a batch, publishing to many subscribers and draining allocate nothing.
TEST(ZeroAllocation, PublishAndDrainAllocateNothingAfterTheFirstBatch) {
    struct Subscriber {};
    loopwire::TopicTree<Subscriber> tree;
    std::vector<Subscriber> subscribers(1000);
    for (Subscriber& subscriber : subscribers)
        tree.subscribe(&subscriber, "room");
    const std::string message(200, 'm');
    std::size_t delivered = 0;
    auto batch = [&] {
        for (int i = 0; i < 8; ++i)
            tree.publish("room", message, &subscribers[static_cast<std::size_t>(i)]);
        tree.drain([&](Subscriber*, const std::vector<std::string_view>& messages) { delivered += messages.size(); });
    };
    batch();
    MeasuredWindow window;
    tCountAllocations = true;
    for (int round = 0; round < 100; ++round)
        batch();
    tCountAllocations = false;
    EXPECT_EQ(window.allocations(), 0u);
    EXPECT_EQ(delivered, 101u * (8u * 1000u - 8u));
}

// The counter itself must work, or the test above proves nothing.
TEST(ZeroAllocationCounter, CountsAllocationsOnTheServerThread) {
    ServerOptions options;
    TestServer server(options, [](App& app) {
        tCountAllocations = true;
        app.get("/allocates", [](HttpResponse* res, HttpRequest*) {
            std::string grown(1000, 'a');
            res->end(grown);
        });
    });
    std::size_t before = gServerAllocations.load();
    auto response = fetch(server.port(), "GET /allocates HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    server.runOnLoop([](App&) {});
    EXPECT_GT(gServerAllocations.load(), before);
}

// A failing window must say where its allocations came from: the first kMaxTracedAllocations of each window print
// their call stack, the rest only count, and nothing prints outside a window.
TEST(ZeroAllocationCounter, AnAllocationInAMeasuredWindowPrintsItsCallStack) {
    constexpr std::size_t kAllocations = kMaxTracedAllocations + 2;
    auto allocate = [](std::size_t times) {
        tCountAllocations = true;
        for (std::size_t i = 0; i < times; ++i)
            ::operator delete(::operator new(64));
        tCountAllocations = false;
    };
    auto tracesIn = [](const std::string& printed) {
        constexpr std::string_view kTraceHead = "counted allocation of 64 bytes";
        std::size_t traces = 0;
        for (std::size_t at = printed.find(kTraceHead); at != std::string::npos; at = printed.find(kTraceHead, at + 1))
            ++traces;
        return traces;
    };
    testing::internal::CaptureStderr();
    std::size_t first = 0;
    {
        MeasuredWindow window;
        allocate(1);
        first = window.allocations();
    }
    allocate(1);  // outside a window: counted, not printed
    std::size_t second = 0;
    {
        MeasuredWindow window;
        allocate(kAllocations);
        second = window.allocations();
    }
    const std::string printed = testing::internal::GetCapturedStderr();
    EXPECT_EQ(first, 1u);
    EXPECT_EQ(second, kAllocations);
    EXPECT_EQ(tracesIn(printed), 1u + kMaxTracedAllocations) << printed;
    EXPECT_NE(printed.find("zero_allocation"), std::string::npos) << "no frame of this binary in:\n" << printed;
}

}  // namespace
}  // namespace loopwire::test
