#include "SplittingRelay.h"

#include "LoopbackListener.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>

namespace loopwire::test {

namespace {

sockaddr_in loopback(int port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    return address;
}

bool sendAll(int fd, const char* bytes, std::size_t length) {
    while (length > 0) {
        const ssize_t sent = ::send(fd, bytes, length, MSG_NOSIGNAL);
        if (sent <= 0) return false;
        bytes += sent;
        length -= static_cast<std::size_t>(sent);
    }
    return true;
}

}  // namespace

SplittingRelay::SplittingRelay(int serverPort) : serverPort_(serverPort) {
    listener_ = listenOnLoopback(port_);
    (void)!::pipe2(stopPipe_, O_CLOEXEC);
    // One client: the first connection is relayed until either end closes or the relay is destroyed.
    thread_ = std::thread([this] {
        const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) return;
        relay(client);
        ::close(client);
    });
}

SplittingRelay::~SplittingRelay() {
    ::shutdown(listener_, SHUT_RDWR);
    (void)!::write(stopPipe_[1], "x", 1);
    thread_.join();
    ::close(listener_);
    ::close(stopPipe_[0]);
    ::close(stopPipe_[1]);
}

void SplittingRelay::relay(int client) {
    const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address = loopback(serverPort_);
    if (::connect(server, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(server);
        return;
    }
    char buffer[64 * 1024];
    for (;;) {
        pollfd fds[3] = {{client, POLLIN, 0}, {server, POLLIN, 0}, {stopPipe_[0], POLLIN, 0}};
        if (::poll(fds, 3, -1) < 0) break;
        if (fds[2].revents != 0) break;
        if (fds[0].revents != 0) {
            const ssize_t received = ::recv(client, buffer, sizeof buffer, 0);
            if (received <= 0 || !sendAll(server, buffer, static_cast<std::size_t>(received))) break;
        }
        if (fds[1].revents != 0) {
            const ssize_t received = ::recv(server, buffer, sizeof buffer, 0);
            if (received <= 0) break;
            auto length = static_cast<std::size_t>(received);
            if (split_.load() && length >= 2) {
                const std::size_t half = length / 2;
                if (!sendAll(client, buffer, half)) break;
                std::this_thread::sleep_for(std::chrono::milliseconds(kPauseMs));
                if (!sendAll(client, buffer + half, length - half)) break;
                ++splitPieces_;
            } else if (!sendAll(client, buffer, length)) {
                break;
            }
        }
    }
    ::close(server);
}

}  // namespace loopwire::test
