// HTTP/2 frame by frame (tests/H2Frames): the server's answers, and its defences, each against the attack it
// bounds: rapid reset (CVE-2023-44487), resets the client provokes (MadeYouReset, CVE-2025-8671), CONTINUATION
// floods (CVE-2024-27983), HPACK bombs and header lists over the limit, SETTINGS and PING floods, more streams than
// SETTINGS_MAX_CONCURRENT_STREAMS, and windows that never open. Plain (prior knowledge) and TLS (ALPN h2), on both
// backends.
#include "Fixture.h"
#include "../H2Frames.h"
#include "h2/Http2Settings.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace loopwire::test {
namespace {

using namespace h2frames;

class Http2Frames : public BackendTest {
protected:
    // The server goes first: closing it aborts held streams, whose onAborted counts in this object's members.
    ~Http2Frames() override { server_.reset(); }

    void start(ServerOptions options) {
        options.http2 = true;
        serve(options, [this](App& app) {
            app.get("/hello", [](HttpResponse* res, HttpRequest*) { res->end("Hello world!"); });
            app.get("/slow", [this](HttpResponse* res, HttpRequest*) {
                ++handled_;
                res->onAborted([this] { ++aborted_; });
            });
            app.get("/large", [this](HttpResponse* res, HttpRequest*) {
                res->onAborted([this] { ++aborted_; });
                res->end(std::string(200000, 'x'));
            });
            app.get("/headers",
                    [](HttpResponse* res, HttpRequest* req) { res->end(std::to_string(req->headerCount())); });
        });
    }
    void SetUp() override { start(options()); }

    // A connection that has sent the preface (with settings) and read the server's SETTINGS.
    std::unique_ptr<TestClient> connect(const std::vector<std::pair<std::uint16_t, std::uint32_t>>& settings = {}) {
        std::unique_ptr<TestClient> client;
        if (overTls()) {
            TlsClientOptions tls = *defaultClientTls();
            tls.alpn = {"h2"};
            client = std::make_unique<TestClient>(port(), tls);
        } else {
            client = std::make_unique<TestClient>(port());
        }
        client->send(preface(settings));
        auto first = readFrame(*client);
        EXPECT_TRUE(first && first->type == kSettings && first->flags == 0);
        return client;
    }

    // Twice the control-frame budget of one second, of controlFrame, in one write: GOAWAY ENHANCE_YOUR_CALM.
    void expectFloodEndsTheConnection(const std::string& controlFrame) {
        auto client = connect();
        std::string flood;
        for (std::uint32_t i = 0; i < 2 * h2::kMaxControlFramesPerSecond; ++i)
            flood += controlFrame;
        client->send(flood);
        auto goaway = readUntil(*client, kGoAway);
        ASSERT_TRUE(goaway);
        EXPECT_EQ(errorCode(*goaway), kEnhanceYourCalm);
    }

    std::atomic<int> handled_{0};
    std::atomic<int> aborted_{0};
};
LW_INSTANTIATE_TRANSPORTS(Http2Frames);

TEST_P(Http2Frames, AnswersAGet) {
    auto client = connect();
    client->send(get(1, "/hello"));
    auto headers = readUntil(*client, kHeaders, 1);
    ASSERT_TRUE(headers);
    const Fields fields = ResponseDecoder().decode(headers->payload);
    ASSERT_FALSE(fields.empty());
    EXPECT_EQ(fields[0], (std::pair<std::string, std::string>{":status", "200"}));
    auto data = readUntil(*client, kData, 1);
    ASSERT_TRUE(data);
    EXPECT_EQ(data->payload, "Hello world!");
    EXPECT_TRUE(data->flags & kEndStream);
}

TEST_P(Http2Frames, RapidResetEndsTheConnection) {
    auto client = connect();
    std::string burst;
    const int streams = static_cast<int>(h2::kMaxStreamResetsPerSecond) * 3;
    for (int i = 0; i < streams; ++i) {
        const auto id = static_cast<std::uint32_t>(2 * i + 1);
        burst += get(id, "/slow") + frame(kRstStream, 0, id, uint32(kCancel));
    }
    client->send(burst);
    auto goaway = readUntil(*client, kGoAway);
    ASSERT_TRUE(goaway);
    EXPECT_EQ(errorCode(*goaway), kEnhanceYourCalm);
    EXPECT_TRUE(client->waitForClose());
    // The handlers that ran are those within the budget (and the one that crossed it), not all.
    EXPECT_LE(handled_.load(), static_cast<int>(h2::kMaxStreamResetsPerSecond) + 1);
    EXPECT_GT(handled_.load(), 0);
}

TEST_P(Http2Frames, ResetsTheClientProvokesCountToo) {
    auto client = connect();
    std::string burst;
    for (std::uint32_t i = 0; i < 3 * h2::kMaxStreamResetsPerSecond; ++i) {
        const std::uint32_t id = 2 * i + 1;
        // A window increment of 0 on an open stream: the server resets it (MadeYouReset).
        burst += get(id, "/slow") + frame(kWindowUpdate, 0, id, uint32(0));
    }
    client->send(burst);
    auto goaway = readUntil(*client, kGoAway);
    ASSERT_TRUE(goaway);
    EXPECT_EQ(errorCode(*goaway), kEnhanceYourCalm);
    EXPECT_LE(handled_.load(), static_cast<int>(h2::kMaxStreamResetsPerSecond) + 1);
}

TEST_P(Http2Frames, ContinuationFloodEndsTheConnection) {
    auto client = connect();
    std::string flood = frame(kHeaders, 0, 1, block({{":method", "GET"}}));
    while (flood.size() < 2 * h2::kMaxHeaderBlockBytes)
        flood += frame(kContinuation, 0, 1, "");
    client->send(flood);
    auto goaway = readUntil(*client, kGoAway);
    ASSERT_TRUE(goaway);
    EXPECT_EQ(errorCode(*goaway), kEnhanceYourCalm);
    EXPECT_TRUE(client->waitForClose());
    EXPECT_EQ(handled_.load(), 0);
}

TEST_P(Http2Frames, HpackBombGets431AndTheConnectionLives) {
    auto client = connect();
    // One 4000-byte entry in the dynamic table, then referenced ten times: 10 bytes that decode to 40 KB.
    std::string fields = block({{":method", "GET"}, {":scheme", "http"}, {":path", "/headers"}, {":authority", "t"}});
    fields += std::string("\x40\x01x\x7f", 4);  // literal with incremental indexing, name "x", value length 127+
    const std::size_t valueLength = 4000;
    std::uint32_t rest = static_cast<std::uint32_t>(valueLength - 127);
    while (rest >= 0x80) {
        fields.push_back(static_cast<char>((rest & 0x7f) | 0x80));
        rest >>= 7;
    }
    fields.push_back(static_cast<char>(rest));
    fields += std::string(valueLength, 'v');
    for (int i = 0; i < 10; ++i)
        fields.push_back(static_cast<char>(0x80 | 62));  // the dynamic table's newest entry
    client->send(frame(kHeaders, kEndHeaders | kEndStream, 1, fields));
    auto headers = readUntil(*client, kHeaders, 1);
    ASSERT_TRUE(headers);
    EXPECT_EQ(ResponseDecoder().decode(headers->payload).at(0).second, "431");
    // The table stayed in step: a next request on the same connection is answered.
    client->send(get(3, "/hello"));
    auto data = readUntil(*client, kData, 3);
    ASSERT_TRUE(data);
    EXPECT_EQ(data->payload, "Hello world!");
}

TEST_P(Http2Frames, ResponsesIndexTheDateOnceASecond) {
    auto client = connect();
    ResponseDecoder decoder;
    std::vector<std::size_t> blockBytes;
    for (std::uint32_t stream = 1; stream <= 5; stream += 2) {
        client->send(get(stream, "/hello"));
        auto headers = readUntil(*client, kHeaders, stream);
        ASSERT_TRUE(headers);
        const Fields fields = decoder.decode(headers->payload);
        ASSERT_EQ(fields.size(), 3u);
        EXPECT_EQ(fields[2].first, "date");
        EXPECT_EQ(fields[2].second.size(), 29u);
        blockBytes.push_back(headers->payload.size());
    }
    // The first block inserts the date; the others refer to it in one byte (unless a second passed between them).
    EXPECT_LE(decoder.entries(), 2u);
    EXPECT_GE(decoder.entries(), 1u);
    EXPECT_EQ(blockBytes.back(), 1u + 5u + 1u);  // :status 200, content-length 12 (name 28: two bytes), the date
}

TEST_P(Http2Frames, AClientWithoutAHeaderTableGetsASizeUpdateFirst) {
    auto client = connect({{0x1, 0}});  // SETTINGS_HEADER_TABLE_SIZE 0
    ResponseDecoder decoder;
    for (std::uint32_t stream = 1; stream <= 3; stream += 2) {
        client->send(get(stream, "/hello"));
        auto headers = readUntil(*client, kHeaders, stream);
        ASSERT_TRUE(headers);
        // The update to 0 opens the first block after the SETTINGS (RFC 7541 section 4.2), and only that one.
        EXPECT_EQ(headers->payload[0] == '\x20', stream == 1);
        const Fields fields = decoder.decode(headers->payload);
        ASSERT_EQ(fields.size(), 3u);
        EXPECT_EQ(fields[2].first, "date");
        EXPECT_EQ(decoder.entries(), 0u);
    }
}

TEST_P(Http2Frames, TooManyFieldsGet431) {
    auto client = connect();
    Fields fields = {{":method", "GET"}, {":scheme", "http"}, {":path", "/headers"}, {":authority", "t"}};
    for (std::size_t i = 0; i < limits::kMaxHeaderCount + 1; ++i)
        fields.emplace_back("x-" + std::to_string(i), "v");
    client->send(frame(kHeaders, kEndHeaders | kEndStream, 1, block(fields)));
    auto headers = readUntil(*client, kHeaders, 1);
    ASSERT_TRUE(headers);
    EXPECT_EQ(ResponseDecoder().decode(headers->payload).at(0).second, "431");
}

TEST_P(Http2Frames, SettingsFloodEndsTheConnection) { expectFloodEndsTheConnection(frame(kSettings, 0, 0, "")); }

TEST_P(Http2Frames, PingFloodEndsTheConnection) { expectFloodEndsTheConnection(frame(kPing, 0, 0, "12345678")); }

TEST_P(Http2Frames, StreamsPastTheLimitAreRefused) {
    auto client = connect();
    std::string burst;
    for (std::uint32_t i = 0; i <= h2::kMaxConcurrentStreams; ++i)
        burst += get(2 * i + 1, "/slow");
    client->send(burst);
    const std::uint32_t lastId = 2 * h2::kMaxConcurrentStreams + 1;
    auto reset = readUntil(*client, kRstStream, lastId);
    ASSERT_TRUE(reset);
    EXPECT_EQ(errorCode(*reset), kRefusedStream);
    EXPECT_EQ(handled_.load(), static_cast<int>(h2::kMaxConcurrentStreams));
    // The connection goes on.
    client->send(frame(kPing, 0, 0, "abcdefgh"));
    auto pong = readUntil(*client, kPing);
    ASSERT_TRUE(pong);
    EXPECT_EQ(pong->payload, "abcdefgh");
}

TEST_P(Http2Frames, BodiesFollowTheClientsWindow) {
    auto client = connect({{0x4, 0}});  // SETTINGS_INITIAL_WINDOW_SIZE 0: no DATA until a WINDOW_UPDATE
    client->send(get(1, "/large"));
    ASSERT_TRUE(readUntil(*client, kHeaders, 1));
    EXPECT_TRUE(client->staysQuiet(std::chrono::milliseconds(100)));
    std::size_t received = 0;
    bool ended = false;
    while (!ended) {
        // The stream's window and the connection's (65,535 bytes to begin with) both bound what may come.
        client->send(frame(kWindowUpdate, 0, 1, uint32(16384)) + frame(kWindowUpdate, 0, 0, uint32(16384)));
        auto data = readUntil(*client, kData, 1);
        ASSERT_TRUE(data);
        EXPECT_LE(data->payload.size(), 16384u);
        received += data->payload.size();
        ended = (data->flags & kEndStream) != 0;
    }
    EXPECT_EQ(received, 200000u);
}

TEST_P(Http2Frames, AWindowThatNeverOpensIsTimedOut) {
    server_.reset();
    start(fastTimeouts());
    auto client = connect({{0x4, 0}});
    client->send(get(1, "/large"));
    ASSERT_TRUE(readUntil(*client, kHeaders, 1));
    EXPECT_TRUE(client->waitForClose(std::chrono::seconds(3)));
    EXPECT_TRUE(waitForNoConnections());
    EXPECT_EQ(aborted_.load(), 0);  // the response was complete for the handler; its bytes were what waited
}

TEST_P(Http2Frames, AnIdleConnectionIsClosedWithGoAway) {
    server_.reset();
    start(fastTimeouts());
    auto client = connect();
    auto goaway = readUntil(*client, kGoAway, std::nullopt, 3000);
    ASSERT_TRUE(goaway);
    EXPECT_EQ(errorCode(*goaway), 0u);
    EXPECT_TRUE(client->waitForClose());
}

}  // namespace
}  // namespace loopwire::test
