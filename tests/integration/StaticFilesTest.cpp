// App::serveStatic (issue 44): files served in the core, with RFC 9110's conditional requests and ranges, over both
// loop backends, plain and TLS, with raw requests so that every field on the wire is checked.
#include "Fixture.h"
#include "TemporaryFolder.h"

#include <loopwire/App.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fcntl.h>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace loopwire::test {
namespace {

// The descriptors this process has open (the server runs in it).
std::size_t openDescriptors() {
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd"))
        ++count;
    return count;
}

// The descriptors this process (the server runs in it) has open on the file at path.
std::size_t descriptorsOf(const std::string& path) {
    const std::filesystem::path file = std::filesystem::canonical(path);
    std::size_t count = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code gone;  // a descriptor may be closed while the list is read
        if (std::filesystem::read_symlink(entry.path(), gone) == file) ++count;
    }
    return count;
}

// Anonymous memory this process has resident (RssAnon of /proc/self/status), in KiB: the server's buffers count in
// it, the page cache of a file it reads does not.
std::size_t residentAnonymousKiB() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.starts_with("RssAnon:")) return std::stoul(line.substr(8));
    }
    ADD_FAILURE() << "no RssAnon in /proc/self/status";
    return 0;
}

// A field's value in a raw response head (the name in lower case; compared without case), or empty.
std::string fieldOf(std::string_view head, std::string_view lowerCaseName) {
    std::string lower(head);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    const std::size_t name = lower.find("\r\n" + std::string(lowerCaseName) + ":");
    if (name == std::string::npos) return {};
    std::size_t value = name + 2 + lowerCaseName.size() + 1;
    while (value < head.size() && head[value] == ' ')
        ++value;
    const std::size_t end = head.find("\r\n", value);
    return std::string(head.substr(value, end - value));
}

// Reads firstBytes raw from client: returns the response head (up to its last CRLF; empty when no whole head came)
// and puts what came of the body in body.
std::string readHeadAndSome(TestClient& client, std::size_t firstBytes, std::string& body) {
    std::string received = client.readBytes(firstBytes);
    const std::size_t end = received.find("\r\n\r\n");
    if (end == std::string::npos) return {};
    body = received.substr(end + 4);
    received.resize(end + 2);
    return received;
}

// bytes of alphabet, repeated with a shift every 4 KiB so that no two pages of a file are alike.
std::string patterned(std::size_t bytes, std::string_view alphabet) {
    std::string text(bytes, '\0');
    for (std::size_t i = 0; i < bytes; ++i)
        text[i] = alphabet[(i * 7 + i / 4096) % alphabet.size()];
    return text;
}

class StaticFiles : public BackendTest {
protected:
    StaticFiles() {
        folder_.write("hello.txt", "Hello, static world!\n");
        folder_.write("index.html", "<h1>home</h1>");
        folder_.write("docs/index.html", "<h1>docs</h1>");
        folder_.write("docs/guide.md", "# guide");
        folder_.write("empty.css", "");
        std::string letters;
        for (int i = 0; i < 1000; ++i)
            letters += static_cast<char>('a' + i % 26);
        folder_.write("letters.txt", letters);
        folder_.write(".env", "SECRET=1");
        folder_.write(".git/config", "[core]");
        folder_.write(".well-known/acme-challenge/token", "proof");
        folder_.makeDirectory("nothing-inside");
        std::string big(kBigBytes, '\0');
        for (std::size_t i = 0; i < big.size(); ++i)
            big[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
        folder_.write("big.bin", big);
        big_ = big;
    }

    void serveFolder(StaticFileOptions options = {}, std::string prefix = "/") {
        serve([this, options, prefix](App& app) {
            std::string error;
            EXPECT_TRUE(app.tryServeStatic(prefix, folder_.path(), options, error)) << error;
        });
    }
    std::optional<Response> get(const std::string& target, const std::string& fields = {}) {
        return fetch(port(), "GET " + target + " HTTP/1.1\r\nHost: x\r\n" + fields + "\r\n");
    }

    static constexpr std::size_t kBigBytes = 3 * 1024 * 1024 + 17;
    TemporaryFolder folder_;
    std::string big_;
};
LW_INSTANTIATE_TRANSPORTS(StaticFiles);

TEST_P(StaticFiles, ServesAFileWithItsTypeLengthAndValidators) {
    serveFolder();
    auto response = get("/hello.txt");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, "Hello, static world!\n");
    EXPECT_EQ(response->header("content-type"), "text/plain; charset=utf-8");
    EXPECT_EQ(response->header("content-length"), "21");
    EXPECT_EQ(response->header("accept-ranges"), "bytes");
    const std::string etag = response->header("etag");
    ASSERT_GE(etag.size(), 2u);
    EXPECT_EQ(etag.front(), '"');
    EXPECT_EQ(etag.back(), '"');
    EXPECT_EQ(response->header("last-modified").size(), 29u);
    EXPECT_TRUE(response->header("last-modified").ends_with(" GMT"));
    EXPECT_FALSE(response->hasHeader("cache-control"));
}

TEST_P(StaticFiles, AnEmptyFileIsAnEmpty200) {
    serveFolder();
    auto response = get("/empty.css", "Range: bytes=0-10\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->header("content-length"), "0");
    EXPECT_EQ(response->header("content-type"), "text/css; charset=utf-8");
}

TEST_P(StaticFiles, HeadGetsTheSameHeadWithoutTheBody) {
    serveFolder();
    TestClient client(port());
    client.send("HEAD /hello.txt HTTP/1.1\r\nHost: x\r\n\r\nGET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n");
    auto head = client.readResponse(true);
    auto get = client.readResponse();
    ASSERT_TRUE(head);
    ASSERT_TRUE(get);
    EXPECT_EQ(head->status, 200);
    EXPECT_EQ(head->header("content-length"), "21");
    EXPECT_EQ(head->header("etag"), get->header("etag"));
    EXPECT_EQ(head->header("content-type"), get->header("content-type"));
    EXPECT_EQ(get->body, "Hello, static world!\n");
}

TEST_P(StaticFiles, HeadOfAStreamedFileSendsItsLengthOnly) {
    serveFolder();
    TestClient client(port());
    client.send("HEAD /big.bin HTTP/1.1\r\nHost: x\r\n\r\nGET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n");
    auto head = client.readResponse(true);
    ASSERT_TRUE(head);
    EXPECT_EQ(head->header("content-length"), std::to_string(kBigBytes));
    auto next = client.readResponse();
    ASSERT_TRUE(next);
    EXPECT_EQ(next->body, "Hello, static world!\n");
}

TEST_P(StaticFiles, IfNoneMatchAnswers304WithTheValidators) {
    StaticFileOptions options;
    options.maxAgeSeconds = 60;
    serveFolder(options);
    auto first = get("/hello.txt");
    ASSERT_TRUE(first);
    const std::string etag = first->header("etag");
    for (const std::string& field : {etag, "\"other\", " + etag, "W/" + etag, std::string("*")}) {
        auto response = get("/hello.txt", "If-None-Match: " + field + "\r\n");
        ASSERT_TRUE(response) << field;
        EXPECT_EQ(response->status, 304) << field;
        EXPECT_EQ(response->body, "") << field;
        EXPECT_EQ(response->header("etag"), etag) << field;
        EXPECT_EQ(response->header("cache-control"), "public, max-age=60") << field;
        EXPECT_FALSE(response->hasHeader("content-length")) << field;
    }
    auto changed = get("/hello.txt", "If-None-Match: \"not-it\"\r\n");
    ASSERT_TRUE(changed);
    EXPECT_EQ(changed->status, 200);
}

TEST_P(StaticFiles, IfModifiedSinceAnswers304UnlessIfNoneMatchIsThere) {
    serveFolder();
    auto first = get("/hello.txt");
    ASSERT_TRUE(first);
    const std::string lastModified = first->header("last-modified");
    auto notModified = get("/hello.txt", "If-Modified-Since: " + lastModified + "\r\n");
    ASSERT_TRUE(notModified);
    EXPECT_EQ(notModified->status, 304);
    // If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2).
    auto tagWins = get("/hello.txt", "If-None-Match: \"x\"\r\nIf-Modified-Since: " + lastModified + "\r\n");
    ASSERT_TRUE(tagWins);
    EXPECT_EQ(tagWins->status, 200);
    auto old = get("/hello.txt", "If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n");
    ASSERT_TRUE(old);
    EXPECT_EQ(old->status, 200);
}

TEST_P(StaticFiles, IfMatchAndIfUnmodifiedSinceAnswer412) {
    serveFolder();
    auto first = get("/hello.txt");
    ASSERT_TRUE(first);
    auto mismatch = get("/hello.txt", "If-Match: \"other\"\r\n");
    ASSERT_TRUE(mismatch);
    EXPECT_EQ(mismatch->status, 412);
    auto weak = get("/hello.txt", "If-Match: W/" + first->header("etag") + "\r\n");
    ASSERT_TRUE(weak);
    EXPECT_EQ(weak->status, 412);  // If-Match compares strongly
    auto match = get("/hello.txt", "If-Match: " + first->header("etag") + "\r\n");
    ASSERT_TRUE(match);
    EXPECT_EQ(match->status, 200);
    auto before = get("/hello.txt", "If-Unmodified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n");
    ASSERT_TRUE(before);
    EXPECT_EQ(before->status, 412);
}

TEST_P(StaticFiles, OneRangeIsA206WithContentRange) {
    serveFolder();
    auto response = get("/hello.txt", "Range: bytes=7-12\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 206);
    EXPECT_EQ(response->body, "static");
    EXPECT_EQ(response->header("content-range"), "bytes 7-12/21");
    EXPECT_EQ(response->header("content-type"), "text/plain; charset=utf-8");
    auto suffix = get("/hello.txt", "Range: bytes=-7\r\n");
    ASSERT_TRUE(suffix);
    EXPECT_EQ(suffix->body, "world!\n");
    EXPECT_EQ(suffix->header("content-range"), "bytes 14-20/21");
}

TEST_P(StaticFiles, SeveralRangesAreAMultipartByterangesBody) {
    serveFolder();
    // From memory (a cached file) and from the file (a large one), in the order asked.
    for (const std::string file : {"letters.txt", "big.bin"}) {
        auto response = get("/" + file, "Range: bytes=500-504,0-4\r\n");
        ASSERT_TRUE(response) << file;
        EXPECT_EQ(response->status, 206) << file;
        const std::string type = response->header("content-type");
        const std::string prefix = "multipart/byteranges; boundary=";
        ASSERT_TRUE(type.starts_with(prefix)) << type;
        const std::string boundary = type.substr(prefix.size());
        const std::string partType = file == "letters.txt" ? "text/plain; charset=utf-8" : "application/octet-stream";
        const std::string length = file == "letters.txt" ? "1000" : std::to_string(kBigBytes);
        auto bytes = [&](std::size_t first, std::size_t count) {
            if (file == "big.bin") return big_.substr(first, count);
            std::string letters;
            for (std::size_t i = first; i < first + count; ++i)
                letters += static_cast<char>('a' + i % 26);
            return letters;
        };
        const std::string expected =
            "\r\n--" + boundary + "\r\nContent-Type: " + partType + "\r\nContent-Range: bytes 500-504/" + length +
            "\r\n\r\n" + bytes(500, 5) + "\r\n--" + boundary + "\r\nContent-Type: " + partType +
            "\r\nContent-Range: bytes 0-4/" + length + "\r\n\r\n" + bytes(0, 5) + "\r\n--" + boundary + "--\r\n";
        EXPECT_EQ(response->body, expected) << file;
        EXPECT_EQ(response->header("content-length"), std::to_string(expected.size())) << file;
    }
}

TEST_P(StaticFiles, CloseRangesAreSentAsOne) {
    serveFolder();
    auto response = get("/hello.txt", "Range: bytes=0-4,14-18\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 206);
    EXPECT_EQ(response->header("content-range"), "bytes 0-18/21");
    EXPECT_EQ(response->body, "Hello, static world");
}

TEST_P(StaticFiles, OverlappingRangesNeverSendAByteTwice) {
    serveFolder();
    std::string many = "Range: bytes=0-1000000";
    for (int i = 0; i < 30; ++i)
        many += ",0-1000000";
    auto response = get("/big.bin", many + "\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 206);
    EXPECT_EQ(response->header("content-range"), "bytes 0-1000000/" + std::to_string(kBigBytes));
    EXPECT_EQ(response->body.size(), 1000001u);
    EXPECT_EQ(response->body, big_.substr(0, 1000001));
}

TEST_P(StaticFiles, AnUnsatisfiableRangeIs416WithTheLength) {
    serveFolder();
    auto response = get("/hello.txt", "Range: bytes=100-200\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 416);
    EXPECT_EQ(response->header("content-range"), "bytes */21");
    auto ignored = get("/hello.txt", "Range: lines=1-2\r\n");
    ASSERT_TRUE(ignored);
    EXPECT_EQ(ignored->status, 200);
    EXPECT_EQ(ignored->body, "Hello, static world!\n");
}

TEST_P(StaticFiles, IfRangeWithAStaleValidatorSendsTheWholeFile) {
    serveFolder();
    auto first = get("/hello.txt");
    ASSERT_TRUE(first);
    auto current = get("/hello.txt", "Range: bytes=0-4\r\nIf-Range: " + first->header("etag") + "\r\n");
    ASSERT_TRUE(current);
    EXPECT_EQ(current->status, 206);
    EXPECT_EQ(current->body, "Hello");
    auto stale = get("/hello.txt", "Range: bytes=0-4\r\nIf-Range: \"stale\"\r\n");
    ASSERT_TRUE(stale);
    EXPECT_EQ(stale->status, 200);
    EXPECT_EQ(stale->body, "Hello, static world!\n");
    auto oldDate = get("/hello.txt", "Range: bytes=0-4\r\nIf-Range: Sun, 06 Nov 1994 08:49:37 GMT\r\n");
    ASSERT_TRUE(oldDate);
    EXPECT_EQ(oldDate->status, 200);
}

TEST_P(StaticFiles, ALargeFileStreamsWholeAndInRanges) {
    serveFolder();
    auto whole = get("/big.bin");
    ASSERT_TRUE(whole);
    EXPECT_EQ(whole->status, 200);
    EXPECT_EQ(whole->header("content-type"), "application/octet-stream");
    ASSERT_EQ(whole->body.size(), kBigBytes);
    EXPECT_TRUE(whole->body == big_);
    auto tail = get("/big.bin", "Range: bytes=3000000-\r\n");
    ASSERT_TRUE(tail);
    EXPECT_EQ(tail->status, 206);
    EXPECT_TRUE(tail->body == big_.substr(3000000));
    auto parts = get("/big.bin", "Range: bytes=10-19,2000000-2000009\r\n");
    ASSERT_TRUE(parts);
    EXPECT_EQ(parts->status, 206);
    EXPECT_NE(parts->body.find(big_.substr(10, 10)), std::string::npos);
    EXPECT_NE(parts->body.find(big_.substr(2000000, 10)), std::string::npos);
    EXPECT_EQ(parts->header("content-length"), std::to_string(parts->body.size()));
}

TEST_P(StaticFiles, ASlowReaderGetsEveryByteOfALargeFileAndHoldsNoDescriptorAfterwards) {
    serveFolder();
    TestClient client(port());
    // Once the server has accepted the connection (and has its socket), its descriptors are counted.
    client.send("GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(client.readResponse());
    const std::size_t descriptorsBefore = openDescriptors();
    // A small window (a tiny one makes TCP itself wait 200 ms per segment), read only once the server had to stop.
    client.setReceiveBuffer(64 * 1024);
    client.send("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto response = client.readResponse(false, std::chrono::seconds(30));
    ASSERT_TRUE(response);
    ASSERT_EQ(response->body.size(), kBigBytes);
    EXPECT_TRUE(response->body == big_);
    // The keep-alive connection goes on; the stream has let go of the file.
    client.send("GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n");
    auto next = client.readResponse();
    ASSERT_TRUE(next);
    EXPECT_EQ(next->body, "Hello, static world!\n");
    EXPECT_EQ(openDescriptors(), descriptorsBefore);
}

TEST_P(StaticFiles, AFileRewrittenInPlaceWhileStreamingIsSentWholeOrCutShortNeverMixed) {
    // Larger than the cache threshold (so it streams from the file) and than the socket buffers hold, so that most
    // of it is still to be read from the file when it changes.
    constexpr std::size_t kOldBytes = 8 * 1024 * 1024;
    const std::string before = patterned(kOldBytes, "abcdefghijklmnopqrstuvwxyz");
    const std::string after = patterned(kOldBytes + 4096, "0123456789");
    folder_.write("changing.bin", before);
    struct stat original {};
    ASSERT_EQ(::stat((folder_.path() + "/changing.bin").c_str(), &original), 0);
    serveFolder();

    TestClient client(port());
    client.setReceiveBuffer(64 * 1024);
    client.send("GET /changing.bin HTTP/1.1\r\nHost: x\r\n\r\n");
    std::string body;
    const std::string head = readHeadAndSome(client, 512 * 1024, body);
    ASSERT_TRUE(head.starts_with("HTTP/1.1 200 ")) << head;
    ASSERT_EQ(fieldOf(head, "content-length"), std::to_string(kOldBytes)) << head;
    ASSERT_FALSE(body.empty());
    // The server has filled the socket and waits for it to drain.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));

    // Rewritten in place as cp or a program's own writer does it (truncated, then written): the same inode, other
    // bytes, another size.
    folder_.write("changing.bin", after);
    struct stat rewritten {};
    ASSERT_EQ(::stat((folder_.path() + "/changing.bin").c_str(), &rewritten), 0);
    ASSERT_EQ(rewritten.st_ino, original.st_ino);

    body += client.readBytes(kOldBytes - body.size(), std::chrono::seconds(10));
    if (body.size() == kOldBytes) {
        EXPECT_TRUE(body == before) << "a whole body that is not the file it was sent as";
    } else {
        // Cut short: the connection is closed, and what came is the old file's beginning only.
        EXPECT_LT(body.size(), kOldBytes);
        EXPECT_TRUE(client.waitForClose(std::chrono::seconds(2)));
        EXPECT_TRUE(std::string_view(before).starts_with(body))
            << "bytes of the new file in the old one's body, " << body.size() << " bytes received";
    }
    // A new request gets the new file whole.
    auto next = get("/changing.bin");
    ASSERT_TRUE(next);
    EXPECT_EQ(next->header("content-length"), std::to_string(after.size()));
    EXPECT_TRUE(next->body == after);
}

// With sendfile: false. sendfile(2) queues references to the file's pages, not copies of them, so with it (the
// default, as nginx's) a file overwritten without being truncated (pwrite at offset 0, as dd conv=notrunc) after the
// server queued its last bytes can reach the client as a whole body of the old length holding new bytes: the
// documented cost of StaticFileOptions::sendfile. Read and copied (TLS, or sendfile off), it never is. Deploying by
// rename is not affected either way.
TEST_P(StaticFiles, AFileOverwrittenAfterItsBytesWereQueuedIsNeverSentMixedWithoutSendfile) {
    constexpr std::size_t kOldBytes = 1024 * 1024;
    const std::string before = patterned(kOldBytes, "abcdefghijklmnopqrstuvwxyz");
    const std::string after = patterned(kOldBytes + 4096, "0123456789");
    folder_.write("queued.bin", before);
    StaticFileOptions options;
    options.sendfile = false;
    serveFolder(options);

    TestClient client(port());
    client.setReceiveBuffer(64 * 1024);
    client.send("GET /queued.bin HTTP/1.1\r\nHost: x\r\n\r\n");
    std::string body;
    const std::string head = readHeadAndSome(client, 16 * 1024, body);
    ASSERT_TRUE(head.starts_with("HTTP/1.1 200 ")) << head;
    // The server has queued what the socket takes (all of it, here, on plain TCP) and waits.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));

    const int fd = ::open((folder_.path() + "/queued.bin").c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    const ssize_t written = ::pwrite(fd, after.data(), after.size(), 0);
    ::close(fd);
    ASSERT_EQ(written, static_cast<ssize_t>(after.size()));

    body += client.readBytes(kOldBytes - body.size(), std::chrono::seconds(5));
    if (body.size() == kOldBytes) {
        EXPECT_TRUE(body == before) << "new bytes from offset " << body.find_first_of("0123456789")
                                    << " in a whole body of the old file";
    } else {
        EXPECT_TRUE(client.waitForClose(std::chrono::seconds(2)));
    }
}

TEST_P(StaticFiles, Issue44FiveGiBSparseFileToASlowReaderIsNeverBufferedAndEndsWithTheClient) {
    // 5 GiB, sparse (no disk used): offsets and lengths past 4 GiB.
    constexpr std::uint64_t kSparseBytes = 5ull * 1024 * 1024 * 1024;
    {
        const int fd = ::open((folder_.path() + "/sparse.bin").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        ASSERT_GE(fd, 0);
        const int truncated = ::ftruncate(fd, static_cast<off_t>(kSparseBytes));
        ::close(fd);
        ASSERT_EQ(truncated, 0);
    }
    serveFolder();
    auto range = get("/sparse.bin", "Range: bytes=5000000000-5000000009\r\n");
    ASSERT_TRUE(range);
    EXPECT_EQ(range->status, 206);
    EXPECT_EQ(range->header("content-range"), "bytes 5000000000-5000000009/5368709120");
    EXPECT_EQ(range->header("content-length"), "10");
    EXPECT_EQ(range->body, std::string(10, '\0'));

    auto client = std::make_unique<TestClient>(port());
    // The connection and a first response are set up before memory is measured.
    client->send("GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(client->readResponse());
    client->setReceiveBuffer(64 * 1024);
    const std::size_t residentBefore = residentAnonymousKiB();

    client->send("GET /sparse.bin HTTP/1.1\r\nHost: x\r\n\r\n");
    std::string first;
    const std::string head = readHeadAndSome(*client, 64 * 1024, first);
    ASSERT_TRUE(head.starts_with("HTTP/1.1 200 ")) << head;
    EXPECT_EQ(fieldOf(head, "content-length"), "5368709120") << head;
    // A few MiB read (and dropped), then the client stops reading.
    std::size_t read = first.size();
    while (read < 4 * 1024 * 1024) {
        const std::string piece = client->readBytes(64 * 1024);
        ASSERT_FALSE(piece.empty()) << "the stream stopped after " << read << " bytes";
        EXPECT_EQ(piece.find_first_not_of('\0'), std::string::npos);
        read += piece.size();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const std::size_t residentWhileStalled = residentAnonymousKiB();
    EXPECT_LT(residentWhileStalled, residentBefore + 32 * 1024)
        << "RssAnon grew from " << residentBefore << " KiB to " << residentWhileStalled << " KiB";
    // Still streaming, not given up on: the connection is open and the stream holds the file.
    EXPECT_EQ(server().connectionCount(), 1u);
    const std::string sparse = folder_.path() + "/sparse.bin";
    EXPECT_EQ(descriptorsOf(sparse), 1u);

    // The client goes: the stream ends with its connection, and lets go of the file.
    client.reset();
    EXPECT_TRUE(waitForNoConnections());
    EXPECT_EQ(descriptorsOf(sparse), 0u);
}

TEST_P(StaticFiles, ACacheOfZeroBytesServesEveryResponseFromTheFile) {
    StaticFileOptions options;
    options.cacheBytes = 0;
    serveFolder(options);
    auto hello = get("/hello.txt");
    ASSERT_TRUE(hello);
    EXPECT_EQ(hello->status, 200);
    EXPECT_EQ(hello->body, "Hello, static world!\n");
    EXPECT_EQ(hello->header("content-length"), "21");
    auto big = get("/big.bin");
    ASSERT_TRUE(big);
    EXPECT_TRUE(big->body == big_);
    auto empty = get("/empty.css");
    ASSERT_TRUE(empty);
    EXPECT_EQ(empty->status, 200);
    EXPECT_EQ(empty->header("content-length"), "0");
    auto index = get("/docs/");
    ASSERT_TRUE(index);
    EXPECT_EQ(index->body, "<h1>docs</h1>");
    auto redirect = get("/docs");
    ASSERT_TRUE(redirect);
    EXPECT_EQ(redirect->status, 301);
    auto part = get("/letters.txt", "Range: bytes=26-51\r\n");
    ASSERT_TRUE(part);
    EXPECT_EQ(part->status, 206);
    EXPECT_EQ(part->body, "abcdefghijklmnopqrstuvwxyz");

    const std::string etag = hello->header("etag");
    auto notModified = get("/hello.txt", "If-None-Match: " + etag + "\r\n");
    ASSERT_TRUE(notModified);
    EXPECT_EQ(notModified->status, 304);
    EXPECT_EQ(notModified->header("etag"), etag);
    auto sinceThen = get("/hello.txt", "If-Modified-Since: " + hello->header("last-modified") + "\r\n");
    ASSERT_TRUE(sinceThen);
    EXPECT_EQ(sinceThen->status, 304);

    // Nothing is kept, so a change is served at once, not after the revalidation interval.
    folder_.write("hello.txt", "changed at once");
    auto changed = get("/hello.txt", "If-None-Match: " + etag + "\r\n");
    ASSERT_TRUE(changed);
    EXPECT_EQ(changed->status, 200);
    EXPECT_EQ(changed->body, "changed at once");
    EXPECT_NE(changed->header("etag"), etag);
}

TEST_P(StaticFiles, AFileThatGrowsPastTheCacheThresholdIsThenStreamedWhole) {
    folder_.write("grows.bin", "small");
    serveFolder();
    auto small = get("/grows.bin");
    ASSERT_TRUE(small);
    ASSERT_EQ(small->body, "small");
    // 400 KiB: more than a cached file may hold (StaticMount::kMaxCachedFileBytes), so it now streams. The first
    // response after the change used to be cut after its head: the stale entry had been in memory, so the
    // descriptor the new one streams from was closed.
    const std::string grown = patterned(400 * 1024, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    folder_.write("grows.bin", grown);
    std::optional<Response> response;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (std::chrono::steady_clock::now() < until) {
        response = get("/grows.bin");
        ASSERT_TRUE(response);
        if (response->body != "small") break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->header("content-length"), "409600");
    ASSERT_EQ(response->body.size(), grown.size());
    EXPECT_TRUE(response->body == grown);
    auto part = get("/grows.bin", "Range: bytes=300000-300099\r\n");
    ASSERT_TRUE(part);
    EXPECT_EQ(part->status, 206);
    EXPECT_EQ(part->header("content-range"), "bytes 300000-300099/409600");
    EXPECT_EQ(part->body, grown.substr(300000, 100));
}

TEST_P(StaticFiles, AClientThatResetsDuringALargeFileDoesNotEndTheProcess) {
    // The test process keeps SIGPIPE's default action (terminate), as a C++ server may: sendfile(2) has no
    // MSG_NOSIGNAL, so a write to a reset connection must not raise it.
    // Resets at several points of the transfer, some while the server is inside a sendfile call that has sent part
    // of its bytes (which raises SIGPIPE without failing the call), many connections at once, as a load generator
    // ends its run.
    serveFolder();
    for (int round = 0; round < 3; ++round) {
        std::vector<std::unique_ptr<TestClient>> clients;
        for (int i = 0; i < 16; ++i) {
            clients.push_back(std::make_unique<TestClient>(port()));
            clients.back()->send("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        for (std::size_t i = 0; i < clients.size(); ++i) {
            EXPECT_FALSE(clients[i]->readBytes(100 + i * 8192).empty());
            const linger reset{1, 0};
            ASSERT_EQ(::setsockopt(clients[i]->fd(), SOL_SOCKET, SO_LINGER, &reset, sizeof reset), 0);
        }
    }
    EXPECT_TRUE(waitForNoConnections());
    auto after = get("/hello.txt");
    ASSERT_TRUE(after);
    EXPECT_EQ(after->body, "Hello, static world!\n");
}

TEST_P(StaticFiles, AFolderWithoutItsSlashIsRedirectedAndWithItServesItsIndex) {
    serveFolder();
    auto redirect = get("/docs?page=2");
    ASSERT_TRUE(redirect);
    EXPECT_EQ(redirect->status, 301);
    EXPECT_EQ(redirect->header("location"), "/docs/?page=2");
    auto index = get("/docs/");
    ASSERT_TRUE(index);
    EXPECT_EQ(index->status, 200);
    EXPECT_EQ(index->body, "<h1>docs</h1>");
    EXPECT_EQ(index->header("content-type"), "text/html; charset=utf-8");
    auto root = get("/");
    ASSERT_TRUE(root);
    EXPECT_EQ(root->body, "<h1>home</h1>");
    // No index file, and never a listing.
    auto bare = get("/nothing-inside/");
    ASSERT_TRUE(bare);
    EXPECT_EQ(bare->status, 404);
    // A redirect never names another host, whatever the path starts with.
    auto slashes = get("//docs");
    ASSERT_TRUE(slashes);
    if (slashes->status == 301) {
        EXPECT_FALSE(slashes->header("location").starts_with("//"));
    }
}

TEST_P(StaticFiles, APrefixMapsOntoTheFolder) {
    serveFolder({}, "/assets/");
    auto file = get("/assets/hello.txt");
    ASSERT_TRUE(file);
    EXPECT_EQ(file->status, 200);
    EXPECT_EQ(file->body, "Hello, static world!\n");
    auto bare = get("/assets");
    ASSERT_TRUE(bare);
    EXPECT_EQ(bare->status, 301);
    EXPECT_EQ(bare->header("location"), "/assets/");
    auto outside = get("/hello.txt");
    ASSERT_TRUE(outside);
    EXPECT_EQ(outside->status, 404);
}

TEST_P(StaticFiles, NoPathLeavesTheRoot) {
    folder_.write("../outside-secret.txt", "outside");
    serveFolder({}, "/assets");
    for (const char* target :
         {"/assets/../outside-secret.txt", "/assets/%2e%2e/outside-secret.txt", "/assets/%2E%2e/outside-secret.txt",
          "/assets/.%2e/outside-secret.txt", "/assets/docs/..%2f..%2foutside-secret.txt",
          "/assets/..%5coutside-secret.txt", "/assets/docs%2fguide.md", "/assets/docs\\guide.md",
          "/assets/hello.txt%00.md", "/assets/%zz"}) {
        auto response = get(target);
        ASSERT_TRUE(response) << target;
        EXPECT_TRUE(response->status == 400 || response->status == 404) << target << ": " << response->status;
        EXPECT_EQ(response->body.find("outside"), std::string::npos) << target;
    }
}

TEST_P(StaticFiles, ASymbolicLinkOutOfTheRootIsNotFollowed) {
    folder_.write("../outside-secret.txt", "outside");
    ASSERT_EQ(::symlink((folder_.path() + "/../outside-secret.txt").c_str(), (folder_.path() + "/absolute").c_str()),
              0);
    ASSERT_EQ(::symlink("../outside-secret.txt", (folder_.path() + "/relative").c_str()), 0);
    ASSERT_EQ(::symlink("/etc", (folder_.path() + "/etc").c_str()), 0);
    serveFolder();
    for (const char* target : {"/absolute", "/relative", "/etc/hostname", "/etc/passwd"}) {
        auto response = get(target);
        ASSERT_TRUE(response) << target;
        EXPECT_EQ(response->status, 404) << target;
    }
}

TEST_P(StaticFiles, DotfilesAreDeniedButWellKnownIsServed) {
    serveFolder();
    for (const char* target : {"/.env", "/.git/config", "/.git/", "/docs/.hidden"}) {
        auto response = get(target);
        ASSERT_TRUE(response) << target;
        EXPECT_EQ(response->status, 404) << target;
    }
    auto challenge = get("/.well-known/acme-challenge/token");
    ASSERT_TRUE(challenge);
    EXPECT_EQ(challenge->status, 200);
    EXPECT_EQ(challenge->body, "proof");
}

TEST_P(StaticFiles, DotfilesMayBeAllowed) {
    StaticFileOptions options;
    options.dotfiles = DotfilePolicy::Allow;
    serveFolder(options);
    auto response = get("/.env");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, "SECRET=1");
}

TEST_P(StaticFiles, OtherMethodsGet405WithAllow) {
    serveFolder();
    for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
        auto response =
            fetch(port(), std::string(method) + " /hello.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
        ASSERT_TRUE(response) << method;
        EXPECT_EQ(response->status, 405) << method;
        EXPECT_EQ(response->header("allow"), "GET, HEAD") << method;
    }
}

TEST_P(StaticFiles, FallthroughHandsAMissToTheNextRoute) {
    StaticFileOptions options;
    options.fallthrough = true;
    serve([this, options](App& app) {
        app.serveStatic("/", folder_.path(), options);
        app.get("/*", [](HttpResponse* res, HttpRequest*) { res->end("spa"); });
        app.post("/*", [](HttpResponse* res, HttpRequest*) { res->end("posted"); });
    });
    auto file = get("/hello.txt");
    ASSERT_TRUE(file);
    EXPECT_EQ(file->body, "Hello, static world!\n");
    auto miss = get("/app/route");
    ASSERT_TRUE(miss);
    EXPECT_EQ(miss->status, 200);
    EXPECT_EQ(miss->body, "spa");
    auto posted = fetch(port(), "POST /hello.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    ASSERT_TRUE(posted);
    EXPECT_EQ(posted->body, "posted");
}

TEST_P(StaticFiles, AnAppRouteOfTheSamePatternFollowsTheMountWhicheverCameFirst) {
    StaticFileOptions options;
    options.fallthrough = true;
    serve([this, options](App& app) {
        app.get("/*", [](HttpResponse* res, HttpRequest*) { res->end("before"); });
        app.serveStatic("/", folder_.path(), options);
        // Replaces the app's own route behind the mount, not the mount.
        app.get("/*", [](HttpResponse* res, HttpRequest*) { res->end("replaced"); });
    });
    auto file = get("/hello.txt");
    ASSERT_TRUE(file);
    EXPECT_EQ(file->body, "Hello, static world!\n");
    auto miss = get("/nowhere");
    ASSERT_TRUE(miss);
    EXPECT_EQ(miss->body, "replaced");
}

TEST_P(StaticFiles, RemovingTheAppsRouteLeavesTheMount) {
    StaticFileOptions options;
    options.fallthrough = true;
    serve([this, options](App& app) {
        app.serveStatic("/", folder_.path(), options);
        app.get("/*", [](HttpResponse* res, HttpRequest*) { res->end("app"); });
        EXPECT_TRUE(app.removeRoute("GET", "/*"));
        EXPECT_FALSE(app.removeRoute("GET", "/*"));
    });
    auto file = get("/hello.txt");
    ASSERT_TRUE(file);
    EXPECT_EQ(file->body, "Hello, static world!\n");
    auto miss = get("/nowhere");
    ASSERT_TRUE(miss);
    EXPECT_EQ(miss->status, 404);
}

TEST_P(StaticFiles, RoutesOfTheAppStillWinWhereTheyAreMoreSpecific) {
    serve([this](App& app) {
        app.serveStatic("/", folder_.path());
        app.get("/api/*", [](HttpResponse* res, HttpRequest*) { res->end("api"); });
    });
    auto api = get("/api/users");
    ASSERT_TRUE(api);
    EXPECT_EQ(api->body, "api");
    auto file = get("/hello.txt");
    ASSERT_TRUE(file);
    EXPECT_EQ(file->body, "Hello, static world!\n");
}

TEST_P(StaticFiles, CacheControlFollowsMaxAgeAndImmutable) {
    StaticFileOptions options;
    options.maxAgeSeconds = 31536000;
    options.immutable = true;
    options.etag = false;
    options.lastModified = false;
    serveFolder(options);
    auto response = get("/hello.txt");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->header("cache-control"), "public, max-age=31536000, immutable");
    EXPECT_FALSE(response->hasHeader("etag"));
    EXPECT_FALSE(response->hasHeader("last-modified"));
}

TEST_P(StaticFiles, AChangedFileIsServedWithinTheRevalidationInterval) {
    serveFolder();
    auto before = get("/hello.txt");
    ASSERT_TRUE(before);
    ASSERT_EQ(before->body, "Hello, static world!\n");
    // Replaced by rename (an atomic deploy), then rewritten in place, then deleted and created again.
    const auto deadline = [] { return std::chrono::steady_clock::now() + std::chrono::seconds(5); };
    auto waitForBody = [&](const std::string& expected) {
        const auto until = deadline();
        while (std::chrono::steady_clock::now() < until) {
            auto response = get("/hello.txt");
            if (!response) return false;
            // Never a torn body: the old one whole or the new one whole.
            if (response->body == expected) {
                return response->header("content-length") == std::to_string(expected.size());
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return false;
    };
    const auto changedAt = std::chrono::steady_clock::now();
    folder_.write("hello.txt.tmp", "renamed into place");
    ASSERT_EQ(::rename((folder_.path() + "/hello.txt.tmp").c_str(), (folder_.path() + "/hello.txt").c_str()), 0);
    EXPECT_TRUE(waitForBody("renamed into place"));
    EXPECT_LT(std::chrono::steady_clock::now() - changedAt, std::chrono::milliseconds(3000));
    folder_.write("hello.txt", "rewritten in place, longer than before");
    EXPECT_TRUE(waitForBody("rewritten in place, longer than before"));
    ASSERT_EQ(::unlink((folder_.path() + "/hello.txt").c_str()), 0);
    const auto until = deadline();
    bool gone = false;
    while (!gone && std::chrono::steady_clock::now() < until) {
        auto response = get("/hello.txt");
        gone = response && response->status == 404;
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(gone);
    folder_.write("hello.txt", "back again");
    EXPECT_TRUE(waitForBody("back again"));
}

TEST_P(StaticFiles, AFifoInTheTreeIsNotServedAndDoesNotBlock) {
    ASSERT_EQ(::mkfifo((folder_.path() + "/pipe").c_str(), 0600), 0);
    serveFolder();
    auto response = get("/pipe");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 404);
}

TEST_P(StaticFiles, MimeTypesMayBeAdded) {
    StaticFileOptions options;
    options.mimeTypes = {{"md", "text/markdown; charset=utf-8"}};
    serveFolder(options);
    auto response = get("/docs/guide.md");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->header("content-type"), "text/markdown; charset=utf-8");
}

TEST(StaticFilesSetUp, RefusesWhatCannotBeServed) {
    App app;
    std::string error;
    EXPECT_FALSE(app.tryServeStatic("/", "/nonexistent-folder-of-loopwire", {}, error));
    EXPECT_NE(error.find("nonexistent-folder-of-loopwire"), std::string::npos) << error;
    error.clear();
    EXPECT_FALSE(app.tryServeStatic("assets", "/tmp", {}, error));
    EXPECT_FALSE(error.empty());
    error.clear();
    EXPECT_FALSE(app.tryServeStatic("/:id", "/tmp", {}, error));
    EXPECT_FALSE(error.empty());
    StaticFileOptions badType;
    badType.mimeTypes = {{"x", "text/plain\r\nSet-Cookie: a=b"}};
    error.clear();
    EXPECT_FALSE(app.tryServeStatic("/", "/tmp", badType, error));
    EXPECT_NE(error.find("mimeTypes"), std::string::npos) << error;
    StaticFileOptions badIndex;
    badIndex.index = "../index.html";
    error.clear();
    EXPECT_FALSE(app.tryServeStatic("/", "/tmp", badIndex, error));
    EXPECT_NE(error.find("index"), std::string::npos) << error;
}

}  // namespace
}  // namespace loopwire::test
