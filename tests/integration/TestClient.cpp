#include "TestClient.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sstream>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

namespace loopwire::test {

namespace {

using Clock = std::chrono::steady_clock;

const TlsClientOptions* gDefaultClientTls = nullptr;

void countRecords(int writing, int /*version*/, int contentType, const void* bytes, std::size_t length, SSL* /*ssl*/,
                  void* counter) {
    constexpr int kApplicationData = 23;
    if (writing == 0 && contentType == SSL3_RT_HEADER && length >= 1 &&
        static_cast<const unsigned char*>(bytes)[0] == kApplicationData) {
        ++*static_cast<std::size_t*>(counter);
    }
}

std::string lower(std::string text) {
    for (char& c : text) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    }
    return text;
}

std::string fileContents(const std::string& path) {
    if (path.empty()) return {};
    std::ifstream file(path, std::ios::binary);
    std::ostringstream contents;
    contents << file.rdbuf();
    return contents.str();
}

SSL_CTX* makeClientContext(const TlsClientOptions& tls) {
    SSL_CTX* context = SSL_CTX_new(TLS_client_method());
    // Records that carry no data (TLS 1.3 session tickets) must not make a read block until data comes.
    SSL_CTX_clear_mode(context, SSL_MODE_AUTO_RETRY);
    if (!tls.caFile.empty()) {
        SSL_CTX_load_verify_locations(context, tls.caFile.c_str(), nullptr);
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nullptr);
    }
    if (!tls.certFile.empty()) {
        SSL_CTX_use_certificate_chain_file(context, tls.certFile.c_str());
        SSL_CTX_use_PrivateKey_file(context, tls.keyFile.c_str(), SSL_FILETYPE_PEM);
    }
    if (!tls.alpn.empty()) {
        std::string wire;
        for (const std::string& protocol : tls.alpn) {
            wire.push_back(static_cast<char>(protocol.size()));
            wire += protocol;
        }
        SSL_CTX_set_alpn_protos(context, reinterpret_cast<const unsigned char*>(wire.data()),
                                static_cast<unsigned>(wire.size()));
    }
    if (tls.tls12Only) SSL_CTX_set_max_proto_version(context, TLS1_2_VERSION);
    return context;
}

// One client context per set of options (the files by their contents, which a test may rewrite at the same path)
// for the whole process, as a browser keeps one: on OpenSSL 3, making a context and loading its CA file cost
// several times the handshake itself, and the conformance replay over TLS makes some 16,000 connections. Clients
// keep no session cache (OpenSSL's default for clients), so sharing a context changes nothing else. Returns a
// reference of the caller's own.
SSL_CTX* sharedClientContext(const TlsClientOptions& tls) {
    static std::mutex mutex;
    // Never destroyed: a destructor at exit would run after OpenSSL's own cleanup, and LeakSanitizer would take
    // the contexts it dropped for leaks.
    static auto& contexts = *new std::map<std::string, SSL_CTX*>;
    std::string key = fileContents(tls.caFile) + '\0' + fileContents(tls.certFile) + '\0' + fileContents(tls.keyFile) +
                      '\0' + (tls.tls12Only ? "1.2" : "") + '\0';
    for (const std::string& protocol : tls.alpn)
        key += protocol + ',';
    std::lock_guard<std::mutex> lock(mutex);
    SSL_CTX*& context = contexts[key];
    if (context == nullptr) context = makeClientContext(tls);
    SSL_CTX_up_ref(context);
    return context;
}

}  // namespace

std::string postWithBody(std::size_t bodyBytes, std::string_view extraFields) {
    return "POST / HTTP/1.1\r\nHost: x\r\n" + std::string(extraFields) +
           "Content-Length: " + std::to_string(bodyBytes) + "\r\n\r\n" + std::string(bodyBytes, 'b');
}

void enlargeSendBuffer(int fd, int bytes) {
    if (::setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof bytes) != 0)
        ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
}

void setDefaultClientTls(const TlsClientOptions* tls) noexcept { gDefaultClientTls = tls; }
const TlsClientOptions* defaultClientTls() noexcept { return gDefaultClientTls; }

TestClient::TestClient(int port) {
    connectTcp(port);
    if (gDefaultClientTls != nullptr) startTls(*gDefaultClientTls);
}

TestClient::TestClient(int port, const std::vector<std::string>& prelude, const std::function<void()>& between) {
    // The server may close the connection after the prelude (a refused PROXY header), and a TLS handshake then
    // writes to a closed socket: OpenSSL's writes would raise SIGPIPE, which must end the write, not the test.
    static const bool sigpipeIgnored = [] { return std::signal(SIGPIPE, SIG_IGN) != SIG_ERR; }();
    static_cast<void>(sigpipeIgnored);
    connectTcp(port);
    for (std::size_t i = 0; i < prelude.size(); ++i) {
        std::string_view piece = prelude[i];
        while (!piece.empty()) {
            ssize_t sent = ::send(fd_, piece.data(), piece.size(), MSG_NOSIGNAL);
            if (sent <= 0) break;
            piece.remove_prefix(static_cast<std::size_t>(sent));
        }
        if (between && i + 1 < prelude.size()) between();
    }
    if (gDefaultClientTls != nullptr) startTls(*gDefaultClientTls);
}

TestClient::TestClient(int port, const TlsClientOptions& tls) {
    connectTcp(port);
    startTls(tls);
}

void TestClient::startTls(const TlsClientOptions& tls) {
    tlsContext_ = sharedClientContext(tls);
    ssl_ = SSL_new(tlsContext_);
    SSL_set_fd(ssl_, fd_);
    SSL_set_msg_callback(ssl_, countRecords);
    SSL_set_msg_callback_arg(ssl_, &recordsReceived_);
    if (!tls.serverName.empty()) SSL_set_tlsext_host_name(ssl_, tls.serverName.c_str());
    if (!tls.caFile.empty()) {
        if (tls.serverName.empty()) {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), "127.0.0.1");
        } else {
            SSL_set1_host(ssl_, tls.serverName.c_str());
        }
    }
    if (tls.resume != nullptr) SSL_set_session(ssl_, tls.resume);
    // The handshake must not hang a test whose server never answers it.
    timeval limit{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    if (SSL_connect(ssl_) != 1) {
        unsigned long code = ERR_peek_last_error();
        handshakeError_ = code != 0 ? ERR_reason_error_string(code) : "handshake failed";
        if (handshakeError_.empty()) handshakeError_ = "handshake failed";
        ERR_clear_error();
        closed_ = true;
    }
    timeval none{0, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
}

SSL_SESSION* TestClient::takeSession() const { return ssl_ != nullptr ? SSL_get1_session(ssl_) : nullptr; }

bool TestClient::sessionReused() const { return ssl_ != nullptr && SSL_session_reused(ssl_) == 1; }

std::string TestClient::alpnProtocol() const {
    if (ssl_ == nullptr) return {};
    const unsigned char* protocol = nullptr;
    unsigned int length = 0;
    SSL_get0_alpn_selected(ssl_, &protocol, &length);
    return protocol != nullptr ? std::string(reinterpret_cast<const char*>(protocol), length) : std::string();
}

std::string TestClient::peerCommonName() const {
    if (ssl_ == nullptr) return {};
    X509* certificate = SSL_get1_peer_certificate(ssl_);
    if (certificate == nullptr) return {};
    char name[256] = {};
    X509_NAME_get_text_by_NID(X509_get_subject_name(certificate), NID_commonName, name, sizeof name);
    X509_free(certificate);
    return name;
}

long TestClient::receiveSome(char* into, std::size_t capacity) {
    if (ssl_ == nullptr) return static_cast<long>(::recv(fd_, into, capacity, 0));
    int got = SSL_read(ssl_, into, static_cast<int>(capacity));
    if (got > 0) return got;
    int error = SSL_get_error(ssl_, got);
    ERR_clear_error();
    return error == SSL_ERROR_WANT_READ ? kRetry : got;
}

void TestClient::connectTcp(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        throw std::runtime_error(std::string("connect: ") + std::strerror(errno));
    }
    int on = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

TestClient::TestClient(const std::string& unixPath) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, unixPath.data(), unixPath.size());
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        throw std::runtime_error(std::string("connect: ") + std::strerror(errno));
    }
    if (gDefaultClientTls != nullptr) startTls(*gDefaultClientTls);
}

TestClient::~TestClient() {
    if (ssl_ != nullptr) {
        // Marks the session as ended properly without writing to a peer that may be gone: OpenSSL forbids
        // resuming a session whose connection was freed without a shutdown.
        SSL_set_quiet_shutdown(ssl_, 1);
        SSL_shutdown(ssl_);
        SSL_free(ssl_);
    }
    if (tlsContext_ != nullptr) SSL_CTX_free(tlsContext_);
    if (fd_ >= 0) ::close(fd_);
}

std::size_t TestClient::send(std::string_view bytes) {
    if (ssl_ != nullptr) {
        if (closed_) return 0;
        if (SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size())) <= 0) {
            ERR_clear_error();
            return 0;
        }
        return bytes.size();
    }
    std::size_t taken = 0;
    while (taken < bytes.size()) {
        ssize_t sent = ::send(fd_, bytes.data() + taken, bytes.size() - taken, MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR) continue;
            return taken;  // timed out, or the server closed: the test checks what it read
        }
        taken += static_cast<std::size_t>(sent);
    }
    return taken;
}

void TestClient::shutdownWrite() {
    if (ssl_ != nullptr && !closed_) SSL_shutdown(ssl_);
    ::shutdown(fd_, SHUT_WR);
}

void TestClient::setReceiveBuffer(int bytes) { setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes); }

bool TestClient::fill(Clock::time_point until) {
    if (closed_) return false;
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
        if (left < 0) return false;
        // Bytes OpenSSL already took from the socket (a record, or part of one) need no wait.
        pollfd waiting{fd_, POLLIN, 0};
        int ready = ssl_ != nullptr && SSL_has_pending(ssl_) == 1 ? 1 : ::poll(&waiting, 1, static_cast<int>(left));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return false;
        char chunk[65536];
        long got = receiveSome(chunk, sizeof chunk);
        if (got == kRetry) continue;
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            closed_ = true;
            return false;
        }
        buffered_.append(chunk, static_cast<std::size_t>(got));
        return true;
    }
}

std::optional<std::string> TestClient::readLine(Clock::time_point until) {
    for (;;) {
        auto end = buffered_.find("\r\n");
        if (end != std::string::npos) {
            std::string line = buffered_.substr(0, end);
            buffered_.erase(0, end + 2);
            return line;
        }
        if (!fill(until)) return std::nullopt;
    }
}

std::string TestClient::readBytes(std::size_t n, std::chrono::milliseconds deadline) {
    auto until = Clock::now() + deadline;
    while (buffered_.size() < n && fill(until)) {
    }
    std::string result = buffered_.substr(0, n);
    buffered_.erase(0, result.size());
    return result;
}

std::optional<Response> TestClient::readResponse(bool responseToHead, std::chrono::milliseconds deadline) {
    auto until = Clock::now() + deadline;
    Response response;
    for (;;) {
        auto statusLine = readLine(until);
        if (!statusLine) return std::nullopt;
        response = Response{};
        response.statusLine = *statusLine;
        if (statusLine->size() < 12) return std::nullopt;
        response.status = std::atoi(statusLine->c_str() + 9);
        for (;;) {
            auto line = readLine(until);
            if (!line) return std::nullopt;
            if (line->empty()) break;
            auto colon = line->find(':');
            if (colon == std::string::npos) return std::nullopt;
            std::string value = line->substr(colon + 1);
            while (!value.empty() && value.front() == ' ')
                value.erase(0, 1);
            response.headers.emplace(lower(line->substr(0, colon)), value);
        }
        // Interim responses (100 Continue) precede the final one.
        if (response.status >= 200 || response.status == 101) break;
    }
    if (responseToHead || response.status == 204 || response.status == 304) return response;
    if (response.hasHeader("content-length")) {
        std::size_t length = std::stoull(response.header("content-length"));
        // Room for the whole body at once: a buffer that doubled as it went would copy tens of MiB while the server
        // waits for the client to read (under ASan, for longer than a test's write timeout).
        constexpr std::size_t kMaxReservedBodyBytes = 256 * 1024 * 1024;
        buffered_.reserve(std::min(length, kMaxReservedBodyBytes));
        while (buffered_.size() < length) {
            if (!fill(until)) return std::nullopt;
        }
        response.body = buffered_.substr(0, length);
        buffered_.erase(0, length);
    } else if (lower(response.header("transfer-encoding")) == "chunked") {
        for (;;) {
            auto sizeLine = readLine(until);
            if (!sizeLine) return std::nullopt;
            std::size_t size = std::stoull(*sizeLine, nullptr, 16);
            while (buffered_.size() < size + 2) {
                if (!fill(until)) return std::nullopt;
            }
            response.body.append(buffered_, 0, size);
            buffered_.erase(0, size + 2);
            if (size == 0) break;
        }
    } else {
        while (fill(until)) {
        }
        response.body = buffered_;
        buffered_.clear();
    }
    return response;
}

std::string TestClient::readUntilClose(std::chrono::milliseconds deadline) {
    auto until = Clock::now() + deadline;
    while (fill(until)) {
    }
    std::string all = buffered_;
    buffered_.clear();
    return all;
}

bool TestClient::waitForClose(std::chrono::milliseconds deadline) {
    auto until = Clock::now() + deadline;
    while (fill(until)) {
    }
    return closed_;
}

bool TestClient::idleNow() { return buffered_.empty() && !fill(Clock::now()) && !closed_; }

bool TestClient::staysQuiet(std::chrono::milliseconds quiet) {
    bool gotSomething = fill(Clock::now() + quiet);
    return !gotSomething && !closed_;
}

std::optional<Response> fetch(int port, std::string_view request, bool responseToHead) {
    TestClient client(port);
    client.send(request);
    return client.readResponse(responseToHead);
}

CommandResult runCommand(const std::string& commandLine) {
    CommandResult result;
    FILE* pipe = ::popen(commandLine.c_str(), "r");
    if (pipe == nullptr) return result;
    char chunk[4096];
    std::size_t got;
    while ((got = std::fread(chunk, 1, sizeof chunk, pipe)) > 0)
        result.output.append(chunk, got);
    int status = ::pclose(pipe);
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

}  // namespace loopwire::test
