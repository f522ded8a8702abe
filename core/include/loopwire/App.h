// loopwire::App: an HTTP/1.1 server on one event loop, with the API of uWebSockets v20's App.
//
//     loopwire::App app;
//     app.get("/*", [](auto* res, auto* req) { res->end("Hello world!"); })
//        .listen(3000, [](auto* listenSocket) { if (listenSocket) std::puts("listening"); })
//        .run();
//
// Threading: an App and everything it hands out belong to the thread that runs it; one App (one loop) per
// thread. defer() is the only member another thread may call.
// Routes: see Router (core/http/Router.h) for the matching order; a request no route takes gets 404. A HEAD
// request with no HEAD route is given to the GET route, and its body is not sent.
// Lifetime: run() returns once close() has been called and every connection is closed (or when nothing was
// ever listened on). The destructor closes what is still open.
#pragma once

#include <loopwire/AppDescriptor.h>
#include <loopwire/CallbackBatchRunner.h>
#include <loopwire/HttpRequest.h>
#include <loopwire/HttpResponse.h>
#include <loopwire/InlineFunction.h>
#include <loopwire/LoopBackend.h>
#include <loopwire/ProxyProtocol.h>
#include <loopwire/PubSubOptions.h>
#include <loopwire/SocketContextOptions.h>
#include <loopwire/ResponseCompressionOptions.h>
#include <loopwire/StaticFileOptions.h>
#include <loopwire/WebSocket.h>
#include <loopwire/WebSocketBehavior.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include <string_view>

namespace loopwire {

class Loop;
class HttpServer;
class ListenSocket;

// Inline capacity of a route handler.
inline constexpr std::size_t kHandlerCapacity = 64;

// App::close's options.
struct CloseOptions {
    // 0: every connection closes now. Otherwise the App stops listening and lets its connections end on their own
    // for at most this long (App::close says how), then closes what is left as close() does.
    std::uint32_t drainMs = 0;
};

// Bit for App::listen's options: do not share the port with other sockets (no SO_REUSEPORT).
inline constexpr int kListenExclusivePort = 1;

// The timeouts below run on the loop's timeout clock: time during which the loop could not run (a handler that
// blocked it) does not count, and a connection whose next bytes are already waiting unread is never timed out.
struct ServerOptions {
    LoopBackend backend = LoopBackend::Epoll;
    // How often connection deadlines are checked: every timeout below fires up to this much late.
    std::uint32_t sweepIntervalMs = 4000;
    // A keep-alive connection with no request in progress is closed after this long.
    std::uint32_t idleTimeoutMs = 10000;
    // The whole request head must arrive within this long of its first byte (slowloris), else 408.
    std::uint32_t headerTimeoutMs = 10000;
    // A request body must keep arriving at minBodyBytesPerSecond on average, with this much slack, else 408.
    std::uint32_t bodyTimeoutMs = 10000;
    std::uint32_t minBodyBytesPerSecond = 1024;
    // A response whose bytes the peer does not read for this long is aborted: buffered bytes that do not drain,
    // or a tryEnd stream whose onWritable does not come.
    std::uint32_t writeTimeoutMs = 10000;
    // After a response that closes the connection, unread request bytes are drained for at most this long
    // before the socket is closed, so the peer sees the response and not a reset.
    std::uint32_t lingerTimeoutMs = 2000;
    // SSLApp: a connection whose TLS handshake has not finished this long after it was accepted is closed.
    std::uint32_t tlsHandshakeTimeoutMs = 10000;

    ProxyProtocol proxyProtocol = ProxyProtocol::Optional;
    // When not empty, only connections from these sources may send a PROXY header: addresses ("192.0.2.7") and
    // networks ("10.0.0.0/8", "2001:db8::/32"); a header from any other source closes the connection (a peer on a
    // Unix socket is trusted). Behind a balancer, list it: otherwise any client can claim any address. An entry
    // that is neither makes the App fail (constructorFailed()).
    std::vector<std::string> proxyTrustedSources;
    // A PROXY header that has begun but not ended this long after the connection was accepted closes it.
    std::uint32_t proxyHeaderTimeoutMs = 5000;

    // HTTP/2 beside HTTP/1.1, with the same routes and handlers (off by default this release): on TLS when the
    // client's ALPN offers "h2", on cleartext when the client sends HTTP/2's preface (prior knowledge). What differs
    // for handlers on HTTP/2: docs/differences.md.
    bool http2 = false;
};

class App {
public:
    using Handler = InlineFunction<void(HttpResponse*, HttpRequest*), kHandlerCapacity>;
    // Receives the listening socket, or null when listening failed.
    using ListenHandler = InlineFunction<void(ListenSocket*), 32>;
    using Task = InlineFunction<void(), 48>;

    explicit App(const ServerOptions& options = {});
    // An App whose connections speak TLS with tls's material (SSLApp is the usual spelling); see
    // constructorFailed().
    App(const SocketContextOptions& tls, const ServerOptions& options);
    App(void* uvLoop, const SocketContextOptions& tls, const ServerOptions& options);
    // An App on an existing libuv loop that its owner runs (Node's); options.backend is ignored and run() must
    // not be called.
    App(void* uvLoop, const ServerOptions& options);
    ~App();
    App(App&&) noexcept;
    App& operator=(App&&) noexcept;

    App& get(std::string_view pattern, Handler handler);
    App& post(std::string_view pattern, Handler handler);
    App& put(std::string_view pattern, Handler handler);
    App& del(std::string_view pattern, Handler handler);
    App& patch(std::string_view pattern, Handler handler);
    App& options(std::string_view pattern, Handler handler);
    App& head(std::string_view pattern, Handler handler);
    App& connect(std::string_view pattern, Handler handler);
    App& trace(std::string_view pattern, Handler handler);
    App& any(std::string_view pattern, Handler handler);
    // Any method token, upper case ("PROPFIND"), or "*" for every method. A route addRoute() refuses is printed
    // to stderr and ignored.
    App& route(std::string_view method, std::string_view pattern, Handler handler);
    // Like route(), for callers that report the failure themselves (the Node addon throws): returns false, and
    // changes nothing, when the pattern is malformed (see docs/decisions/router.md) or when the App is
    // dispatching a request right now (routes cannot change from inside a handler). Allocates (set-up time).
    bool addRoute(std::string_view method, std::string_view pattern, Handler handler);
    // Removes a route added with this method ("GET", or "*" for any) and pattern. Returns whether it existed.
    bool removeRoute(std::string_view method, std::string_view pattern);

    // Static files (docs/static-files.md; app.static in JavaScript, where static is not a reserved word): GET and
    // HEAD of urlPrefix/relPath serve rootDirectory/relPath, in the core: conditional requests, ranges, a bounded
    // in-memory cache of small files, never a file outside the root (symbolic links included) nor, by default, a
    // dotfile. urlPrefix is a path ("/", "/assets"; a trailing slash is ignored); a folder named without its
    // trailing slash gets 301, with it its index file. Other methods get 405. The routes are added like get()'s, at
    // the App's current domain(). tryServeStatic returns false, with error saying why and nothing added, when the
    // folder cannot be opened, urlPrefix is not a plain path, or an option is not usable; serveStatic prints that to
    // stderr. Allocates (set-up time); serving a cached file, a 304 or a streamed file allocates nothing.
    bool tryServeStatic(std::string_view urlPrefix, std::string_view rootDirectory, const StaticFileOptions& options,
                        std::string& error);
    App& serveStatic(std::string_view urlPrefix, std::string_view rootDirectory, const StaticFileOptions& options = {});

    // Codes the responses to requests whose path matches pattern (a route pattern, any method) with gzip, brotli or
    // zstd when the request's Accept-Encoding accepts one: bodies given to end() (at least options.minBytes),
    // tryEnd() (by its totalSize) and write() (streamed, each write flushed), of a compressible Content-Type the
    // handler wrote, unless it wrote a Content-Encoding or a Content-Length, answers a HEAD, or sends a 206 or a
    // status without a body. Such responses carry Vary: Accept-Encoding (coded or not) and a strong ETag the handler
    // wrote becomes weak. The first rule whose pattern matches (in route order) decides. docs/compression.md.
    // tryCompress returns false, with error saying why, for a malformed pattern, an unknown coding or a level out of
    // range; compress prints that to stderr. Allocates (set-up time); a coded end() allocates nothing once warm
    // (brotli's stream state aside, made for each response).
    bool tryCompress(std::string_view pattern, const ResponseCompressionOptions& options, std::string& error);
    App& compress(std::string_view pattern, const ResponseCompressionOptions& options = {});

    // A WebSocket route: a GET route on pattern that upgrades the requests asking for a WebSocket, and yields
    // the others to the next route (see WebSocketContext for the handshake). A behaviour whose settings are out
    // of range (WebSocketSettings::check), or a malformed pattern, is printed to stderr and ignored.
    template <typename UserData>
    App& ws(std::string_view pattern, WebSocketBehavior<UserData>&& behavior) {
        WebSocketSettings settings = TypedWebSocketEvents<UserData>::settingsOf(behavior);
        if (const char* invalid = settings.check(); invalid != nullptr) {
            reportInvalidWebSocketSetting(invalid);
            return *this;
        }
        if (!addWebSocketRoute(pattern, settings,
                               std::make_unique<TypedWebSocketEvents<UserData>>(std::move(behavior)))) {
            reportInvalidPattern(pattern);
        }
        return *this;
    }
    // The same without a type, for bindings. Returns false, and changes nothing, when settings.check() fails, the
    // pattern is malformed or the App is dispatching a request. Allocates (set-up time).
    bool addWebSocketRoute(std::string_view pattern, const WebSocketSettings& settings,
                           std::unique_ptr<WebSocketEvents> events);
    // Sends message to every subscriber of topic (on every WebSocket route of this App). Returns whether the topic
    // had subscribers. Delivered after the current batch of callbacks (see WebSocket.h).
    bool publish(std::string_view topic, std::string_view message, OpCode opCode = OpCode::Binary,
                 bool compress = false);
    // This App's own subscribers of topic: a cluster-wide count would cost a round trip to the broker.
    std::size_t numSubscribers(std::string_view topic) const;

    // Pub/sub across processes and machines (docs/node/pubsub-cluster.md): from now on every publish of this App
    // (App::publish, WebSocket::publish) also goes to the Redis server options.url names, and what the other Apps
    // connected to it with the same prefix publish reaches this App's subscribers. The App subscribes to a topic's
    // channel only while it has local subscribers. Connecting happens in the background; events (may be empty)
    // is told when the link is ready, breaks, fails or drops publishes. Replaces an earlier connection. Returns
    // false, with error saying why and an earlier connection untouched, when options are not usable (a malformed
    // URL); connectPubSub(options) prints that to stderr instead. Allocates (set-up time). close() disconnects.
    bool tryConnectPubSub(const PubSubOptions& options, PubSubEventHandler events, std::string& error);
    App& connectPubSub(const PubSubOptions& options, PubSubEventHandler events = {});
    // Ends the link (queued publishes are dropped); local pub/sub goes on. No-op when not connected.
    void disconnectPubSub() noexcept;
    // The link's counters and state (PubSubState::Closed, all zero, when not connected).
    PubSubStats pubSubStats() const noexcept;
    // Reads topic's history (options.history) after since (an empty epoch: from the start of the current one):
    // handler is called once, from a loop callback, with the messages a client that was at since missed, or with
    // recovered = false when the history no longer covers it, or with an error (PubSubHistory). False, and
    // handler not called, when pub/sub is not connected. Allocates (a read is not on the hot path).
    bool getHistory(std::string_view topic, PubSubPosition since, PubSubHistoryHandler handler);

    App& listen(int port, ListenHandler handler);
    App& listen(std::string_view host, int port, ListenHandler handler);
    App& listen(int port, int options, ListenHandler handler);
    App& listen(std::string_view host, int port, int options, ListenHandler handler);
    App& listenUnix(std::string_view path, ListenHandler handler);

    // Runs the loop (standalone Apps only).
    void run();
    // Stops listening and closes every connection (pending responses are aborted).
    void close();
    // Graceful shutdown: stops listening now, then lets the connections end on their own for at most
    // options.drainMs. An idle keep-alive connection closes at once; one with a request in progress finishes it, its
    // response says Connection: close (unless it began before) and the connection closes after it; later pipelined
    // requests are not answered. WebSockets are closed with 1001 (Going Away), their close handlers run, and the
    // closing handshake ends as end() ends it. Whatever is still open after drainMs is closed as by close(). onClosed
    // runs on the loop thread once nothing is left (after the call returns, also with drainMs 0). A later close()
    // ends the drain at once; a later close(options) can only bring its end closer. The loop stays alive until then.
    using ClosedHandler = InlineFunction<void(), 32>;
    void close(const CloseOptions& options, ClosedHandler onClosed = nullptr);
    // Runs task on this App's loop thread. Thread-safe.
    void defer(Task task);

    // Several threads, one App and one loop each (docs/cpp-guide.md, "Several threads"). Two ways to share a
    // port: every App listens on it (SO_REUSEPORT, the default; the kernel spreads the connections), or one
    // acceptor App listens and hands every socket it accepts to its child Apps in turn, which serve it on their
    // own loops exactly as if they had accepted it. With no child able to take a socket, the acceptor serves it.

    // This App as a child, for the acceptors of other threads. Call it on this App's thread (or before its
    // thread starts): from then on the App takes sockets handed to it, and its loop stays alive (run() does not
    // return) until close(), as a listening App's does. Returns an equal descriptor every time. close() ends it.
    AppDescriptor getDescriptor();
    // Adds a child; the same child added twice gets two turns. A child whose descriptor was not taken yet is
    // skipped until it is; one that has ended is dropped. This App's thread only. Allocates (set-up time).
    App& addChildApp(const AppDescriptor& child);
    // The same, by address, as uWebSockets names it: child->getDescriptor() must be called on the child's own
    // thread, and until it is, the child is skipped.
    App& addChildApp(App* child);
    // Removes every turn of child; the others keep their order. An unknown child is ignored.
    App& removeChildApp(const AppDescriptor& child);
    App& removeChildApp(App* child);
    // Serves fd, a connected stream socket accepted elsewhere, as if a listener of this App had accepted it, and
    // takes ownership of it: one that is not an open, connected stream socket is closed, with a message on stderr.
    // One this App serves already is refused (left open, with the message). One that another loopwire App serves
    // must not be given: nothing can tell it here.
    App& adoptSocket(int fd);
    // Like adoptSocket, for callers that report failure themselves: returns false, and leaves fd open and
    // untouched, when it is not an open, connected stream socket, or this App serves it already.
    bool tryAdoptSocket(int fd);

    // Connections open right now: HTTP connections and WebSockets.
    std::size_t connectionCount() const noexcept;

    // Every batch of this App's loop callbacks goes through runner from now on (null: none, the default). For
    // embedders; see CallbackBatchRunner.
    App& setBatchRunner(CallbackBatchRunner* runner) noexcept;

    // constructorFailed() is true when the App's options could not be used: an SSLApp's key or certificate, or a
    // proxyTrustedSources entry; it then never listens (the listen handler gets null), and constructionError()
    // says which option was at fault and why. isSsl(): an SSLApp (also one that failed).
    bool isSsl() const noexcept { return ssl_; }
    bool constructorFailed() const noexcept { return !constructionError_.empty(); }
    const std::string& constructionError() const noexcept { return constructionError_; }
    // Server names (SNI): connections whose ClientHello asks for a name pattern covers get that pattern's key and
    // certificate. pattern: a host name, or "*." and a domain for its subdomains (one label deep). Allocates.
    // tryAddServerName returns false, with error naming the option, when the material does not load or this App
    // is not an SSLApp; addServerName prints that to stderr.
    bool tryAddServerName(std::string_view pattern, const SocketContextOptions& options, std::string& error);
    App& addServerName(std::string_view pattern, const SocketContextOptions& options);
    App& removeServerName(std::string_view pattern);
    // Runs during a handshake that asks for a name no pattern covers, before the default certificate is used; it
    // may call addServerName for that name, which then serves this very handshake.
    using MissingServerNameHandler = InlineFunction<void(std::string_view hostname), 48>;
    App& missingServerName(MissingServerNameHandler handler);
    // Routes added from now on belong to server name pattern (as given to addServerName): a request on a
    // connection whose handshake picked pattern goes to pattern's routes only; other requests never reach them.
    // An empty pattern goes back to the App's own routes. A plain App has one set of routes: it ignores this.
    App& domain(std::string_view pattern);

    Loop& loop() noexcept { return *loop_; }
    HttpServer& server() noexcept { return *server_; }

    // The port a listening socket is bound to (0 for Unix sockets).
    static int localPort(const ListenSocket* listenSocket) noexcept;
    // Stops one listening socket.
    static void closeListenSocket(ListenSocket* listenSocket) noexcept;

private:
    void useTls(const SocketContextOptions& tls);
    static void reportInvalidPattern(std::string_view pattern);
    static void reportInvalidWebSocketSetting(const char* setting);

    std::unique_ptr<Loop> loop_;
    std::unique_ptr<HttpServer> server_;
    std::string constructionError_;
    bool ssl_ = false;
};

// loopwire::SSLApp: an App that speaks HTTPS (and WSS), with uWebSockets v20's SSLApp constructor. Everything
// else is App's. TLS 1.2 and 1.3, ALPN http/1.1, session resumption, SNI (App::addServerName).
class SSLApp : public App {
public:
    explicit SSLApp(const SocketContextOptions& tls, const ServerOptions& options = {}) : App(tls, options) {}
    // On an existing libuv loop (see App).
    SSLApp(void* uvLoop, const SocketContextOptions& tls, const ServerOptions& options) : App(uvLoop, tls, options) {}
};

}  // namespace loopwire
