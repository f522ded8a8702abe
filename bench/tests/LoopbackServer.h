// LoopbackServer: a scripted TCP server on 127.0.0.1, port 0, for the worker tests.
//
// Each accepted connection is served on its own thread by the handler given, with blocking I/O and a 2 s
// receive timeout, so that no test can hang. The destructor shuts every socket down and joins every thread.
#pragma once

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace loopwire::lwload::test {

class LoopbackServer {
public:
    using Handler = std::function<void(int fd)>;

    explicit LoopbackServer(Handler handler) : handler_(std::move(handler)) {
        listenFd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (listenFd_ < 0) throw std::runtime_error("socket failed");
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (bind(listenFd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            listen(listenFd_, 128) != 0 ||
            getsockname(listenFd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
            throw std::runtime_error("bind/listen failed");
        }
        port_ = ntohs(address.sin_port);
        acceptor_ = std::thread([this] { acceptLoop(); });
    }

    ~LoopbackServer() {
        stopping_ = true;
        shutdown(listenFd_, SHUT_RDWR);
        acceptor_.join();
        close(listenFd_);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            for (int fd : clients_)
                shutdown(fd, SHUT_RDWR);
        }
        for (std::thread& t : workers_)
            t.join();
        for (int fd : clients_)
            close(fd);
    }

    std::uint16_t port() const noexcept { return port_; }
    int accepted() const noexcept { return accepted_.load(); }

    // Blocking helpers for handlers.
    static bool readExact(int fd, char* out, std::size_t n) {
        while (n > 0) {
            const ssize_t r = read(fd, out, n);
            if (r <= 0) {
                if (r < 0 && errno == EINTR) continue;
                return false;
            }
            out += r;
            n -= static_cast<std::size_t>(r);
        }
        return true;
    }
    static bool writeAll(int fd, std::string_view data) {
        while (!data.empty()) {
            const ssize_t w = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
            if (w <= 0) {
                if (w < 0 && errno == EINTR) continue;
                return false;
            }
            data.remove_prefix(static_cast<std::size_t>(w));
        }
        return true;
    }
    // Reads until the buffer holds "\r\n\r\n"; returns the head and keeps what follows in `buffer`.
    static bool readHead(int fd, std::string& buffer, std::string& head) {
        for (;;) {
            const std::size_t end = buffer.find("\r\n\r\n");
            if (end != std::string::npos) {
                head = buffer.substr(0, end + 4);
                buffer.erase(0, end + 4);
                return true;
            }
            char chunk[4096];
            const ssize_t r = read(fd, chunk, sizeof chunk);
            if (r <= 0) return false;
            buffer.append(chunk, static_cast<std::size_t>(r));
        }
    }

private:
    void acceptLoop() {
        while (!stopping_) {
            const int fd = accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0) {
                if (errno == EINTR) continue;
                return;
            }
            timeval timeout{2, 0};
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
            const int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            ++accepted_;
            std::lock_guard<std::mutex> lock(mutex_);
            clients_.push_back(fd);
            workers_.emplace_back([this, fd] {
                handler_(fd);
                shutdown(fd, SHUT_RDWR);
            });
        }
    }

    Handler handler_;
    int listenFd_ = -1;
    std::uint16_t port_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<int> accepted_{0};
    std::thread acceptor_;
    std::mutex mutex_;
    std::vector<int> clients_;
    std::vector<std::thread> workers_;
};

}  // namespace loopwire::lwload::test
