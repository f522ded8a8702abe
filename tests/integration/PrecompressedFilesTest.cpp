// App::serveStatic's precompressed variants (issue 44): file.br, file.zst and file.gz beside a file are served to
// the requests that accept their coding, with Content-Encoding, Vary: Accept-Encoding and their own ETag; never to a
// Range request; never when the option is off. On both loop backends, plain and TLS.
#include "Fixture.h"
#include "TemporaryFolder.h"

#include <loopwire/App.h>

#include <chrono>
#include <string>
#include <thread>

namespace loopwire::test {
namespace {

class PrecompressedFiles : public BackendTest {
protected:
    PrecompressedFiles() {
        // The variants' bytes need not be real brotli or gzip: the server never reads them, and distinct text shows
        // which one was sent.
        folder_.write("app.js", "console.log('plain');");
        folder_.write("app.js.br", "BROTLI-BYTES");
        folder_.write("app.js.zst", "ZSTD-BYTES");
        folder_.write("app.js.gz", "GZIP-BYTES");
        folder_.write("only-gzip.css", "body{}");
        folder_.write("only-gzip.css.gz", "GZ-CSS");
        folder_.write("plain.txt", "no variants");
    }
    void serveFolder(StaticFileOptions options = {}) {
        serve([this, options](App& app) { app.serveStatic("/", folder_.path(), options); });
    }
    std::optional<Response> get(const std::string& target, const std::string& fields = {}) {
        return fetch(port(), "GET " + target + " HTTP/1.1\r\nHost: x\r\n" + fields + "\r\n");
    }

    TemporaryFolder folder_;
};
LW_INSTANTIATE_TRANSPORTS(PrecompressedFiles);

TEST_P(PrecompressedFiles, TheCodingTheClientPrefersIsSentWithItsOwnValidators) {
    serveFolder();
    auto plain = get("/app.js");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->body, "console.log('plain');");
    EXPECT_FALSE(plain->hasHeader("content-encoding"));
    EXPECT_EQ(plain->header("vary"), "Accept-Encoding");
    struct Case {
        std::string acceptEncoding;
        std::string coding;
        std::string body;
    };
    const Case cases[] = {
        {"gzip, deflate, br, zstd", "br", "BROTLI-BYTES"},  // alike: the server's order, brotli first
        {"gzip", "gzip", "GZIP-BYTES"},
        {"br;q=0.5, gzip", "gzip", "GZIP-BYTES"},
        {"zstd, gzip;q=0.9", "zstd", "ZSTD-BYTES"},
        {"*", "br", "BROTLI-BYTES"},
        {"x-gzip", "gzip", "GZIP-BYTES"},
    };
    for (const Case& each : cases) {
        auto response = get("/app.js", "Accept-Encoding: " + each.acceptEncoding + "\r\n");
        ASSERT_TRUE(response) << each.acceptEncoding;
        EXPECT_EQ(response->status, 200) << each.acceptEncoding;
        EXPECT_EQ(response->header("content-encoding"), each.coding) << each.acceptEncoding;
        EXPECT_EQ(response->body, each.body) << each.acceptEncoding;
        EXPECT_EQ(response->header("content-length"), std::to_string(each.body.size())) << each.acceptEncoding;
        EXPECT_EQ(response->header("content-type"), "text/javascript; charset=utf-8") << each.acceptEncoding;
        EXPECT_EQ(response->header("vary"), "Accept-Encoding") << each.acceptEncoding;
        // Never the plain file's strong entity-tag on coded bytes.
        EXPECT_NE(response->header("etag"), plain->header("etag")) << each.acceptEncoding;
    }
    for (const std::string& none : {std::string("identity"), std::string("deflate"), std::string("br;q=0, gzip;q=0")}) {
        auto response = get("/app.js", "Accept-Encoding: " + none + "\r\n");
        ASSERT_TRUE(response) << none;
        EXPECT_FALSE(response->hasHeader("content-encoding")) << none;
        EXPECT_EQ(response->body, "console.log('plain');") << none;
    }
}

TEST_P(PrecompressedFiles, OnlyTheVariantsThatExistAreOffered) {
    serveFolder();
    auto css = get("/only-gzip.css", "Accept-Encoding: br, zstd, gzip\r\n");
    ASSERT_TRUE(css);
    EXPECT_EQ(css->header("content-encoding"), "gzip");
    EXPECT_EQ(css->body, "GZ-CSS");
    auto brOnly = get("/only-gzip.css", "Accept-Encoding: br\r\n");
    ASSERT_TRUE(brOnly);
    EXPECT_FALSE(brOnly->hasHeader("content-encoding"));
    EXPECT_EQ(brOnly->body, "body{}");
    // A file without variants does not vary.
    auto text = get("/plain.txt", "Accept-Encoding: br, gzip\r\n");
    ASSERT_TRUE(text);
    EXPECT_FALSE(text->hasHeader("vary"));
    EXPECT_FALSE(text->hasHeader("content-encoding"));
}

TEST_P(PrecompressedFiles, ConditionalRequestsUseTheVariantsOwnEntityTag) {
    serveFolder();
    auto gzip = get("/app.js", "Accept-Encoding: gzip\r\n");
    ASSERT_TRUE(gzip);
    auto notModified = get("/app.js", "Accept-Encoding: gzip\r\nIf-None-Match: " + gzip->header("etag") + "\r\n");
    ASSERT_TRUE(notModified);
    EXPECT_EQ(notModified->status, 304);
    EXPECT_EQ(notModified->header("vary"), "Accept-Encoding");
    EXPECT_EQ(notModified->header("etag"), gzip->header("etag"));
    // The gzip variant's tag does not validate the brotli one.
    auto other = get("/app.js", "Accept-Encoding: br\r\nIf-None-Match: " + gzip->header("etag") + "\r\n");
    ASSERT_TRUE(other);
    EXPECT_EQ(other->status, 200);
    EXPECT_EQ(other->body, "BROTLI-BYTES");
}

TEST_P(PrecompressedFiles, ARangeRequestGetsThePlainFile) {
    serveFolder();
    auto response = get("/app.js", "Accept-Encoding: br, gzip\r\nRange: bytes=0-6\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 206);
    EXPECT_FALSE(response->hasHeader("content-encoding"));
    EXPECT_EQ(response->body, "console");
    EXPECT_EQ(response->header("vary"), "Accept-Encoding");
}

TEST_P(PrecompressedFiles, HeadReportsTheVariantsLength) {
    serveFolder();
    TestClient client(port());
    client.send("HEAD /app.js HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br\r\n\r\n");
    auto head = client.readResponse(true);
    ASSERT_TRUE(head);
    EXPECT_EQ(head->header("content-encoding"), "br");
    EXPECT_EQ(head->header("content-length"), "12");
}

TEST_P(PrecompressedFiles, TheOptionOffServesThePlainFileOnly) {
    StaticFileOptions options;
    options.precompressed = false;
    serveFolder(options);
    auto response = get("/app.js", "Accept-Encoding: br, gzip\r\n");
    ASSERT_TRUE(response);
    EXPECT_FALSE(response->hasHeader("content-encoding"));
    EXPECT_FALSE(response->hasHeader("vary"));
    EXPECT_EQ(response->body, "console.log('plain');");
}

TEST_P(PrecompressedFiles, AVariantLargerThanTheCacheIsStreamedFromItsOwnFile) {
    // A big bundle and its .gz, neither kept in memory: the variant is read from its file per response, with its
    // own validators, its length in a HEAD, and never for a Range request.
    std::string plain(600 * 1024, '\0');
    std::string coded(300 * 1024, '\0');
    for (std::size_t i = 0; i < plain.size(); ++i)
        plain[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
    for (std::size_t i = 0; i < coded.size(); ++i)
        coded[i] = static_cast<char>('A' + (i * 11 + i / 1000) % 26);
    folder_.write("huge.js", plain);
    folder_.write("huge.js.gz", coded);
    serveFolder();
    TestClient client(port());
    client.send(
        "GET /huge.js HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"
        "HEAD /huge.js HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"
        "GET /huge.js HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nRange: bytes=0-9\r\n\r\n"
        "GET /huge.js HTTP/1.1\r\nHost: x\r\n\r\n");
    auto response = client.readResponse(false, std::chrono::seconds(10));
    ASSERT_TRUE(response);
    EXPECT_EQ(response->header("content-encoding"), "gzip");
    EXPECT_EQ(response->header("vary"), "Accept-Encoding");
    EXPECT_EQ(response->header("content-length"), std::to_string(coded.size()));
    EXPECT_TRUE(response->body == coded);
    auto head = client.readResponse(true);
    ASSERT_TRUE(head);
    EXPECT_EQ(head->header("content-encoding"), "gzip");
    EXPECT_EQ(head->header("content-length"), std::to_string(coded.size()));
    EXPECT_EQ(head->header("etag"), response->header("etag"));
    auto range = client.readResponse();
    ASSERT_TRUE(range);
    EXPECT_EQ(range->status, 206);
    EXPECT_FALSE(range->hasHeader("content-encoding"));
    EXPECT_EQ(range->body, plain.substr(0, 10));
    auto identity = client.readResponse(false, std::chrono::seconds(10));
    ASSERT_TRUE(identity);
    EXPECT_FALSE(identity->hasHeader("content-encoding"));
    EXPECT_NE(identity->header("etag"), response->header("etag"));
    EXPECT_TRUE(identity->body == plain);
}

TEST_P(PrecompressedFiles, ALargeVariantReplacedSinceItsCheckIsNeverServedForTheOldOne) {
    folder_.write("huge.js", std::string(600 * 1024, 'j'));
    folder_.write("huge.js.gz", std::string(300 * 1024, 'g'));
    serveFolder();
    auto first = get("/huge.js", "Accept-Encoding: gzip\r\n");
    ASSERT_TRUE(first);
    ASSERT_EQ(first->header("content-encoding"), "gzip");
    // Replaced by a rename within the revalidation interval: the entry still describes the old sibling, whose
    // validators must not go out with the new bytes, so the plain file answers until the entry is checked again.
    folder_.write("huge.js.gz.new", std::string(200 * 1024, 'n'));
    ASSERT_EQ(::rename((folder_.path() + "/huge.js.gz.new").c_str(), (folder_.path() + "/huge.js.gz").c_str()), 0);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    bool sawNew = false;
    while (!sawNew && std::chrono::steady_clock::now() < until) {
        auto response = get("/huge.js", "Accept-Encoding: gzip\r\n");
        ASSERT_TRUE(response);
        if (response->hasHeader("content-encoding")) {
            // Coded: the new sibling whole, under its own entity-tag, or the old one would have been a torn mix.
            ASSERT_EQ(response->body, std::string(200 * 1024, 'n'));
            EXPECT_NE(response->header("etag"), first->header("etag"));
            sawNew = true;
        } else {
            EXPECT_EQ(response->body, std::string(600 * 1024, 'j'));
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    EXPECT_TRUE(sawNew);
}

TEST_P(PrecompressedFiles, AVariantAddedOrRemovedLaterIsSeenWithinTheRevalidationInterval) {
    serveFolder();
    auto before = get("/plain.txt", "Accept-Encoding: gzip\r\n");
    ASSERT_TRUE(before);
    ASSERT_FALSE(before->hasHeader("content-encoding"));
    folder_.write("plain.txt.gz", "NEW-GZ");
    auto waitFor = [&](bool coded) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (std::chrono::steady_clock::now() < until) {
            auto response = get("/plain.txt", "Accept-Encoding: gzip\r\n");
            if (response && response->hasHeader("content-encoding") == coded) {
                return coded ? response->body == "NEW-GZ" : response->body == "no variants";
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return false;
    };
    EXPECT_TRUE(waitFor(true));
    ASSERT_EQ(::unlink((folder_.path() + "/plain.txt.gz").c_str()), 0);
    EXPECT_TRUE(waitFor(false));
}

}  // namespace
}  // namespace loopwire::test
