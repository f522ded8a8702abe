// ServerThreads: what one HttpServer shares with the servers of other threads.
//
// As a child, the server has an inbox (SocketInbox) that acceptors on other threads post sockets to; once opened
// (openInbox, from App::getDescriptor) the server's loop watches the inbox's eventfd, which keeps the loop alive
// as a listening socket does, and adopts every socket posted, in one batch per wakeup. closeInbox() (from
// App::close and the destructor) stops that for good and closes the sockets that were still waiting.
//
// As an acceptor, the server holds a list of children: handOff() gives each socket its listeners accept to the
// next child in turn (round robin); a child that is not open yet, or whose inbox is full, is skipped for that
// socket, and one that has closed is dropped from the list. When no child takes it, the server keeps the socket.
//
// HttpServer owns one; loop thread only, except inbox(), whose pointer never changes.
#pragma once

#include "SocketInbox.h"
#include "loop/IoWatcher.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace loopwire {

class HttpServer;

class ServerThreads final : public IoWatcher {
public:
    // Allocates the inbox (closed to posts until openInbox()).
    explicit ServerThreads(HttpServer& server);
    ~ServerThreads();
    ServerThreads(const ServerThreads&) = delete;
    ServerThreads& operator=(const ServerThreads&) = delete;

    // This server's inbox. Safe to read from any thread: it is set at construction and never changes.
    const std::shared_ptr<SocketInbox>& inbox() const noexcept { return inbox_; }
    // Opens the inbox and watches its eventfd. Returns false when the inbox was closed already (or no eventfd
    // could be created); opening again is harmless.
    bool openInbox() noexcept;
    // Stops watching, refuses later posts and closes the sockets still waiting. Idempotent.
    void closeInbox() noexcept;

    // Adds a child (the same one twice gets two turns). Allocates (set-up time).
    void addChild(std::shared_ptr<SocketInbox> child);
    // Removes every turn of child; the turn order of the others is kept.
    void removeChild(const SocketInbox* child) noexcept;
    std::size_t childCount() const noexcept { return children_.size(); }

    // Gives fd, just accepted by one of this server's listeners, to the next child that takes it: true when one
    // did (it owns fd now), false when fd is still the caller's (no child, or none could take it).
    bool handOff(int fd, const SocketAddress& remote) noexcept;

    // Checks that fd is an open, connected stream socket (not a listening one), makes it non-blocking and
    // close-on-exec (and TCP_NODELAY for TCP), and reads its peer's address into remote. Returns false, leaving fd
    // as it was, when it is not such a socket.
    static bool prepareForeignSocket(int fd, SocketAddress& remote) noexcept;

private:
    void onIo(std::uint32_t events) override;

    HttpServer& server_;
    std::shared_ptr<SocketInbox> inbox_;
    std::vector<SocketInbox::Pending> adopting_;  // the batch being adopted; keeps its capacity
    std::vector<std::shared_ptr<SocketInbox>> children_;
    std::size_t nextChild_ = 0;
};

}  // namespace loopwire
