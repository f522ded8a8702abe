// HttpResponse::tryEndFromFile: a body sent from a file by sendfile(2) on plain TCP, resumed from onWritable when the
// client reads slowly; nullopt (nothing written) over TLS, where the caller reads the file itself.
#include "Fixture.h"
#include "TemporaryFolder.h"

#include <atomic>
#include <fcntl.h>
#include <memory>
#include <string>
#include <unistd.h>

namespace loopwire::test {
namespace {

class SendFile : public BackendTest {
protected:
    SendFile() {
        content_.resize(kBytes);
        for (std::size_t i = 0; i < content_.size(); ++i)
            content_[i] = static_cast<char>('A' + (i * 13 + i / 1000) % 26);
        folder_.write("file.bin", content_);
        fd_ = ::open((folder_.path() + "/file.bin").c_str(), O_RDONLY | O_CLOEXEC);
    }
    ~SendFile() override {
        server_.reset();
        if (fd_ >= 0) ::close(fd_);
    }

    static constexpr std::size_t kBytes = 4 * 1024 * 1024 + 3;
    TemporaryFolder folder_;
    std::string content_;
    int fd_ = -1;
};
LW_INSTANTIATE_TRANSPORTS(SendFile);

TEST_P(SendFile, ABodyFromAFileArrivesWholeOrTheCallerIsToldToReadIt) {
    // What the handler saw: 1 when tryEndFromFile sent, 0 when it said the connection cannot.
    auto usedSendFile = std::make_shared<std::atomic<int>>(-1);
    const int fd = fd_;
    const std::string* content = &content_;
    serve([fd, content, usedSendFile](App& app) {
        app.get("/file", [fd, content, usedSendFile](HttpResponse* res, HttpRequest*) {
            const std::uint64_t total = content->size();
            auto first = res->tryEndFromFile(fd, 0, total, total);
            usedSendFile->store(first ? 1 : 0);
            if (!first) {
                // TLS: the bytes are the caller's to send.
                res->end(*content);
                return;
            }
            if (first->second) return;
            res->onAborted([] {});
            res->onWritable([res, fd, total](std::uint64_t offset) {
                auto next = res->tryEndFromFile(fd, offset, total - offset, total);
                return next && next->first;
            });
        });
    });
    TestClient client(port());
    client.setReceiveBuffer(64 * 1024);
    client.send("GET /file HTTP/1.1\r\nHost: x\r\n\r\n");
    auto response = client.readResponse(false, std::chrono::seconds(20));
    ASSERT_TRUE(response);
    EXPECT_EQ(response->header("content-length"), std::to_string(kBytes));
    ASSERT_EQ(response->body.size(), kBytes);
    EXPECT_TRUE(response->body == content_);
    EXPECT_EQ(usedSendFile->load(), overTls() ? 0 : 1);
    // The connection goes on.
    client.send("GET /file HTTP/1.1\r\nHost: x\r\n\r\n");
    auto again = client.readResponse(false, std::chrono::seconds(20));
    ASSERT_TRUE(again);
    EXPECT_EQ(again->body.size(), kBytes);
}

TEST_P(SendFile, AHeadRequestTakesTheLengthAndNoBytes) {
    const int fd = fd_;
    serve([fd](App& app) {
        app.get("/file", [fd](HttpResponse* res, HttpRequest*) {
            if (!res->tryEndFromFile(fd, 0, 100, 100)) res->end(std::string(100, 'x'));
        });
    });
    TestClient client(port());
    client.send("HEAD /file HTTP/1.1\r\nHost: x\r\n\r\nGET /file HTTP/1.1\r\nHost: x\r\n\r\n");
    auto head = client.readResponse(true);
    ASSERT_TRUE(head);
    EXPECT_EQ(head->header("content-length"), "100");
    auto get = client.readResponse();
    ASSERT_TRUE(get);
    EXPECT_EQ(get->body.size(), 100u);
    if (!overTls()) {
        EXPECT_EQ(get->body, content_.substr(0, 100));
    }
}

}  // namespace
}  // namespace loopwire::test
