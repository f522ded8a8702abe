// App::compress (issue 44): handlers' responses coded on the fly by the request's Accept-Encoding, for end(),
// write() and tryEnd(), with every rule that keeps a response plain, over both loop backends, plain and TLS. Bodies
// are decoded with each codec's reference decoder.
#include "../ContentDecoders.h"
#include "Fixture.h"
#include "compress/ResponseCompressor.h"

#include <loopwire/App.h>
#include <loopwire/ResponseCompressionOptions.h>

#include <string>

namespace loopwire::test {
namespace {

using compress::ContentCoding;

// Text that codes well and is not one repeated byte: JSON lines.
std::string jsonLines(std::size_t bytes) {
    std::string text;
    for (int i = 0; text.size() < bytes; ++i)
        text += "{\"id\":" + std::to_string(i) + ",\"name\":\"item " + std::to_string(i * 7 % 13) + "\"}\n";
    text.resize(bytes);
    return text;
}

class ResponseCompression : public BackendTest {
protected:
    ResponseCompression() : json_(jsonLines(20000)) {}

    // The App's routes: /api/* is compressed (with options), /plain/* is not.
    void serveApi(ResponseCompressionOptions options = {}) {
        serve([this, options](App& app) {
            std::string error;
            EXPECT_TRUE(app.tryCompress("/api/*", options, error)) << error;
            const std::string* json = &json_;
            app.get("/api/json", [json](HttpResponse* res, HttpRequest*) {
                res->writeHeader("Content-Type", "application/json")->writeHeader("ETag", "\"v1\"")->end(*json);
            });
            app.get("/api/small", [](HttpResponse* res, HttpRequest*) {
                res->writeHeader("Content-Type", "application/json")->end("{\"small\":true}");
            });
            app.get("/api/image", [json](HttpResponse* res, HttpRequest*) {
                res->writeHeader("Content-Type", "image/png")->end(*json);
            });
            app.get("/api/untyped", [json](HttpResponse* res, HttpRequest*) { res->end(*json); });
            app.get("/api/coded", [json](HttpResponse* res, HttpRequest*) {
                res->writeHeader("Content-Type", "text/plain")->writeHeader("Content-Encoding", "identity")->end(*json);
            });
            app.get("/api/partial", [json](HttpResponse* res, HttpRequest*) {
                res->writeStatus("206 Partial Content")
                    ->writeHeader("Content-Type", "text/plain")
                    ->writeHeader("Content-Range", "bytes 0-99/20000")
                    ->end(std::string_view(*json).substr(0, 100));
            });
            app.get("/api/not-modified", [](HttpResponse* res, HttpRequest*) {
                res->writeStatus("304 Not Modified")->writeHeader("Content-Type", "text/html")->endWithoutBody();
            });
            app.get("/api/stream", [json](HttpResponse* res, HttpRequest*) {
                res->writeHeader("Content-Type", "text/plain");
                for (std::size_t at = 0; at < json->size(); at += 3000)
                    res->write(std::string_view(*json).substr(at, 3000));
                res->end();
            });
            app.get("/api/sized", [json](HttpResponse* res, HttpRequest*) {
                res->writeHeader("Content-Type", "text/plain");
                const auto total = static_cast<std::uint64_t>(json->size());
                auto [ok, done] = res->tryEnd(std::string_view(*json).substr(0, 5000), total);
                EXPECT_TRUE(ok);
                EXPECT_FALSE(done);
                EXPECT_EQ(res->getWriteOffset(), 5000u);
                std::tie(ok, done) = res->tryEnd(std::string_view(*json).substr(5000), total);
                EXPECT_TRUE(done);
            });
            app.get("/api/varied", [json](HttpResponse* res, HttpRequest*) {
                res->writeHeader("Content-Type", "application/json")
                    ->writeHeader("Vary", "Origin, accept-encoding")
                    ->end(*json);
            });
            app.get("/plain/json", [json](HttpResponse* res, HttpRequest*) {
                res->writeHeader("Content-Type", "application/json")->end(*json);
            });
        });
    }
    // Every path compressed; /big sends body in 64 KiB tryEnd pieces resumed from onWritable.
    void serveBig(std::shared_ptr<std::string> body) {
        serve([body](App& app) {
            app.compress("/*");
            app.get("/big", [body](HttpResponse* res, HttpRequest*) {
                res->writeHeader("Content-Type", "text/plain");
                res->onAborted([] {});
                auto pump = [body](HttpResponse* response) {
                    while (true) {
                        const std::uint64_t offset = response->getWriteOffset();
                        const std::size_t piece = std::min<std::size_t>(64 * 1024, body->size() - offset);
                        auto [ok, done] = response->tryEnd(std::string_view(*body).substr(offset, piece), body->size());
                        if (done) return true;
                        if (!ok) return false;
                    }
                };
                if (!pump(res)) res->onWritable([res, pump](std::uint64_t) { return pump(res); });
            });
        });
    }
    std::optional<Response> get(const std::string& target, const std::string& acceptEncoding) {
        const std::string field = acceptEncoding.empty() ? "" : "Accept-Encoding: " + acceptEncoding + "\r\n";
        return fetch(port(), "GET " + target + " HTTP/1.1\r\nHost: x\r\n" + field + "\r\n");
    }
    void expectCoded(const std::optional<Response>& response, ContentCoding coding, const std::string& token) {
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status, 200);
        EXPECT_EQ(response->header("content-encoding"), token);
        EXPECT_EQ(response->header("vary"), "Accept-Encoding");
        std::optional<std::string> decoded = decode(coding, response->body);
        ASSERT_TRUE(decoded) << token;
        EXPECT_TRUE(*decoded == json_) << token;
        EXPECT_LT(response->body.size(), json_.size() / 3) << token;
    }
    void expectPlain(const std::optional<Response>& response, bool vary) {
        ASSERT_TRUE(response);
        EXPECT_FALSE(response->hasHeader("content-encoding"));
        EXPECT_EQ(response->hasHeader("vary"), vary);
    }

    std::string json_;
};
LW_INSTANTIATE_TRANSPORTS(ResponseCompression);

TEST_P(ResponseCompression, EndIsCodedByTheAcceptedCodingWithItsWeights) {
    serveApi();
    auto gzip = get("/api/json", "gzip");
    expectCoded(gzip, ContentCoding::Gzip, "gzip");
    EXPECT_EQ(gzip->header("content-length"), std::to_string(gzip->body.size()));
    // A strong ETag the handler wrote is weak on a coded body.
    EXPECT_EQ(gzip->header("etag"), "W/\"v1\"");
    // The server's preference breaks ties (zstd, then brotli); the client's weights come before it.
    expectCoded(get("/api/json", "gzip, deflate, br, zstd"), ContentCoding::Zstd, "zstd");
    expectCoded(get("/api/json", "gzip, deflate, br"), ContentCoding::Brotli, "br");
    expectCoded(get("/api/json", "zstd;q=0.5, br"), ContentCoding::Brotli, "br");
    expectCoded(get("/api/json", "br;q=0, gzip"), ContentCoding::Gzip, "gzip");
}

TEST_P(ResponseCompression, TheRulesOptionsChooseTheCodingsAndTheirOrder) {
    ResponseCompressionOptions options;
    options.codings = {"gzip", "br"};
    options.gzipLevel = 1;
    serveApi(options);
    expectCoded(get("/api/json", "br, gzip, zstd"), ContentCoding::Gzip, "gzip");
    expectCoded(get("/api/json", "zstd, br;q=0.9"), ContentCoding::Brotli, "br");
    expectPlain(get("/api/json", "zstd"), true);
}

TEST_P(ResponseCompression, WhatIsNotCodedGoesOutAsWritten) {
    serveApi();
    // No Accept-Encoding, or one that accepts nothing offered: plain, but Vary all the same.
    for (const std::string accept : {"", "identity", "deflate", "gzip;q=0"}) {
        auto response = get("/api/json", accept);
        expectPlain(response, true);
        EXPECT_TRUE(response->body == json_) << accept;
        EXPECT_EQ(response->header("etag"), "\"v1\"") << accept;
    }
    // Below minBytes: plain, with Vary.
    auto small = get("/api/small", "gzip");
    expectPlain(small, true);
    EXPECT_EQ(small->body, "{\"small\":true}");
    // A type that does not code well, or none: plain, without Vary.
    expectPlain(get("/api/image", "gzip"), false);
    expectPlain(get("/api/untyped", "gzip"), false);
    // The handler's own Content-Encoding, and a 206, are left alone.
    auto coded = get("/api/coded", "gzip");
    ASSERT_TRUE(coded);
    EXPECT_EQ(coded->header("content-encoding"), "identity");
    EXPECT_TRUE(coded->body == json_);
    auto partial = get("/api/partial", "gzip");
    ASSERT_TRUE(partial);
    EXPECT_EQ(partial->status, 206);
    EXPECT_FALSE(partial->hasHeader("content-encoding"));
    EXPECT_EQ(partial->body.size(), 100u);
    // A 304 carries Vary and no body.
    auto notModified = get("/api/not-modified", "gzip");
    ASSERT_TRUE(notModified);
    EXPECT_EQ(notModified->status, 304);
    EXPECT_EQ(notModified->header("vary"), "Accept-Encoding");
    // A route no rule names.
    expectPlain(get("/plain/json", "gzip"), false);
    // A handler's Vary that names Accept-Encoding is not repeated.
    auto varied = get("/api/varied", "gzip");
    ASSERT_TRUE(varied);
    EXPECT_EQ(varied->header("content-encoding"), "gzip");
    std::size_t varyFields = 0;
    for (const auto& [name, value] : varied->headers)
        varyFields += name == "vary" ? 1 : 0;
    EXPECT_EQ(varyFields, 1u);
    EXPECT_EQ(varied->header("vary"), "Origin, accept-encoding");
}

TEST_P(ResponseCompression, HeadGetsThePlainLengthAndTheConnectionGoesOn) {
    serveApi();
    TestClient client(port());
    client.send(
        "HEAD /api/json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"
        "GET /api/json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"
        "GET /api/small HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n");
    auto head = client.readResponse(true);
    ASSERT_TRUE(head);
    EXPECT_EQ(head->header("content-length"), std::to_string(json_.size()));
    EXPECT_FALSE(head->hasHeader("content-encoding"));
    auto get = client.readResponse();
    expectCoded(get, ContentCoding::Gzip, "gzip");
    auto small = client.readResponse();
    ASSERT_TRUE(small);
    EXPECT_EQ(small->body, "{\"small\":true}");
}

TEST_P(ResponseCompression, WritesAreStreamedCodedInChunks) {
    serveApi();
    for (const auto& [token, coding] : {std::pair<std::string, ContentCoding>{"gzip", ContentCoding::Gzip},
                                        {"br", ContentCoding::Brotli},
                                        {"zstd", ContentCoding::Zstd}}) {
        auto response = get("/api/stream", token);
        expectCoded(response, coding, token);
        EXPECT_EQ(response->header("transfer-encoding"), "chunked");
        EXPECT_FALSE(response->hasHeader("content-length"));
    }
    // HTTP/1.0: no chunks; the coded body runs until the connection closes.
    auto old = fetch(port(), "GET /api/stream HTTP/1.0\r\nAccept-Encoding: gzip\r\n\r\n");
    expectCoded(old, ContentCoding::Gzip, "gzip");
}

TEST_P(ResponseCompression, ASizedBodyIsCodedWhateverPiecesItComesIn) {
    serveApi();
    auto response = get("/api/sized", "zstd");
    expectCoded(response, ContentCoding::Zstd, "zstd");
    EXPECT_EQ(response->header("transfer-encoding"), "chunked");
    auto plain = get("/api/sized", "");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->header("content-length"), std::to_string(json_.size()));
    EXPECT_TRUE(plain->body == json_);
}

TEST_P(ResponseCompression, ALargeStreamToASlowReaderArrivesWhole) {
    // 8 MiB in 64 KiB tryEnd pieces resumed from onWritable, read through a small receive buffer.
    auto body = std::make_shared<std::string>(jsonLines(8 * 1024 * 1024));
    serveBig(body);
    TestClient client(port());
    client.setReceiveBuffer(16 * 1024);
    client.send("GET /big HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n");
    auto response = client.readResponse(false, std::chrono::seconds(30));
    ASSERT_TRUE(response);
    EXPECT_EQ(response->header("content-encoding"), "gzip");
    std::optional<std::string> decoded = gunzip(response->body);
    ASSERT_TRUE(decoded);
    EXPECT_TRUE(*decoded == *body);
}

TEST_P(ResponseCompression, AClientLeavingAStreamMidwayLeavesTheServerCoding) {
    // A coded stream abandoned by its client: its compressor goes back to the pool as the connection closes (ASan
    // and LeakSanitizer watch), and the next responses are coded as before.
    auto body = std::make_shared<std::string>(jsonLines(4 * 1024 * 1024));
    serveBig(body);
    for (int i = 0; i < 3; ++i) {
        TestClient client(port());
        client.setReceiveBuffer(8 * 1024);
        client.send("GET /big HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n");
        EXPECT_FALSE(client.readBytes(4096).empty());
    }
    TestClient client(port());
    client.send("GET /big HTTP/1.1\r\nHost: x\r\nAccept-Encoding: zstd\r\n\r\n");
    auto response = client.readResponse(false, std::chrono::seconds(30));
    ASSERT_TRUE(response);
    EXPECT_EQ(response->header("content-encoding"), "zstd");
    std::optional<std::string> decoded = unzstd(response->body);
    ASSERT_TRUE(decoded);
    EXPECT_TRUE(*decoded == *body);
}

TEST_P(ResponseCompression, BadRulesAreRefusedWithTheirReason) {
    serve([](App& app) {
        std::string error;
        ResponseCompressionOptions options;
        options.codings = {"deflate"};
        EXPECT_FALSE(app.tryCompress("/a/*", options, error));
        EXPECT_EQ(error, "compress: codings: \"deflate\" is not one of \"br\", \"zstd\", \"gzip\"");
        options = {};
        options.gzipLevel = 10;
        EXPECT_FALSE(app.tryCompress("/a/*", options, error));
        EXPECT_EQ(error, "compress: the gzip level must be from 1 to 9");
        options = {};
        options.brotliLevel = -1;
        EXPECT_FALSE(app.tryCompress("/a/*", options, error));
        EXPECT_EQ(error, "compress: the br level must be from 0 to 11");
        EXPECT_FALSE(app.tryCompress("no-slash", {}, error));
        EXPECT_EQ(error, "compress: \"no-slash\" is not a route pattern");
        EXPECT_TRUE(app.tryCompress("/a/*", {}, error)) << error;
        EXPECT_FALSE(app.tryCompress("/a/*", {}, error));
        EXPECT_EQ(error, "compress: \"/a/*\" has a rule already");
        for (std::size_t i = 1; i < compress::ResponseCompressor::kMaxRules; ++i)
            EXPECT_TRUE(app.tryCompress("/r" + std::to_string(i), {}, error)) << error;
        EXPECT_FALSE(app.tryCompress("/one-too-many", {}, error));
        EXPECT_EQ(error, "compress: more than 64 patterns");
    });
}

}  // namespace
}  // namespace loopwire::test
