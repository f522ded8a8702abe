#include "ServerThreads.h"

#include "HttpServer.h"

#include <algorithm>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace loopwire {

ServerThreads::ServerThreads(HttpServer& server) : server_(server), inbox_(std::make_shared<SocketInbox>()) {}

ServerThreads::~ServerThreads() { closeInbox(); }

bool ServerThreads::openInbox() noexcept {
    if (isWatched()) return true;
    int wakeupFd = inbox_->open();
    if (wakeupFd < 0) return false;
    server_.loop().watch(*this, wakeupFd, io::kReadable);
    return true;
}

void ServerThreads::closeInbox() noexcept {
    // The loop lets go of the eventfd before the inbox closes it, so that no other descriptor can take its number
    // while it is still registered.
    server_.loop().unwatch(*this);
    inbox_->close();
}

void ServerThreads::onIo(std::uint32_t) {
    inbox_->takeAll(adopting_);
    for (const SocketInbox::Pending& socket : adopting_)
        server_.adopt(socket.fd, socket.remote);
    adopting_.clear();
}

void ServerThreads::addChild(std::shared_ptr<SocketInbox> child) { children_.push_back(std::move(child)); }

void ServerThreads::removeChild(const SocketInbox* child) noexcept {
    std::size_t before = 0;
    for (std::size_t i = 0; i < nextChild_ && i < children_.size(); ++i) {
        if (children_[i].get() == child) ++before;
    }
    std::erase_if(children_, [child](const std::shared_ptr<SocketInbox>& held) { return held.get() == child; });
    nextChild_ -= std::min(before, nextChild_);
}

bool ServerThreads::handOff(int fd, const SocketAddress& remote) noexcept {
    // Each pass asks a different child, so at most one round is made before keeping the socket here.
    for (std::size_t asked = 0, round = children_.size(); asked < round && !children_.empty(); ++asked) {
        if (nextChild_ >= children_.size()) nextChild_ = 0;
        switch (children_[nextChild_]->post(fd, remote)) {
            case SocketInbox::PostResult::Taken:
                ++nextChild_;
                return true;
            case SocketInbox::PostResult::Refused:
                ++nextChild_;
                break;
            case SocketInbox::PostResult::Gone:
                // The next child moves into this slot: nextChild_ stays.
                children_.erase(children_.begin() + static_cast<std::ptrdiff_t>(nextChild_));
                break;
        }
    }
    return false;
}

bool ServerThreads::prepareForeignSocket(int fd, SocketAddress& remote) noexcept {
    if (fd < 0) return false;
    int type = 0;
    socklen_t length = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM) return false;
    int listening = 0;
    length = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0 && listening != 0) return false;
    sockaddr_storage peer{};
    length = sizeof peer;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) != 0) return false;
    int statusFlags = fcntl(fd, F_GETFL);
    int descriptorFlags = fcntl(fd, F_GETFD);
    if (statusFlags < 0 || descriptorFlags < 0) return false;
    if ((statusFlags & O_NONBLOCK) == 0 && fcntl(fd, F_SETFL, statusFlags | O_NONBLOCK) != 0) return false;
    if ((descriptorFlags & FD_CLOEXEC) == 0) fcntl(fd, F_SETFD, descriptorFlags | FD_CLOEXEC);
    if (peer.ss_family == AF_INET || peer.ss_family == AF_INET6) {
        int on = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    }
    remote = SocketAddress::fromSockaddr(reinterpret_cast<sockaddr*>(&peer));
    return true;
}

}  // namespace loopwire
