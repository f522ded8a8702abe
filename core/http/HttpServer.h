// HttpServer: the routes, handlers, listening sockets and connections of one App on one loop.
//
// App owns it; HttpConnection calls dispatch() for each request head. Routes are added at set-up time (that
// allocates); dispatch() does not allocate. Loop thread only.
#pragma once

#include "Router.h"
#include "loop/Timer.h"
#include "ServerThreads.h"
#include "net/ListenSocket.h"
#include "net/ProxyPolicy.h"
#include "net/Socket.h"
#include "net/TlsContext.h"

#include <loopwire/App.h>

#include <array>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopwire {

class HttpConnection;
struct RequestHead;

// A layer built on the server (the WebSocket layer, static files, compression): the server owns it and closes it
// with itself, without depending on it. One of each kind per server; each extension type names its kind (a
// `static constexpr ServerExtensionKind kKind`), so that the server hands it out typed (extension<T>()).
enum class ServerExtensionKind : std::uint8_t { WebSockets, StaticFiles, Compression, Http2 };
inline constexpr std::size_t kServerExtensionKinds = 4;

class ServerExtension {
public:
    virtual ~ServerExtension() = default;
    // Closes every connection (or transfer) of the extension.
    virtual void close() noexcept = 0;
    // App::close(options): asks every connection of the extension to end on its own (a WebSocket's 1001).
    virtual void drain() noexcept {}
    // Connections the extension owns (not the HttpServer's).
    virtual std::size_t connectionCount() const noexcept = 0;
};

class HttpServer final : private FlushListener {
public:
    // The method WebSocket routes are added under: not a token (it has a space), so no request names it. GET
    // requests try these routes first, so that app.ws("/*") and app.get("/*") live side by side, as in
    // uWebSockets (a ws route yields the requests that do not ask for a WebSocket).
    static constexpr std::string_view kWebSocketRouteMethod = "GET websocket";

    // Bytes of scratch space a request has for decoded query values.
    static constexpr std::size_t kQueryScratchBytes = 2 * limits::kMaxRequestTargetBytes;

    HttpServer(Loop& loop, const ServerOptions& options);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    Loop& loop() const noexcept { return loop_; }
    const ServerOptions& options() const noexcept { return options_; }
    SocketGroup& connections() noexcept { return connections_; }

    // Add to, and remove from, the routes selectDomain() chose (the server's own by default). A route added with
    // the method and pattern of an existing one replaces it (Router::add), except a leading route's.
    bool addRoute(std::string_view method, std::string_view pattern, App::Handler handler);
    bool removeRoute(std::string_view method, std::string_view pattern);
    // A route that a later route of the same method and pattern does not replace but follows: the later one runs
    // when the leading one yields, as the next route would. For layers whose routes the app does not see (a static
    // mount at "/*", whose misses go on to the app's own get("/*")). Several leading routes of one method and pattern
    // run in the order they were added, before the app's. removeRoute() on such a method and pattern removes the
    // app's route behind them, never a leading one.
    bool addLeadingRoute(std::string_view method, std::string_view pattern, App::Handler handler);

    // Routes per server name (SSLApp, App::domain): from now on addRoute and removeRoute work on the routes of
    // the server-name pattern given (created empty on first use), or on the server's own for an empty pattern.
    // A request on a TLS connection whose handshake picked a pattern that has routes is dispatched to those
    // routes only, as in uWebSockets; any other request to the server's own. Allocates (set-up time).
    void selectDomain(std::string_view pattern);
    // Links pattern's routes, when it has some, to pattern's TLS context (after TlsContext::addServerName).
    void attachDomain(std::string_view pattern) noexcept;

    // Returns the new listening socket, or null (errno value in error).
    ListenSocket* listen(const ListenOptions& options, int& error);
    ListenSocket* listenUnix(std::string_view path, int& error);
    void closeListenSockets() noexcept;
    void close() noexcept;
    // App::close(options), which says what a drain does. drainMs 0 is close() (onClosed runs after the call).
    void drain(std::uint32_t drainMs, App::ClosedHandler onClosed);
    bool isDraining() const noexcept { return drainDeadlineMs_ != 0; }

    // Runs the handlers that match, in router order, until one does not yield. Returns whether one took it.
    bool dispatch(HttpResponse& response, RequestHead& head);

    // Routes cannot be added or removed while dispatching (addRoute and removeRoute return false).
    bool isDispatching() const noexcept { return dispatchDepth_ > 0; }
    // The request whose handlers are running for response, or null when none is (the handler returned: the request
    // is gone). For layers a handler calls without the request at hand (HttpResponse::sendFile).
    HttpRequest* requestBeingHandled(const HttpResponse& response) const noexcept {
        return handling_.response == &response ? handling_.request : nullptr;
    }

    // Connections process requests one at a time per server: the router cannot dispatch while it dispatches,
    // and the one RequestHead is in use. A connection whose response was completed from outside its own
    // callbacks, and which has further requests buffered, is queued with resumeAfterProcessing() and resumed when
    // the outermost processing ends, or, when nothing is processing, once the loop's current batch is over (in a
    // batch of its own, through the loop's flush).
    bool isProcessing() const noexcept { return processing_; }
    RequestHead& beginProcessing() noexcept;
    void endProcessing() noexcept;
    void resumeAfterProcessing(HttpConnection& connection) noexcept;

    // Reads the options' PROXY protocol settings into the policy every connection reads its header by; false (error
    // says why) when a trusted source is neither an address nor a network. Set-up time.
    bool configureProxy(std::string& error) {
        return proxyPolicy_.configure(options_.proxyProtocol, options_.proxyTrustedSources,
                                      options_.proxyHeaderTimeoutMs, error);
    }
    const ProxyPolicy& proxyPolicy() const noexcept { return proxyPolicy_; }

    // The TLS material of an SSLApp: every connection accepted from then on speaks TLS. Null for plain HTTP.
    TlsContext* tlsContext() const noexcept { return tls_.get(); }
    void setTlsContext(std::unique_ptr<TlsContext> tls) noexcept { tls_ = std::move(tls); }
    // For an SSLApp whose material did not load: listen() fails (EINVAL) from then on, so that it never serves
    // plain HTTP in place of HTTPS.
    void refuseConnections() noexcept { refusingConnections_ = true; }

    // The extension of Extension's kind, as Extension (the type its layer installed, or a base of it that names the
    // same kind: ResponseCoder for the Compression extension); null until its layer installed it. dispatch() asks
    // the Compression extension about every request once it is there.
    template <typename Extension>
    Extension* extension() const noexcept {
        static_assert(std::is_base_of_v<ServerExtension, Extension>);
        return static_cast<Extension*>(extensions_[static_cast<std::size_t>(Extension::kKind)].get());
    }
    // The extension of Extension's kind, made from arguments on first use (set-up time: allocates then).
    template <typename Extension, typename... Arguments>
    Extension& installedExtension(Arguments&&... arguments) {
        auto& slot = extensions_[static_cast<std::size_t>(Extension::kKind)];
        if (!slot) slot = std::make_unique<Extension>(std::forward<Arguments>(arguments)...);
        return static_cast<Extension&>(*slot);
    }
    // Connections the extensions own (WebSockets, static file transfers), for App::connectionCount.
    std::size_t extensionConnectionCount() const noexcept;

    // Threads (ServerThreads): this server's inbox, for acceptors on other threads, and its own children.
    ServerThreads& threads() noexcept { return threads_; }
    // Serves fd, a connected non-blocking socket accepted elsewhere (by another thread's acceptor, or by the
    // embedder), exactly as one accepted by this server's listeners; takes ownership of fd. A MemoryStream's
    // descriptor is served on that stream (tests).
    void adopt(int fd, const SocketAddress& remote);

    // Counts handlers that returned without responding and without onAborted; warns on the first.
    void reportUnansweredRequest() noexcept;

    // A response call that comes too late to write anything, a mistake that changes what the client gets (a 404
    // that goes out as 200): writeStatus after the status line (a second writeStatus, or one after writeHeader,
    // which writes 200 OK first), writeHeader after the body began. Ignored, as uWebSockets ignores them; each kind
    // warns once per server.
    enum class IgnoredWrite : std::uint8_t { LateStatus = 1, LateHeader = 2 };
    void reportIgnoredWrite(IgnoredWrite kind) noexcept;
    std::size_t unansweredRequests() const noexcept { return unansweredRequests_; }

    // How often a drain looks whether every connection has ended.
    static constexpr std::uint32_t kDrainPollMs = 10;

private:
    void onFlush() override;
    // The drain's timer: the first tick asks every connection to end, the others look whether they have, and the
    // last runs onClosed_.
    void onDrainTick() noexcept;
    // No new connection from then on: the listeners and the inbox of handed sockets close.
    void stopAccepting() noexcept;
    // Resumes the queued connections (see resumeAfterProcessing).
    void resumeQueued() noexcept;
    void accept(int fd, const SocketAddress& remote);
    // A listener accepted fd: a child on another thread gets it (ServerThreads::handOff), else this server.
    void acceptFromListener(int fd, const SocketAddress& remote);

    struct RouteTable {
        std::string pattern;  // the server-name pattern, as given; empty for the server's own
        Router router;
        bool hasHeadRoutes = false;
        bool hasWebSocketRoutes = false;
    };
    RouteTable& routesFor(HttpResponse& response) noexcept;

    Loop& loop_;
    ServerOptions options_;
    ProxyPolicy proxyPolicy_;
    SocketGroup connections_;
    RouteTable routes_;
    std::vector<std::unique_ptr<RouteTable>> domainRoutes_;
    RouteTable* selectedRoutes_ = &routes_;
    // Where a route's handler leads when it yields, behind a leading route: the next handler of the same method and
    // pattern. Kept apart from the handlers, so that dispatch() indexes a deque of 64-byte handlers.
    struct RouteLink {
        static constexpr Router::HandlerId kNone = ~Router::HandlerId{0};
        Router::HandlerId next = kNone;
        bool leading = false;
    };
    Router::HandlerId storeHandler(App::Handler handler, bool leading);
    // The last of the leading routes chained from first (a leading route).
    Router::HandlerId lastLeading(Router::HandlerId first) const noexcept;
    // A deque, so that the address of a handler stays put while routes are added; links_ has one entry per handler.
    std::deque<App::Handler> handlers_;
    std::vector<RouteLink> links_;
    std::vector<std::unique_ptr<ListenSocket>> listeners_;
    ServerThreads threads_{*this};
    std::unique_ptr<char[]> queryScratch_;
    std::size_t unansweredRequests_ = 0;
    std::uint8_t ignoredWritesReported_ = 0;  // IgnoredWrite bits
    std::uint32_t dispatchDepth_ = 0;
    // The response and request of the innermost dispatch() running.
    struct Handling {
        const HttpResponse* response = nullptr;
        HttpRequest* request = nullptr;
    };
    Handling handling_;
    bool processing_ = false;
    HttpConnection* resumeQueue_ = nullptr;
    // Filled by the parser for each request; views into the connection's bytes. Not zeroed per request.
    std::unique_ptr<RequestHead> head_;
    // Outlives the connections (closed in the destructor's close()), whose sessions use it.
    std::unique_ptr<TlsContext> tls_;
    Timer drainTimer_;
    std::uint64_t drainDeadlineMs_ = 0;  // the loop's nowMs() at which a drain ends; 0: not draining
    bool drainWalkPending_ = false;      // the connections have not been asked to end yet
    App::ClosedHandler onClosed_;
    bool refusingConnections_ = false;
    // Declared last: destroyed first, while the loop and the routes still exist.
    std::array<std::unique_ptr<ServerExtension>, kServerExtensionKinds> extensions_;
};

}  // namespace loopwire
