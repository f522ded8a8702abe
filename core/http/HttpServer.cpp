#include "HttpServer.h"

#include "HttpConnection.h"
#include "ResponseStream.h"
#include "h2/Http2Server.h"
#include "HttpParser.h"
#include "ResponseCoder.h"
#include "net/TlsSession.h"
#include "base/Check.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace loopwire {

HttpServer::HttpServer(Loop& loop, const ServerOptions& options)
    : loop_(loop),
      options_(options),
      connections_(loop),
      queryScratch_(new char[kQueryScratchBytes]),
      head_(std::make_unique<RequestHead>()),
      drainTimer_(loop, [this] { onDrainTick(); }) {
    if (options.http2) installedExtension<h2::Http2Server>(*this);
}

HttpServer::~HttpServer() {
    loop_.cancelFlush(*this);
    close();
    for (auto& extension : extensions_)
        extension.reset();
}

Router::HandlerId HttpServer::storeHandler(App::Handler handler, bool leading) {
    auto id = static_cast<Router::HandlerId>(handlers_.size());
    links_.push_back(RouteLink{RouteLink::kNone, leading});
    handlers_.push_back(std::move(handler));
    return id;
}

Router::HandlerId HttpServer::lastLeading(Router::HandlerId first) const noexcept {
    Router::HandlerId last = first;
    while (links_[last].next != RouteLink::kNone && links_[links_[last].next].leading) {
        last = links_[last].next;
    }
    return last;
}

bool HttpServer::addRoute(std::string_view method, std::string_view pattern, App::Handler handler) {
    if (isDispatching()) return false;
    Router& router = selectedRoutes_->router;
    Router::HandlerId existing;
    if (router.find(method, pattern, existing) && links_[existing].leading) {
        // Behind the leading routes: the app's route there is replaced in place, or added after the last of them.
        const Router::HandlerId last = lastLeading(existing);
        if (links_[last].next != RouteLink::kNone) {
            handlers_[links_[last].next] = std::move(handler);
        } else {
            links_[last].next = storeHandler(std::move(handler), false);
        }
        return true;
    }
    const Router::HandlerId id = storeHandler(std::move(handler), false);
    if (!router.add(method, pattern, id)) {
        handlers_.pop_back();
        links_.pop_back();
        return false;
    }
    if (method == "HEAD") selectedRoutes_->hasHeadRoutes = true;
    if (method == kWebSocketRouteMethod) selectedRoutes_->hasWebSocketRoutes = true;
    return true;
}

bool HttpServer::addLeadingRoute(std::string_view method, std::string_view pattern, App::Handler handler) {
    if (isDispatching()) return false;
    Router& router = selectedRoutes_->router;
    Router::HandlerId existing;
    if (router.find(method, pattern, existing)) {
        if (!links_[existing].leading) {
            // The app's route was there first: it now follows.
            const Router::HandlerId id = storeHandler(std::move(handler), true);
            links_[id].next = existing;
            if (!router.add(method, pattern, id)) return false;
            return true;
        }
        const Router::HandlerId last = lastLeading(existing);
        const Router::HandlerId id = storeHandler(std::move(handler), true);
        links_[id].next = links_[last].next;
        links_[last].next = id;
        return true;
    }
    const Router::HandlerId id = storeHandler(std::move(handler), true);
    if (!router.add(method, pattern, id)) {
        handlers_.pop_back();
        links_.pop_back();
        return false;
    }
    return true;
}

bool HttpServer::removeRoute(std::string_view method, std::string_view pattern) {
    if (isDispatching()) return false;
    Router& router = selectedRoutes_->router;
    Router::HandlerId existing;
    if (router.find(method, pattern, existing) && links_[existing].leading) {
        const Router::HandlerId last = lastLeading(existing);
        if (links_[last].next == RouteLink::kNone) return false;
        links_[last].next = RouteLink::kNone;
        return true;
    }
    return router.remove(method, pattern);
}

void HttpServer::selectDomain(std::string_view pattern) {
    if (pattern.empty()) {
        selectedRoutes_ = &routes_;
        return;
    }
    for (auto& routes : domainRoutes_) {
        if (routes->pattern == pattern) {
            selectedRoutes_ = routes.get();
            return;
        }
    }
    domainRoutes_.push_back(std::make_unique<RouteTable>());
    domainRoutes_.back()->pattern = pattern;
    selectedRoutes_ = domainRoutes_.back().get();
    attachDomain(pattern);
}

void HttpServer::attachDomain(std::string_view pattern) noexcept {
    if (tls_ == nullptr) return;
    for (auto& routes : domainRoutes_) {
        if (routes->pattern == pattern) tls_->setServerNameData(pattern, routes.get());
    }
}

// The routes a connection's requests go to: those of the server name its handshake picked, when that name has
// routes of its own. One load and a compare for plain connections.
HttpServer::RouteTable& HttpServer::routesFor(HttpResponse& response) noexcept {
    if (domainRoutes_.empty()) return routes_;
    const TlsSession* tls = any_response::socket(response).tlsSession();
    if (tls == nullptr || tls->serverNameData() == nullptr) return routes_;
    return *static_cast<RouteTable*>(tls->serverNameData());
}

ListenSocket* HttpServer::listen(const ListenOptions& options, int& error) {
    if (refusingConnections_) {
        error = EINVAL;
        return nullptr;
    }
    auto socket = ListenSocket::listenTcp(
        loop_, options, [this](int fd, const SocketAddress& remote) { acceptFromListener(fd, remote); }, error);
    if (!socket) return nullptr;
    listeners_.push_back(std::move(socket));
    return listeners_.back().get();
}

ListenSocket* HttpServer::listenUnix(std::string_view path, int& error) {
    if (refusingConnections_) {
        error = EINVAL;
        return nullptr;
    }
    auto socket = ListenSocket::listenUnix(
        loop_, path, [this](int fd, const SocketAddress& remote) { acceptFromListener(fd, remote); }, error);
    if (!socket) return nullptr;
    listeners_.push_back(std::move(socket));
    return listeners_.back().get();
}

void HttpServer::accept(int fd, const SocketAddress& remote) {
    // Owned by the loop from here on: it frees the connection after it closes.
    new HttpConnection(*this, fd, remote);
}

void HttpServer::acceptFromListener(int fd, const SocketAddress& remote) {
    if (!threads_.handOff(fd, remote)) accept(fd, remote);
}

void HttpServer::adopt(int fd, const SocketAddress& remote) { accept(fd, remote); }

void HttpServer::closeListenSockets() noexcept {
    for (auto& socket : listeners_)
        socket->close();
}

void HttpServer::stopAccepting() noexcept {
    closeListenSockets();
    threads_.closeInbox();
}

void HttpServer::close() noexcept {
    drainDeadlineMs_ = 0;
    drainWalkPending_ = false;
    stopAccepting();
    connections_.closeAll();
    for (auto& extension : extensions_) {
        if (extension) extension->close();
    }
    // A drain's onClosed runs from the loop, never inside the call that closed.
    if (onClosed_) drainTimer_.start(0);
}

// The connections are asked to end from the timer's first tick, not from inside drain(): the caller may be a
// handler whose own response is still being written, or a callback of the sweep that walks the same connections.
void HttpServer::drain(std::uint32_t drainMs, App::ClosedHandler onClosed) {
    if (onClosed) onClosed_ = std::move(onClosed);
    if (drainMs == 0) {
        close();
        return;
    }
    stopAccepting();
    const std::uint64_t deadline = loop_.nowMs() + drainMs;
    if (isDraining()) {
        drainDeadlineMs_ = std::min(drainDeadlineMs_, deadline);
        return;
    }
    drainDeadlineMs_ = deadline;
    drainWalkPending_ = true;
    drainTimer_.start(0, kDrainPollMs);
}

void HttpServer::onDrainTick() noexcept {
    if (drainWalkPending_) {
        drainWalkPending_ = false;
        connections_.forEach([](Socket& socket) { static_cast<HttpConnection&>(socket).drain(); });
        for (auto& extension : extensions_) {
            if (extension) extension->drain();
        }
    }
    if (isDraining()) {
        const bool ended = connections_.size() + extensionConnectionCount() == 0;
        if (!ended && loop_.nowMs() < drainDeadlineMs_) return;
        close();
    }
    drainTimer_.stop();
    if (onClosed_) {
        App::ClosedHandler onClosed = std::move(onClosed_);
        onClosed_ = nullptr;
        onClosed();
    }
}

bool HttpServer::dispatch(HttpResponse& response, RequestHead& head) {
    HttpRequest request(head, queryScratch_.get(), kQueryScratchBytes);
    auto tryHandler = [&](const RouteMatch& match) {
        request.setMatch(&match);
        // Behind a leading route, the routes of the same method and pattern run in turn while each yields.
        Router::HandlerId id = match.handlerId();
        while (true) {
            request.setYield(false);
            handlers_[id](&response, &request);
            // A handler that answered, or closed the connection, has taken the request even if it set yield.
            if (!request.getYield() || response.hasResponded()) return true;
            id = links_[id].next;
            if (id == RouteLink::kNone) return false;
        }
    };
    ++dispatchDepth_;
    const Handling outer = std::exchange(handling_, Handling{&response, &request});
    if (ResponseCoder* coder = extension<ResponseCoder>()) [[unlikely]] {
        if (ResponseCoding* coding = any_response::coding(response)) coder->negotiate(request, head.path, *coding);
    }
    std::string_view method = head.method;
    // A HEAD request is answered by the GET route (without its body) unless the app has HEAD routes of its own,
    // so that a catch-all `any` route does not take HEAD requests away from GET routes.
    RouteTable& routes = routesFor(response);
    if (method == "HEAD" && !routes.hasHeadRoutes) method = "GET";
    bool handled = false;
    if (routes.hasWebSocketRoutes && head.method == "GET")
        handled = routes.router.dispatchMethodOnly(kWebSocketRouteMethod, head.path, tryHandler);
    if (!handled) handled = routes.router.dispatch(method, head.path, tryHandler);
    if (!handled && head.method == "HEAD" && routes.hasHeadRoutes)
        handled = routes.router.dispatch("GET", head.path, tryHandler);
    if (!handled && request.fallbackAnswer() != nullptr && !response.hasResponded()) {
        request.fallbackAnswer()(&response, &request, request.fallbackContext());
        handled = true;
    }
    handling_ = outer;
    --dispatchDepth_;
    return handled;
}

std::size_t HttpServer::extensionConnectionCount() const noexcept {
    std::size_t count = 0;
    for (const auto& extension : extensions_) {
        if (extension) count += extension->connectionCount();
    }
    return count;
}

RequestHead& HttpServer::beginProcessing() noexcept {
    LW_CHECK(!processing_);
    processing_ = true;
    return *head_;
}

void HttpServer::endProcessing() noexcept {
    processing_ = false;
    resumeQueued();
}

void HttpServer::onFlush() {
    if (resumeQueue_ != nullptr) loop_.runBatch([this] { resumeQueued(); });
}

void HttpServer::resumeQueued() noexcept {
    while (resumeQueue_ != nullptr) {
        HttpConnection* connection = resumeQueue_;
        resumeQueue_ = connection->nextToResume_;
        connection->nextToResume_ = nullptr;
        connection->queuedToResume_ = false;
        // Still allocated even if it closed meanwhile: connections are freed after the loop's callbacks.
        connection->continueAfterResponse();
    }
}

void HttpServer::resumeAfterProcessing(HttpConnection& connection) noexcept {
    if (connection.queuedToResume_) return;
    connection.queuedToResume_ = true;
    connection.nextToResume_ = resumeQueue_;
    resumeQueue_ = &connection;
    if (!processing_) loop_.requestFlush(*this);
}

void HttpServer::reportIgnoredWrite(IgnoredWrite kind) noexcept {
    const auto bit = static_cast<std::uint8_t>(kind);
    if ((ignoredWritesReported_ & bit) != 0) return;
    ignoredWritesReported_ |= bit;
    std::fprintf(stderr, "loopwire: warning: %s (this warning is printed once)\n",
                 kind == IgnoredWrite::LateStatus
                     ? "writeStatus after the status line was written (a second writeStatus, or one after writeHeader, "
                       "which writes 200 OK first) was ignored: call writeStatus first"
                     : "writeHeader after the body began (write, tryEnd or end) was ignored");
}

void HttpServer::reportUnansweredRequest() noexcept {
    if (unansweredRequests_++ == 0) {
        std::fprintf(stderr,
                     "loopwire: warning: a handler returned without responding and without onAborted; the request "
                     "was answered with 500 (this warning is printed once)\n");
    }
}

}  // namespace loopwire
