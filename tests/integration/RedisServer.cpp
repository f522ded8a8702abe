#include "RedisServer.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

namespace loopwire::test {

namespace {

int pickFreePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    ::close(fd);
    return ntohs(address.sin_port);
}

int connectTo(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

}  // namespace

bool RedisServer::available() { return std::system("command -v redis-server >/dev/null 2>&1") == 0; }

RedisServer::RedisServer(std::vector<std::string> extraArguments, bool tlsOnly, bool clusterBus)
    : extraArguments_(std::move(extraArguments)), tlsOnly_(tlsOnly) {
    char pattern[] = "/tmp/loopwire-redis-XXXXXX";
    folder_ = ::mkdtemp(pattern) != nullptr ? pattern : "/tmp";
    // A port free a moment ago may be taken by the time redis-server binds it (by another test's server or a
    // client's ephemeral port, with the suites run many at once): then it exits, and the next attempt takes others.
    for (int attempt = 0; attempt < kStartAttempts && !running(); ++attempt) {
        port_ = pickFreePort();
        // The bus port is given: the default, the port + 10000, may be past 65535 for a port picked by the kernel.
        if (clusterBus) clusterPort_ = pickFreePort();
        start();
    }
}

RedisServer::~RedisServer() {
    resume();
    stop();
    if (folder_ != "/tmp") std::filesystem::remove_all(folder_);
}

bool RedisServer::start() {
    if (running()) return true;
    std::vector<std::string> arguments = {"redis-server", "--bind", "127.0.0.1", "--save",     "",       "--appendonly",
                                          "no",           "--dir",  folder_,     "--loglevel", "warning"};
    if (tlsOnly_) {
        arguments.insert(arguments.end(), {"--port", "0", "--tls-port", std::to_string(port_)});
    } else {
        arguments.insert(arguments.end(), {"--port", std::to_string(port_)});
    }
    if (clusterPort_ != 0) arguments.insert(arguments.end(), {"--cluster-port", std::to_string(clusterPort_)});
    arguments.insert(arguments.end(), extraArguments_.begin(), extraArguments_.end());
    const pid_t child = ::fork();
    if (child == 0) {
        std::vector<char*> argv;
        for (std::string& argument : arguments)
            argv.push_back(argument.data());
        argv.push_back(nullptr);
        std::freopen("/dev/null", "w", stdout);
        ::execvp("redis-server", argv.data());
        ::_exit(127);
    }
    pid_ = child;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;  // it exited: the port was taken, or redis-server is missing
            return false;
        }
        const int fd = connectTo(port_);
        if (fd >= 0) {
            ::close(fd);
            // Ours, and not another server that held the port while ours failed to bind it and is exiting; with
            // requirepass INFO is refused (NOAUTH), and any reply will do.
            const std::string info = tlsOnly_ ? std::string() : command({"INFO", "server"});
            if (tlsOnly_ || info.rfind('-', 0) == 0 ||
                info.find("process_id:" + std::to_string(pid_) + "\r\n") != std::string::npos)
                return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    stop();
    return false;
}

void RedisServer::stop() {
    if (!running()) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
}

void RedisServer::pause() {
    if (running()) ::kill(pid_, SIGSTOP);
}

void RedisServer::resume() {
    if (running()) ::kill(pid_, SIGCONT);
}

std::string RedisServer::command(const std::string& resp) {
    const int fd = connectTo(port_);
    if (fd < 0) return {};
    ::send(fd, resp.data(), resp.size(), MSG_NOSIGNAL);
    timeval timeout{2, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    char buffer[4096];
    const ssize_t received = ::recv(fd, buffer, sizeof buffer, 0);
    ::close(fd);
    return received > 0 ? std::string(buffer, static_cast<std::size_t>(received)) : std::string();
}

std::string RedisServer::command(std::initializer_list<std::string> arguments) {
    return command(std::vector<std::string>(arguments));
}

std::string RedisServer::command(const std::vector<std::string>& arguments) {
    std::string resp = "*" + std::to_string(arguments.size()) + "\r\n";
    for (const std::string& argument : arguments)
        resp += "$" + std::to_string(argument.size()) + "\r\n" + argument + "\r\n";
    return command(resp);
}

}  // namespace loopwire::test
