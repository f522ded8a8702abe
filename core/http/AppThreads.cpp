// App's members for several threads (App.h, "Several threads"), and AppDescriptor's; the work is ServerThreads'.
#include <loopwire/App.h>
#include <loopwire/AppDescriptor.h>

#include "HttpServer.h"
#include "ServerThreads.h"
#include "SocketInbox.h"

#include <cstdio>
#include <unistd.h>

namespace loopwire {

bool AppDescriptor::isOpen() const noexcept { return inbox_ != nullptr && inbox_->isOpen(); }

std::size_t AppDescriptor::pendingSockets() const noexcept { return inbox_ != nullptr ? inbox_->pendingCount() : 0; }

AppDescriptor App::getDescriptor() {
    // An SSLApp whose key or certificate did not load serves nothing, so it takes no socket either: its inbox
    // stays unopened, and acceptors pass it by.
    if (!constructorFailed()) server_->threads().openInbox();
    return AppDescriptor(server_->threads().inbox());
}

App& App::addChildApp(const AppDescriptor& child) {
    if (child) server_->threads().addChild(child.inbox());
    return *this;
}

App& App::addChildApp(App* child) {
    if (child != nullptr) server_->threads().addChild(child->server_->threads().inbox());
    return *this;
}

App& App::removeChildApp(const AppDescriptor& child) {
    if (child) server_->threads().removeChild(child.inbox().get());
    return *this;
}

App& App::removeChildApp(App* child) {
    if (child != nullptr) server_->threads().removeChild(child->server_->threads().inbox().get());
    return *this;
}

bool App::tryAdoptSocket(int fd) {
    SocketAddress remote;
    // A descriptor this App's loop watches already (one of its own connections) would be registered twice.
    if (constructorFailed() || fd < 0 || loop_->isWatching(fd)) return false;
    if (!ServerThreads::prepareForeignSocket(fd, remote)) return false;
    server_->adopt(fd, remote);
    return true;
}

App& App::adoptSocket(int fd) {
    if (tryAdoptSocket(fd)) return *this;
    // Refused: asking the kernel again (two system calls) only on this rare path tells why.
    if (fd >= 0 && loop_->isWatching(fd)) {
        // Closing it would pull the descriptor from under the connection that has it.
        std::fprintf(stderr, "loopwire: adoptSocket: descriptor %d refused: this App serves it already\n", fd);
        return *this;
    }
    std::fprintf(stderr,
                 "loopwire: adoptSocket: descriptor %d closed: it is not a connected stream socket, or this SSLApp "
                 "could not load its key and certificate\n",
                 fd);
    if (fd >= 0) ::close(fd);
    return *this;
}

}  // namespace loopwire
