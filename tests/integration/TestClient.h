// TestClient: a raw blocking TCP client with deadlines, for driving the server byte by byte; optionally over
// TLS (OpenSSL, blocking), with the bytes of send() and the reads being the plaintext.
//
// Every read has a deadline (default 5 s), so a test fails instead of hanging. Responses are read with a small
// HTTP/1.1 response reader (Content-Length, chunked, or until close).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

using SSL = struct ssl_st;
using SSL_CTX = struct ssl_ctx_st;
using SSL_SESSION = struct ssl_session_st;

namespace loopwire::test {

struct TlsClientOptions {
    std::string serverName{};  // sent as SNI when not empty
    std::string caFile{};      // the server's certificate must verify against it (and match serverName, or
                               // 127.0.0.1 when serverName is empty); empty: no verification
    std::string certFile{};    // a client certificate and its key, sent when the server asks
    std::string keyFile{};
    std::vector<std::string> alpn{};  // offered protocols; none when empty
    SSL_SESSION* resume = nullptr;    // a session of an earlier connection to resume
    bool tls12Only = false;           // TLS 1.2 at most (session IDs, not tickets of TLS 1.3)
};

// A POST / of bodyBytes bytes ('b'), with extraFields ("Name: value\r\n" lines) after Host.
std::string postWithBody(std::size_t bodyBytes, std::string_view extraFields = {});

// Lets fd's peer queue up to bytes unread from fd: SO_SNDBUFFORCE where the process may (root), else SO_SNDBUF,
// which net.core.wmem_max caps.
void enlargeSendBuffer(int fd, int bytes);

// While set (non-null), TestClient(port) and fetch() speak TLS with these options: the fixtures run the same
// HTTP tests over TLS by setting it. The pointee must outlive the clients.
void setDefaultClientTls(const TlsClientOptions* tls) noexcept;
const TlsClientOptions* defaultClientTls() noexcept;

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

    // Plain TCP, or TLS with the default options when setDefaultClientTls() set them.
    explicit TestClient(int port);
    // TLS. A failed handshake does not throw: handshakeError() says why and every read fails.
    TestClient(int port, const TlsClientOptions& tls);
    // Sends prelude first, in plain, whatever the transport (a PROXY header, which comes before TLS), in the pieces
    // given, calling between() after each piece but the last; then as TestClient(port).
    TestClient(int port, const std::vector<std::string>& prelude, const std::function<void()>& between = {});
    // Connects to a Unix socket; with TLS when setDefaultClientTls() set it, as TestServer's Unix listener then has.
    explicit TestClient(const std::string& unixPath);
    ~TestClient();
    TestClient(const TestClient&) = delete;
    TestClient& operator=(const TestClient&) = delete;

    // Sends bytes; returns how many the connection took (fewer when a send times out, SO_SNDTIMEO, or the peer
    // closed).
    std::size_t send(std::string_view bytes);
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

    // TLS only.
    SSL* ssl() const noexcept { return ssl_; }
    bool isTls() const noexcept { return tlsContext_ != nullptr; }
    const std::string& handshakeError() const noexcept { return handshakeError_; }
    // The session to resume on a later connection (owned by the caller: SSL_SESSION_free).
    SSL_SESSION* takeSession() const;
    bool sessionReused() const;
    // The negotiated ALPN protocol, and the common name of the server's certificate.
    std::string alpnProtocol() const;
    std::string peerCommonName() const;
    // TLS records of application data received so far (TLS 1.3 session tickets look the same on the wire).
    std::size_t recordsReceived() const noexcept { return recordsReceived_; }

private:
    void connectTcp(int port);
    void startTls(const TlsClientOptions& tls);
    // recv() or SSL_read(); <= 0 at the end of the stream or on an error, kRetry after a record with no data.
    static constexpr long kRetry = -2;
    long receiveSome(char* into, std::size_t capacity);

    // Fills buffered_ with at least one more byte; false on close, error or deadline.
    bool fill(std::chrono::steady_clock::time_point until);
    std::optional<std::string> readLine(std::chrono::steady_clock::time_point until);

    int fd_ = -1;
    SSL_CTX* tlsContext_ = nullptr;
    SSL* ssl_ = nullptr;
    std::string handshakeError_;
    std::size_t recordsReceived_ = 0;
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
