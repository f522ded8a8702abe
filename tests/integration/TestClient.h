// TestClient: a raw blocking TCP client with deadlines, for driving the server byte by byte.
//
// Every read has a deadline (default 5 s), so a test fails instead of hanging. Responses are read with a small
// HTTP/1.1 response reader (Content-Length, chunked, or until close).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace loopwire::test {

struct Response {
    int status = 0;
    std::string statusLine;
    std::multimap<std::string, std::string> headers;  // names lower-case
    std::string body;

    std::string header(const std::string& lowerCaseName) const {
        auto found = headers.find(lowerCaseName);
        return found == headers.end() ? std::string() : found->second;
    }
    bool hasHeader(const std::string& lowerCaseName) const { return headers.count(lowerCaseName) > 0; }
};

class TestClient {
public:
    static constexpr std::chrono::milliseconds kDefaultDeadline{5000};

    explicit TestClient(int port);
    // Connects to a Unix socket.
    explicit TestClient(const std::string& unixPath);
    ~TestClient();
    TestClient(const TestClient&) = delete;
    TestClient& operator=(const TestClient&) = delete;

    void send(std::string_view bytes);
    // Half-closes: the server sees the end of the request stream.
    void shutdownWrite();
    // Reads one response. responseToHead: the request was HEAD (no body follows).
    std::optional<Response> readResponse(bool responseToHead = false,
                                         std::chrono::milliseconds deadline = kDefaultDeadline);
    // Reads until the peer closes (or the deadline); returns all bytes.
    std::string readUntilClose(std::chrono::milliseconds deadline = kDefaultDeadline);
    // True when the peer closed (EOF or reset) within the deadline, with no further bytes.
    bool waitForClose(std::chrono::milliseconds deadline = kDefaultDeadline);
    // True when no byte is waiting, now, and the connection is open (no wait).
    bool idleNow();
    // True when nothing arrives and the connection stays open for `quiet`.
    bool staysQuiet(std::chrono::milliseconds quiet);
    // Reads exactly n bytes (or fewer at the deadline).
    std::string readBytes(std::size_t n, std::chrono::milliseconds deadline = kDefaultDeadline);
    // Shrinks the receive buffer (before reading a large response slowly).
    void setReceiveBuffer(int bytes);
    int fd() const noexcept { return fd_; }

private:
    // Fills buffered_ with at least one more byte; false on close, error or deadline.
    bool fill(std::chrono::steady_clock::time_point until);
    std::optional<std::string> readLine(std::chrono::steady_clock::time_point until);

    int fd_ = -1;
    std::string buffered_;
    bool closed_ = false;
};

// Sends one request on a new connection and reads the response.
std::optional<Response> fetch(int port, std::string_view request, bool responseToHead = false);

// Runs a command line and returns its standard output (and exit status).
struct CommandResult {
    int status = -1;
    std::string output;
};
CommandResult runCommand(const std::string& commandLine);

}  // namespace loopwire::test
