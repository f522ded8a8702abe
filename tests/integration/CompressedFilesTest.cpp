// App::serveStatic's compression (issue 44): compressible files kept in the cache are compressed once, in the
// background, with brotli, zstd and gzip; each variant decodes to the file with its codec's reference decoder, carries
// a weak entity-tag of its own and Vary; a precompressed sibling wins over a variant made here; images, small files
// and compress = false are never compressed. Both loop backends, plain and TLS.
#include "../ContentDecoders.h"
#include "Fixture.h"
#include "TemporaryFolder.h"
#include "static/StaticMount.h"

#include <loopwire/App.h>

#include <chrono>
#include <string>
#include <thread>

namespace loopwire::test {
namespace {

std::string scriptText(std::size_t bytes) {
    std::string text;
    for (int i = 0; text.size() < bytes; ++i) {
        text += "export function handler" + std::to_string(i % 97) + "(request) { return request.url + '" +
                std::to_string(i) + "'; }\n";
    }
    text.resize(bytes);
    return text;
}

class CompressedFiles : public BackendTest {
protected:
    CompressedFiles() {
        script_ = scriptText(20 * 1024);
        folder_.write("site.js", script_);
        folder_.write("both.js", script_);
        folder_.write("both.js.gz", "SIBLING-GZ");
        std::string image(20 * 1024, '\0');
        for (std::size_t i = 0; i < image.size(); ++i)
            image[i] = static_cast<char>(i % 7);
        folder_.write("logo.png", image);
        folder_.write("small.css", "body { margin: 0 }");
    }
    void serveFolder(StaticFileOptions options = {}) {
        serve([this, options](App& app) { app.serveStatic("/", folder_.path(), options); });
    }
    std::optional<Response> get(const std::string& target, const std::string& fields = {}) {
        return fetch(port(), "GET " + target + " HTTP/1.1\r\nHost: x\r\n" + fields + "\r\n");
    }
    // The first answer to target for acceptEncoding that is coded as coding, within a deadline (variants are made
    // in the background).
    std::optional<Response> waitForCoding(const std::string& target, const std::string& acceptEncoding,
                                          const std::string& coding) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (std::chrono::steady_clock::now() < until) {
            auto response = get(target, "Accept-Encoding: " + acceptEncoding + "\r\n");
            if (response && response->header("content-encoding") == coding) return response;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return std::nullopt;
    }

    TemporaryFolder folder_;
    std::string script_;
};
LW_INSTANTIATE_TRANSPORTS(CompressedFiles);

TEST_P(CompressedFiles, ACompressibleFileGetsEachCodingMadeInTheBackground) {
    serveFolder();
    auto plain = get("/site.js");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->body, script_);
    EXPECT_EQ(plain->header("vary"), "Accept-Encoding");
    struct Case {
        const char* token;
        compress::ContentCoding coding;
    };
    for (const Case& each : {Case{"br", compress::ContentCoding::Brotli}, Case{"zstd", compress::ContentCoding::Zstd},
                             Case{"gzip", compress::ContentCoding::Gzip}}) {
        auto coded = waitForCoding("/site.js", each.token, each.token);
        ASSERT_TRUE(coded) << each.token;
        EXPECT_LT(coded->body.size(), script_.size() / 3) << each.token;
        EXPECT_EQ(coded->header("content-length"), std::to_string(coded->body.size())) << each.token;
        EXPECT_EQ(coded->header("vary"), "Accept-Encoding") << each.token;
        EXPECT_EQ(coded->header("content-type"), "text/javascript; charset=utf-8") << each.token;
        auto decoded = decode(each.coding, coded->body);
        ASSERT_TRUE(decoded) << each.token;
        EXPECT_TRUE(*decoded == script_) << each.token;
        // A weak tag of its own, never the plain file's strong one; and it validates that variant.
        const std::string etag = coded->header("etag");
        EXPECT_TRUE(etag.starts_with("W/\"")) << etag;
        EXPECT_NE(etag, plain->header("etag"));
        auto notModified =
            get("/site.js", "Accept-Encoding: " + std::string(each.token) + "\r\nIf-None-Match: " + etag + "\r\n");
        ASSERT_TRUE(notModified);
        EXPECT_EQ(notModified->status, 304) << each.token;
    }
    // Alike weights go to brotli.
    auto preferred = get("/site.js", "Accept-Encoding: gzip, deflate, br, zstd\r\n");
    ASSERT_TRUE(preferred);
    EXPECT_EQ(preferred->header("content-encoding"), "br");
}

TEST_P(CompressedFiles, AFileLargerThanTheCacheGetsVariantsReadByTheWorker) {
    // 1.5 MiB of script: streamed plain (not cached), its variants made from the file by the worker (brotli at the
    // large-file level) and kept in memory; a Range request still gets the plain bytes.
    const std::string big = scriptText(1536 * 1024);
    folder_.write("bundle.js", big);
    serveFolder();
    auto plain = get("/bundle.js");
    ASSERT_TRUE(plain);
    EXPECT_TRUE(plain->body == big);
    EXPECT_EQ(plain->header("vary"), "Accept-Encoding");
    for (const auto& [token, coding] :
         {std::pair<std::string, compress::ContentCoding>{"br", compress::ContentCoding::Brotli},
          {"gzip", compress::ContentCoding::Gzip}}) {
        TestClient client(port());
        std::optional<Response> coded;
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (std::chrono::steady_clock::now() < until) {
            client.send("GET /bundle.js HTTP/1.1\r\nHost: x\r\nAccept-Encoding: " + token + "\r\n\r\n");
            coded = client.readResponse(false, std::chrono::seconds(10));
            ASSERT_TRUE(coded) << token;
            if (coded->header("content-encoding") == token) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        ASSERT_EQ(coded->header("content-encoding"), token);
        EXPECT_LT(coded->body.size(), big.size() / 3) << token;
        auto decoded = decode(coding, coded->body);
        ASSERT_TRUE(decoded) << token;
        EXPECT_TRUE(*decoded == big) << token;
    }
    auto range = get("/bundle.js", "Accept-Encoding: br\r\nRange: bytes=100-199\r\n");
    ASSERT_TRUE(range);
    EXPECT_EQ(range->status, 206);
    EXPECT_EQ(range->body, big.substr(100, 100));
}

TEST_P(CompressedFiles, AFileLargerThanTheCompressionLimitStaysPlain) {
    folder_.write("huge.js", scriptText(files::StaticMount::kMaxCompressedFileBytes + 1));
    serveFolder();
    auto first = get("/huge.js", "Accept-Encoding: gzip\r\n");
    ASSERT_TRUE(first);
    EXPECT_FALSE(first->hasHeader("content-encoding"));
    EXPECT_FALSE(first->hasHeader("vary"));
}

TEST_P(CompressedFiles, APrecompressedSiblingWinsOverAVariantMadeHere) {
    serveFolder();
    auto brotli = waitForCoding("/both.js", "br", "br");
    ASSERT_TRUE(brotli);
    auto gzip = get("/both.js", "Accept-Encoding: gzip\r\n");
    ASSERT_TRUE(gzip);
    EXPECT_EQ(gzip->header("content-encoding"), "gzip");
    EXPECT_EQ(gzip->body, "SIBLING-GZ");
}

TEST_P(CompressedFiles, ImagesSmallFilesAndRangesAreNeverCompressed) {
    serveFolder();
    // Give the worker time to make what it would make: the script's variants show it has run.
    ASSERT_TRUE(waitForCoding("/site.js", "gzip", "gzip"));
    auto image = get("/logo.png", "Accept-Encoding: br, gzip\r\n");
    ASSERT_TRUE(image);
    EXPECT_FALSE(image->hasHeader("content-encoding"));
    EXPECT_FALSE(image->hasHeader("vary"));
    auto small = get("/small.css", "Accept-Encoding: br, gzip\r\n");
    ASSERT_TRUE(small);
    EXPECT_FALSE(small->hasHeader("content-encoding"));
    auto range = get("/site.js", "Accept-Encoding: br, gzip\r\nRange: bytes=0-9\r\n");
    ASSERT_TRUE(range);
    EXPECT_EQ(range->status, 206);
    EXPECT_FALSE(range->hasHeader("content-encoding"));
    EXPECT_EQ(range->body, script_.substr(0, 10));
}

TEST_P(CompressedFiles, CompressFalseServesThePlainFileWithoutVary) {
    StaticFileOptions options;
    options.compress = false;
    serveFolder(options);
    for (int i = 0; i < 5; ++i) {
        auto response = get("/site.js", "Accept-Encoding: br, gzip, zstd\r\n");
        ASSERT_TRUE(response);
        EXPECT_FALSE(response->hasHeader("content-encoding"));
        EXPECT_FALSE(response->hasHeader("vary"));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

TEST_P(CompressedFiles, AChangedFileGetsVariantsOfItsNewContent) {
    serveFolder();
    ASSERT_TRUE(waitForCoding("/site.js", "br", "br"));
    const std::string changed = scriptText(30 * 1024) + "// changed\n";
    folder_.write("site.js.tmp", changed);
    ASSERT_EQ(::rename((folder_.path() + "/site.js.tmp").c_str(), (folder_.path() + "/site.js").c_str()), 0);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    bool seen = false;
    while (!seen && std::chrono::steady_clock::now() < until) {
        auto response = get("/site.js", "Accept-Encoding: br\r\n");
        ASSERT_TRUE(response);
        if (response->header("content-encoding") == "br") {
            auto decoded = decode(compress::ContentCoding::Brotli, response->body);
            ASSERT_TRUE(decoded);
            // The old content coded, or the new: never a mix, and the new one in the end.
            ASSERT_TRUE(*decoded == script_ || *decoded == changed);
            seen = *decoded == changed;
        } else {
            EXPECT_TRUE(response->body == script_ || response->body == changed);
        }
        if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace loopwire::test
