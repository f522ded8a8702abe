// HttpConnection on a MemoryStream: requests, bodies, pipelining, responses that wait for the client, timeouts and
// faults, driven by bytes the test writes and checked in the bytes it reads, with no kernel socket, in plain TCP and
// over TLS, on both backends; and a walk that fails each read and each write of a whole conversation in turn.
#include "net/MemoryStream.h"
#include "net/Socket.h"
#include "unit/net/MemoryClient.h"

#include <loopwire/App.h>
#include <loopwire/HttpRequest.h>
#include <loopwire/HttpResponse.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace loopwire::test {
namespace {

struct Response {
    int status = 0;
    std::string head;
    std::string body;
};

// Takes one whole response (Content-Length or chunked) from the front of bytes; nothing while it is partial.
std::optional<Response> takeResponse(std::string& bytes) {
    const std::size_t headEnd = bytes.find("\r\n\r\n");
    if (headEnd == std::string::npos || bytes.size() < 12) return std::nullopt;
    Response response;
    response.head = bytes.substr(0, headEnd + 4);
    response.status = std::stoi(bytes.substr(9, 3));
    std::string lower = response.head;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    std::size_t at = headEnd + 4;
    if (lower.find("transfer-encoding: chunked") != std::string::npos) {
        for (;;) {
            const std::size_t lineEnd = bytes.find("\r\n", at);
            if (lineEnd == std::string::npos) return std::nullopt;
            const std::size_t size = std::stoul(bytes.substr(at, lineEnd - at), nullptr, 16);
            if (bytes.size() < lineEnd + 2 + size + 2) return std::nullopt;
            response.body += bytes.substr(lineEnd + 2, size);
            at = lineEnd + 2 + size + 2;
            if (size == 0) break;
        }
    } else {
        const std::size_t field = lower.find("content-length: ");
        const std::size_t length = field == std::string::npos ? 0 : std::stoul(lower.substr(field + 16));
        if (bytes.size() < at + length) return std::nullopt;
        response.body = bytes.substr(at, length);
        at += length;
    }
    bytes.erase(0, at);
    return response;
}

std::string get(std::string_view path) { return "GET " + std::string(path) + " HTTP/1.1\r\nHost: memory\r\n\r\n"; }

std::string post(std::string_view path, std::string_view body) {
    return "POST " + std::string(path) + " HTTP/1.1\r\nHost: memory\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + std::string(body);
}

std::string chunkedPost(std::string_view path, std::string_view body, std::size_t chunk) {
    std::string request =
        "POST " + std::string(path) + " HTTP/1.1\r\nHost: memory\r\nTransfer-Encoding: chunked\r\n\r\n";
    char size[32];
    for (std::size_t at = 0; at < body.size(); at += chunk) {
        const std::string_view part = body.substr(at, chunk);
        std::snprintf(size, sizeof size, "%zx\r\n", part.size());
        request += size;
        request.append(part);
        request += "\r\n";
    }
    return request + "0\r\n\r\n";
}

std::string pattern(std::size_t length) {
    std::string bytes(length, '\0');
    for (std::size_t i = 0; i < length; ++i)
        bytes[i] = static_cast<char>('a' + (i * 7 + i / 26) % 26);
    return bytes;
}

// The parameters: the loop's backend, and whether the connection speaks TLS.
class HttpConnectionTest : public ::testing::TestWithParam<MemoryVariant> {
protected:
    void SetUp() override { restart(); }
    void TearDown() override { shutDown(); }

    bool tls() const { return std::get<1>(GetParam()); }

    // A new client and App (with options, on the test's backend), serving the test's routes:
    //   /hello: "hello"; /path/*: the URL; /body (POST): the body's length and the body, read through onData;
    //   /big: a body of kBigBytes; /later: answered by answerLater() (onAborted noted); /upload (POST): refused
    //   with 413 and the end of the connection before its body is read.
    void restart(ServerOptions options = {}) {
        shutDown();
        options.backend = std::get<0>(GetParam());
        client_ = std::make_unique<MemoryClient>(tls());
        app_ = makeMemoryApp(tls(), options);
        requests_ = aborted_ = 0;
        received_.clear();
        later_ = nullptr;
        app_->get("/hello", [this](HttpResponse* res, HttpRequest*) {
            ++requests_;
            res->end("hello");
        });
        app_->get("/path/*", [this](HttpResponse* res, HttpRequest* req) {
            ++requests_;
            res->end(req->getUrl());
        });
        app_->post("/body", [this](HttpResponse* res, HttpRequest*) {
            ++requests_;
            auto body = std::make_shared<std::string>();
            res->onAborted([this] { ++aborted_; });
            res->onData([res, body](std::string_view chunk, bool isLast) {
                body->append(chunk);
                if (isLast) res->end(std::to_string(body->size()) + ":" + *body);
            });
        });
        app_->post("/upload", [this](HttpResponse* res, HttpRequest*) {
            ++requests_;
            res->writeStatus("413 Payload Too Large")->end("too large", true);
        });
        app_->get("/big", [this](HttpResponse* res, HttpRequest*) {
            ++requests_;
            res->end(pattern(kBigBytes));
        });
        app_->get("/later", [this](HttpResponse* res, HttpRequest*) {
            ++requests_;
            later_ = res;
            res->onAborted([this] {
                ++aborted_;
                later_ = nullptr;
            });
        });
    }

    void shutDown() {
        if (!app_) return;
        app_->close();
        client_->pump();
        app_.reset();
    }

    void connect() { ASSERT_TRUE(client_->connect(*app_)) << client_->tlsError(); }

    // Answers /later's pending response, unless it was aborted.
    void answerLater() {
        if (later_ != nullptr) std::exchange(later_, nullptr)->end("later");
    }

    // Sends bytes, runs the loop, and returns the whole responses that came back.
    std::vector<Response> exchange(std::string_view bytes) {
        EXPECT_TRUE(client_->send(bytes));
        client_->pump();
        return responses();
    }
    // The whole responses received so far (reading until the stream is quiet).
    std::vector<Response> responses() {
        received_ += client_->receive();
        std::vector<Response> taken;
        while (auto response = takeResponse(received_))
            taken.push_back(std::move(*response));
        return taken;
    }
    // Reads until n responses came or nothing moves any more.
    std::vector<Response> readResponses(std::size_t n) {
        std::vector<Response> all;
        for (int round = 0; round < 10'000 && all.size() < n; ++round) {
            const std::size_t unread = stream().unreadByClient();
            for (Response& response : responses())
                all.push_back(std::move(response));
            client_->pump();
            if (unread == 0 && stream().unreadByClient() == 0 && all.size() < n) break;
        }
        return all;
    }

    MemoryStream& stream() { return client_->stream(); }

    static constexpr std::size_t kBigBytes = 300'000;

    // Declared before the App: the client's stream outlives the socket made on it.
    std::unique_ptr<MemoryClient> client_;
    std::unique_ptr<App> app_;
    std::string received_;
    HttpResponse* later_ = nullptr;
    int requests_ = 0;
    int aborted_ = 0;
};

TEST_P(HttpConnectionTest, AGetIsAnsweredAndTheConnectionKeptAlive) {
    connect();
    for (int i = 0; i < 3; ++i) {
        auto answered = exchange(get("/hello"));
        ASSERT_EQ(answered.size(), 1u) << i;
        EXPECT_EQ(answered[0].status, 200);
        EXPECT_EQ(answered[0].body, "hello");
    }
    EXPECT_FALSE(stream().serverEndedWriting());
}

TEST_P(HttpConnectionTest, PipelinedRequestsAreAnsweredInOrderUnderEveryChunkSize) {
    connect();
    const std::string requests = get("/path/a") + post("/body", "xyz") + get("/path/bb") + get("/hello") +
                                 chunkedPost("/body", pattern(5000), 333) + get("/path/ccc");
    for (std::size_t chunk : {1u, 2u, 5u, 64u, 1000u, 1u << 20}) {
        SCOPED_TRACE(chunk);
        stream().setReadChunk(chunk);
        EXPECT_TRUE(client_->send(requests));
        const auto answered = readResponses(6);
        ASSERT_EQ(answered.size(), 6u);
        EXPECT_EQ(answered[0].body, "/path/a");
        EXPECT_EQ(answered[1].body, "3:xyz");
        EXPECT_EQ(answered[2].body, "/path/bb");
        EXPECT_EQ(answered[3].body, "hello");
        EXPECT_TRUE(answered[4].body == "5000:" + pattern(5000));
        EXPECT_EQ(answered[5].body, "/path/ccc");
    }
}

TEST_P(HttpConnectionTest, AMalformedRequestGets400AndTheServerEndsTheConnection) {
    connect();
    auto answered = exchange("GET / HTTP/1.1\r\nHost memory\r\n\r\n");
    ASSERT_EQ(answered.size(), 1u);
    EXPECT_EQ(answered[0].status, 400);
    EXPECT_TRUE(stream().serverEndedWriting());
    client_->stream().endWriting();
    client_->pump();
    EXPECT_TRUE(stream().serverClosed());
    EXPECT_EQ(requests_, 0);
}

// Issue 47: an answer that ends the connection while the client is still sending (a 413 for an upload) reaches the
// client. The rest of the body arrives after the answer is written, before the server would have closed: a close
// then would reset the connection, which destroys the answer in the client's receive buffer (the stream models
// that). The server reads and discards it instead, and closes after the client's FIN.
TEST_P(HttpConnectionTest, AnAnswerThatEndsTheConnectionReachesAClientStillSending) {
    connect();
    stream().setReadChunk(256);
    const std::string body(200'000, 'u');
    EXPECT_TRUE(client_->send(
        "POST /upload HTTP/1.1\r\nHost: memory\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body));
    client_->pump();
    const auto answered = responses();
    ASSERT_EQ(answered.size(), 1u);
    EXPECT_EQ(answered[0].status, 413);
    EXPECT_EQ(answered[0].body, "too large");
    EXPECT_FALSE(stream().serverReset());
    EXPECT_EQ(stream().unreadByServer(), 0u) << "the body is read and discarded as it comes";
    EXPECT_TRUE(stream().serverEndedWriting());
    EXPECT_FALSE(stream().serverClosed());
    // Raw bytes: over TLS the client has read the server's close_notify and sends no more records, but a client
    // still uploading would; the server discards them unread either way.
    stream().write("more of the body");
    stream().endWriting();
    client_->pump();
    EXPECT_TRUE(stream().serverClosed());
    EXPECT_FALSE(stream().serverReset());
    EXPECT_EQ(requests_, 1);
}

// The linger's bound: a client that never stops sending after the answer is cut off once it has sent
// Socket::kMaxLingerBytes more.
TEST_P(HttpConnectionTest, AClientThatNeverStopsSendingIsCutOffAtTheLingerBound) {
    connect();
    auto answered = exchange("POST /upload HTTP/1.1\r\nHost: memory\r\nContent-Length: 100000000\r\n\r\n");
    ASSERT_EQ(answered.size(), 1u);
    EXPECT_EQ(answered[0].status, 413);
    constexpr std::size_t kChunk = 64 * 1024;
    const std::string chunk(kChunk, 'u');
    std::size_t sent = 0;
    while (!stream().serverClosed() && sent <= 2 * Socket::kMaxLingerBytes) {
        stream().write(chunk);  // raw, as above
        client_->pump();
        sent += kChunk;
    }
    EXPECT_TRUE(stream().serverClosed());
    EXPECT_GT(sent, Socket::kMaxLingerBytes) << "closed before the bound";
    EXPECT_LE(sent, Socket::kMaxLingerBytes + kChunk);
}

// What the stream does not take waits in the connection, and leaves as the client reads.
TEST_P(HttpConnectionTest, AResponseLargerThanTheRoomArrivesWholeAsTheClientReads) {
    connect();
    stream().setRoom(16 * 1024);
    EXPECT_TRUE(client_->send(get("/big") + get("/hello")));
    const auto answered = readResponses(2);
    ASSERT_EQ(answered.size(), 2u);
    EXPECT_TRUE(answered[0].body == pattern(kBigBytes));
    EXPECT_EQ(answered[1].body, "hello");
}

TEST_P(HttpConnectionTest, ATryEndStreamFollowsTheClientsReading) {
    static constexpr std::uint64_t kTotal = 2'000'000;
    app_->get("/stream", [](HttpResponse* res, HttpRequest*) {
        static const std::string piece = pattern(64 * 1024);
        auto pump = [res] {
            for (;;) {
                const std::uint64_t offset = res->getWriteOffset();
                const std::size_t at = offset % piece.size();
                const std::size_t length =
                    static_cast<std::size_t>(std::min<std::uint64_t>(kTotal - offset, piece.size() - at));
                auto [ok, done] = res->tryEnd(std::string_view(piece).substr(at, length), kTotal);
                if (done || !ok) return;
            }
        };
        res->onAborted([] {});
        res->onWritable([pump](std::uint64_t) {
            pump();
            return true;
        });
        pump();
    });
    connect();
    stream().setRoom(20'000);
    EXPECT_TRUE(client_->send(get("/stream")));
    const auto answered = readResponses(1);
    ASSERT_EQ(answered.size(), 1u);
    ASSERT_EQ(answered[0].body.size(), kTotal);
    const std::string piece = pattern(64 * 1024);
    for (std::size_t at = 0; at < kTotal; at += piece.size())
        ASSERT_EQ(
            answered[0].body.compare(at, piece.size(), piece, 0, std::min<std::size_t>(piece.size(), kTotal - at)), 0)
            << at;
}

// A stream started outside the connection's callbacks, with no onWritable, ends by the write timeout once the
// client stops reading: over TLS too, where the room is the stream's and does not grow (on loopback the kernel's
// does, which is why the integration test of this runs over plain TCP only).
TEST_P(HttpConnectionTest, ATryEndStreamFromOutsideACallbackIsTimedOutWhenTheClientStopsReading) {
    ServerOptions options;
    options.sweepIntervalMs = 10;
    options.writeTimeoutMs = 50;
    restart(options);
    connect();
    stream().setRoom(30'000);
    EXPECT_TRUE(client_->send(get("/later")));
    client_->pump();
    ASSERT_NE(later_, nullptr);
    static const std::string piece = pattern(64 * 1024);
    HttpResponse* response = later_;
    later_ = nullptr;
    while (aborted_ == 0 && response->tryEnd(piece, 100'000'000).first) {
    }
    EXPECT_EQ(aborted_, 0);
    client_->pumpFor(400);
    EXPECT_EQ(aborted_, 1);
    EXPECT_TRUE(stream().serverClosed());
}

TEST_P(HttpConnectionTest, AClientThatGoesAwayAbortsThePendingResponseOnce) {
    for (const bool reset : {false, true}) {
        SCOPED_TRACE(reset ? "reset" : "FIN");
        restart();
        connect();
        exchange(get("/later"));
        ASSERT_NE(later_, nullptr);
        if (reset) {
            stream().reset();
        } else {
            stream().endWriting();
        }
        client_->pump();
        EXPECT_EQ(aborted_, 1);
        EXPECT_EQ(later_, nullptr);
        EXPECT_TRUE(stream().serverClosed());
    }
}

// The walk: one conversation (a GET, a POST with a body in pieces, a pipelined pair, a response answered later and
// one larger than the room), in which the Nth read, then the Nth write, of the server fails as on a reset
// connection, for every N the conversation has. Whatever N is, nothing crashes or leaks (ASan), the connection
// ends, every request that reached a handler was answered or aborted (once), and the responses that arrived are the
// first ones of the conversation, whole and in order.
class HttpConnectionFaultWalk : public HttpConnectionTest {
protected:
    std::vector<Response> converse() {
        stream().setReadChunk(100);
        stream().setRoom(32 * 1024);
        std::vector<Response> answered;
        auto collect = [&] {
            for (Response& response : responses())
                answered.push_back(std::move(response));
        };
        // A fault may end the handshake: the conversation goes on, and finds the connection closed.
        client_->connect(*app_);
        for (const std::string& step : {get("/hello"), post("/body", pattern(700)), get("/path/x") + get("/path/y"),
                                        get("/later"), get("/big")}) {
            client_->send(step);
            client_->pump();
            answerLater();
            client_->pump();
            collect();
        }
        for (int round = 0; round < 1000 && !stream().serverClosed() && answered.size() < 6; ++round) {
            client_->pump();
            collect();
        }
        readsBeforeFin_ = stream().receives();
        writesBeforeFin_ = stream().sends();
        closedBeforeFin_ = stream().serverClosed();
        stream().endWriting();
        client_->pump();
        collect();
        return answered;
    }
    // Where the conversation stood when the client sent its FIN.
    std::size_t readsBeforeFin_ = 0;
    std::size_t writesBeforeFin_ = 0;
    bool closedBeforeFin_ = false;
    void walk(bool writes, std::size_t calls, const std::vector<Response>& expected);
};

TEST_P(HttpConnectionFaultWalk, EveryFailedReadOrWriteEndsTheConnectionCleanly) {
    const std::vector<Response> expected = converse();
    ASSERT_EQ(expected.size(), 6u);
    EXPECT_EQ(expected[5].body.size(), kBigBytes);
    const std::size_t reads = stream().receives();
    const std::size_t writes = stream().sends();
    EXPECT_TRUE(stream().serverClosed());
    ASSERT_GT(reads, 5u);
    ASSERT_GT(writes, 5u);
    for (const bool failWrites : {false, true})
        walk(failWrites, failWrites ? writes : reads, expected);
}

void HttpConnectionFaultWalk::walk(bool writes, std::size_t calls, const std::vector<Response>& expected) {
    for (std::size_t nth = 1; nth <= calls; ++nth) {
        SCOPED_TRACE((writes ? "write " : "read ") + std::to_string(nth));
        restart();
        if (writes) {
            stream().failSend(nth, EPIPE);
        } else {
            stream().failReceive(nth, ECONNRESET);
        }
        const std::vector<Response> answered = converse();
        // A failed call ends the connection at once, not when the client goes.
        if (nth <= (writes ? writesBeforeFin_ : readsBeforeFin_)) {
            EXPECT_TRUE(closedBeforeFin_);
        }
        EXPECT_TRUE(stream().serverClosed());
        ASSERT_LE(answered.size(), expected.size());
        for (std::size_t i = 0; i < answered.size(); ++i) {
            EXPECT_EQ(answered[i].status, expected[i].status) << i;
            EXPECT_TRUE(answered[i].body == expected[i].body) << i;
        }
        // Only /later and /body can be left pending; each that was is aborted exactly once.
        EXPECT_LE(aborted_, 2);
        EXPECT_EQ(later_, nullptr);
        EXPECT_EQ(app_->connectionCount(), 0u);
    }
}

INSTANTIATE_TEST_SUITE_P(Variants, HttpConnectionTest, memoryVariants(), memoryVariantName);
INSTANTIATE_TEST_SUITE_P(Variants, HttpConnectionFaultWalk, memoryVariants(), memoryVariantName);

}  // namespace
}  // namespace loopwire::test
