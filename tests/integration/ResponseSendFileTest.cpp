// HttpResponse::sendFile (issue 44): one file from a handler, with a static mount's conditional, range and coding
// rules while the request is alive, the documented answer once it is gone (the whole file, or what copies of its
// fields say), the confinement of options.root, and the handler's own onAborted still called when a streamed file
// is cut off. Both loop backends, plain and TLS.
#include "Fixture.h"
#include "TemporaryFolder.h"
#include "static/StaticFileServer.h"

#include <loopwire/App.h>
#include <loopwire/StaticFileOptions.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace loopwire::test {
namespace {

class ResponseSendFile : public BackendTest {
protected:
    ResponseSendFile() {
        folder_.write("hello.txt", "Hello, sendFile!\n");
        folder_.write(".env", "SECRET=1");
        folder_.write("docs/guide.txt", "guide");
        std::string text;
        while (text.size() < 4096)
            text += "a compressible line of text, said again and again\n";
        folder_.write("page.html", text);
        big_.resize(kBigBytes);
        for (std::size_t i = 0; i < big_.size(); ++i)
            big_[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
        folder_.write("big.bin", big_);
        outside_.write("secret.txt", "outside the root");
        std::filesystem::create_symlink(outside_.path() + "/secret.txt", folder_.path() + "/link-out.txt");
    }

    std::string absolute(const std::string& relative) const { return folder_.path() + "/" + relative; }
    std::optional<Response> get(const std::string& target, const std::string& fields = {}) {
        return fetch(port(), "GET " + target + " HTTP/1.1\r\nHost: x\r\n" + fields + "\r\n");
    }

    static constexpr std::size_t kBigBytes = 8 * 1024 * 1024 + 5;
    TemporaryFolder folder_;
    TemporaryFolder outside_;
    std::string big_;
};
LW_INSTANTIATE_TRANSPORTS(ResponseSendFile);

TEST_P(ResponseSendFile, AnAbsolutePathIsServedWithTheRequestsConditionsAndRanges) {
    serve([this](App& app) {
        app.get("/file",
                [this](HttpResponse* res, HttpRequest*) { EXPECT_TRUE(res->sendFile(absolute("hello.txt"))); });
    });
    auto whole = get("/file");
    ASSERT_TRUE(whole);
    EXPECT_EQ(whole->status, 200);
    EXPECT_EQ(whole->body, "Hello, sendFile!\n");
    EXPECT_EQ(whole->header("content-type"), "text/plain; charset=utf-8");
    const std::string etag = whole->header("etag");
    ASSERT_FALSE(etag.empty());
    auto notModified = get("/file", "If-None-Match: " + etag + "\r\n");
    ASSERT_TRUE(notModified);
    EXPECT_EQ(notModified->status, 304);
    auto part = get("/file", "Range: bytes=7-14\r\n");
    ASSERT_TRUE(part);
    EXPECT_EQ(part->status, 206);
    EXPECT_EQ(part->body, "sendFile");
    EXPECT_EQ(part->header("content-range"), "bytes 7-14/17");
    auto failed = get("/file", "If-Match: \"other\"\r\n");
    ASSERT_TRUE(failed);
    EXPECT_EQ(failed->status, 412);
}

TEST_P(ResponseSendFile, ARootConfinesThePathAndNamesNothingOutsideIt) {
    serve([this](App& app) {
        app.get("/files/*", [this](HttpResponse* res, HttpRequest* req) {
            SendFileOptions options;
            options.root = folder_.path();
            options.maxAgeSeconds = 30;
            std::string error;
            EXPECT_TRUE(res->sendFile(req->getUrl().substr(7), options, &error)) << error;
        });
    });
    auto served = get("/files/docs/guide.txt");
    ASSERT_TRUE(served);
    EXPECT_EQ(served->status, 200);
    EXPECT_EQ(served->body, "guide");
    EXPECT_EQ(served->header("cache-control"), "public, max-age=30");
    // A dotfile, a climb, a folder, a link out of the root, nothing: 404, and never the bytes.
    for (const std::string target : {"/files/.env", "/files/../hello.txt", "/files/docs/../../x", "/files/docs",
                                     "/files/docs/", "/files/link-out.txt", "/files/missing.txt", "/files/"}) {
        auto refused = get(target);
        ASSERT_TRUE(refused) << target;
        EXPECT_EQ(refused->status, 404) << target;
        EXPECT_EQ(refused->body.find("SECRET"), std::string::npos) << target;
        EXPECT_EQ(refused->body.find("outside"), std::string::npos) << target;
    }
    // '%' is a byte of a file name here, never an escape.
    folder_.write("100%25.txt", "percent");
    auto percent = get("/files/100%25.txt");
    ASSERT_TRUE(percent);
    EXPECT_EQ(percent->body, "percent");
}

TEST_P(ResponseSendFile, WithoutARootLinksAreFollowedAsTheApplicationNamedThem) {
    serve([this](App& app) {
        app.get("/link", [this](HttpResponse* res, HttpRequest*) { res->sendFile(absolute("link-out.txt")); });
    });
    auto response = get("/link");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, "outside the root");
}

TEST_P(ResponseSendFile, UnusableArgumentsWriteNothingAndSayWhy) {
    serve([this](App& app) {
        app.get("/relative", [](HttpResponse* res, HttpRequest*) {
            std::string error;
            EXPECT_FALSE(res->sendFile("hello.txt", SendFileOptions{}, &error));
            res->end(error);
        });
        app.get("/not-a-folder", [this](HttpResponse* res, HttpRequest*) {
            SendFileOptions options;
            options.root = absolute("hello.txt");
            std::string error;
            EXPECT_FALSE(res->sendFile("x", options, &error));
            res->end(error);
        });
    });
    auto relative = get("/relative");
    ASSERT_TRUE(relative);
    EXPECT_EQ(relative->status, 200);
    EXPECT_EQ(relative->body, "sendFile: path must be absolute unless options.root is given");
    auto notAFolder = get("/not-a-folder");
    ASSERT_TRUE(notAFolder);
    EXPECT_EQ(notAFolder->status, 200);
    EXPECT_TRUE(notAFolder->body.starts_with("sendFile: cannot open the root folder")) << notAFolder->body;
}

TEST_P(ResponseSendFile, TheCallersFieldsGoInOptionsAndAWrittenStatusIsRefused) {
    serve([this](App& app) {
        app.get("/download", [this](HttpResponse* res, HttpRequest*) {
            static constexpr HeaderField kFields[] = {{"Content-Disposition", "attachment; filename=\"hello.txt\""}};
            SendFileOptions options;
            options.headers = kFields;
            EXPECT_TRUE(res->sendFile(absolute("hello.txt"), options));
        });
        app.get("/after-a-header", [this](HttpResponse* res, HttpRequest*) {
            res->writeHeader("X-Early", "1");
            std::string error;
            EXPECT_FALSE(res->sendFile(absolute("hello.txt"), SendFileOptions{}, &error));
            res->end(error);
        });
    });
    auto whole = get("/download");
    ASSERT_TRUE(whole);
    EXPECT_EQ(whole->status, 200);
    EXPECT_EQ(whole->header("content-disposition"), "attachment; filename=\"hello.txt\"");
    EXPECT_EQ(whole->body, "Hello, sendFile!\n");
    auto part = get("/download", "Range: bytes=0-4\r\n");
    ASSERT_TRUE(part);
    EXPECT_EQ(part->status, 206);
    EXPECT_EQ(part->header("content-disposition"), "attachment; filename=\"hello.txt\"");
    auto notModified = get("/download", "If-None-Match: " + whole->header("etag") + "\r\n");
    ASSERT_TRUE(notModified);
    EXPECT_EQ(notModified->status, 304);
    EXPECT_EQ(notModified->header("content-disposition"), "attachment; filename=\"hello.txt\"");
    auto refused = get("/after-a-header");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 200);
    EXPECT_TRUE(refused->body.starts_with("sendFile: a status was written already")) << refused->body;
}

TEST_P(ResponseSendFile, DifferentOptionsAreBoundedPerApp) {
    serve([this](App& app) {
        app.get("/age/:seconds", [this](HttpResponse* res, HttpRequest* req) {
            SendFileOptions options;
            options.maxAgeSeconds = static_cast<std::uint32_t>(std::stoul(std::string(req->getParameter(0))));
            std::string error;
            if (!res->sendFile(absolute("hello.txt"), options, &error))
                res->writeStatus("500 Internal Server Error")->end(error);
        });
    });
    for (std::size_t i = 1; i <= files::StaticFileServer::kMaxSendFileSetups; ++i) {
        auto response = get("/age/" + std::to_string(i));
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status, 200) << i;
        EXPECT_EQ(response->header("cache-control"), "public, max-age=" + std::to_string(i));
    }
    // Options seen before are reused; one more kind is refused.
    auto again = get("/age/1");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->status, 200);
    auto refused = get("/age/" + std::to_string(files::StaticFileServer::kMaxSendFileSetups + 1));
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 500);
    EXPECT_NE(refused->body.find("different roots and options"), std::string::npos) << refused->body;
}

TEST_P(ResponseSendFile, CalledAfterTheHandlerItAnswersAsToARequestWithoutFields) {
    serve([this](App& app) {
        app.get("/later", [this, &app](HttpResponse* res, HttpRequest*) {
            res->onAborted([] {});
            app.defer([this, res] { EXPECT_TRUE(res->sendFile(absolute("hello.txt"))); });
        });
    });
    auto first = get("/later");
    ASSERT_TRUE(first);
    const std::string etag = first->header("etag");
    // The request is gone when the file is sent: its conditions and range are not seen.
    auto response = get("/later", "If-None-Match: " + etag + "\r\nRange: bytes=0-4\r\nAccept-Encoding: gzip\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, "Hello, sendFile!\n");
    EXPECT_FALSE(response->hasHeader("content-encoding"));
    // A HEAD is still answered without a body.
    TestClient client(port());
    client.send("HEAD /later HTTP/1.1\r\nHost: x\r\n\r\nGET /later HTTP/1.1\r\nHost: x\r\n\r\n");
    auto head = client.readResponse(true);
    ASSERT_TRUE(head);
    EXPECT_EQ(head->header("content-length"), "17");
    auto next = client.readResponse();
    ASSERT_TRUE(next);
    EXPECT_EQ(next->body, "Hello, sendFile!\n");
}

TEST_P(ResponseSendFile, CopiedFieldsAnswerLikeTheRequestWouldHave) {
    serve([this](App& app) {
        app.get("/later", [this, &app](HttpResponse* res, HttpRequest* req) {
            // What a handler copies before it waits.
            auto copies = std::make_shared<std::vector<std::pair<std::string, std::string>>>();
            for (const char* name : {"if-none-match", "range"})
                copies->emplace_back(name, req->getHeader(name));
            res->onAborted([] {});
            app.defer([this, res, copies] {
                std::vector<HeaderField> fields;
                for (const auto& [name, value] : *copies) {
                    // Names in any case.
                    fields.emplace_back(name == "range" ? std::string_view("RANGE") : std::string_view(name), value);
                }
                SendFileOptions options;
                options.requestHeaders = fields;
                EXPECT_TRUE(res->sendFile(absolute("hello.txt"), options));
            });
        });
    });
    auto first = get("/later");
    ASSERT_TRUE(first);
    auto notModified = get("/later", "If-None-Match: " + first->header("etag") + "\r\n");
    ASSERT_TRUE(notModified);
    EXPECT_EQ(notModified->status, 304);
    auto part = get("/later", "Range: bytes=-10\r\n");
    ASSERT_TRUE(part);
    EXPECT_EQ(part->status, 206);
    EXPECT_EQ(part->body, "sendFile!\n");
}

TEST_P(ResponseSendFile, AcceptedCodingsAreServedAsByAStaticMount) {
    serve([this](App& app) {
        app.get("/page", [this](HttpResponse* res, HttpRequest*) {
            SendFileOptions options;
            options.root = folder_.path();
            res->sendFile("page.html", options);
        });
    });
    // The first answer is plain while the variants are made in the background; one comes within a few seconds.
    std::optional<Response> coded;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
        coded = get("/page", "Accept-Encoding: gzip\r\n");
        ASSERT_TRUE(coded);
        if (coded->hasHeader("content-encoding")) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_EQ(coded->header("content-encoding"), "gzip");
    EXPECT_EQ(coded->header("vary"), "Accept-Encoding");
    EXPECT_TRUE(coded->header("etag").starts_with("W/")) << coded->header("etag");
}

TEST_P(ResponseSendFile, AStreamedFileCutOffRunsTheHandlersOnAborted) {
    auto aborted = std::make_shared<std::atomic<int>>(0);
    serve([this, aborted](App& app) {
        app.get("/big", [this, aborted, &app](HttpResponse* res, HttpRequest*) {
            res->onAborted([aborted] { aborted->fetch_add(1); });
            app.defer([this, res] { res->sendFile(absolute("big.bin")); });
        });
    });
    {
        TestClient client(port());
        client.setReceiveBuffer(16 * 1024);
        client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
        const std::string some = client.readBytes(64 * 1024);
        EXPECT_NE(some.find("Content-Length: " + std::to_string(kBigBytes)), std::string::npos);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (aborted->load() == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(aborted->load(), 1);
    // A whole download completes without calling it.
    TestClient client(port());
    client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
    auto whole = client.readResponse(false, std::chrono::seconds(30));
    ASSERT_TRUE(whole);
    EXPECT_EQ(whole->body.size(), kBigBytes);
    EXPECT_TRUE(whole->body == big_);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(aborted->load(), 1);
}

}  // namespace
}  // namespace loopwire::test
