#include "TestClient.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

namespace loopwire::test {

namespace {

using Clock = std::chrono::steady_clock;

std::string lower(std::string text) {
    for (char& c : text) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    }
    return text;
}

}  // namespace

TestClient::TestClient(int port) {
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
}

TestClient::~TestClient() {
    if (fd_ >= 0) ::close(fd_);
}

void TestClient::send(std::string_view bytes) {
    while (!bytes.empty()) {
        ssize_t sent = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR) continue;
            return;  // the server closed: the test checks what it read
        }
        bytes.remove_prefix(static_cast<std::size_t>(sent));
    }
}

void TestClient::shutdownWrite() { ::shutdown(fd_, SHUT_WR); }

void TestClient::setReceiveBuffer(int bytes) { setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes); }

bool TestClient::fill(Clock::time_point until) {
    if (closed_) return false;
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
        if (left < 0) return false;
        pollfd waiting{fd_, POLLIN, 0};
        int ready = ::poll(&waiting, 1, static_cast<int>(left));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return false;
        char chunk[65536];
        ssize_t got = ::recv(fd_, chunk, sizeof chunk, 0);
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
