#include <loopwire/App.h>

#include "HttpServer.h"
#include "loop/Loop.h"
#include "net/ListenSocket.h"
#include "net/TlsContext.h"

#include <cstdio>
#include <cstdlib>

namespace loopwire {

namespace {

LoopOptions loopOptionsFor(const ServerOptions& options) {
    LoopOptions loopOptions;
    loopOptions.backend = options.backend;
    loopOptions.sweepIntervalMs = options.sweepIntervalMs;
    return loopOptions;
}

}  // namespace

App::App(const ServerOptions& options) : loop_(Loop::create(loopOptionsFor(options))) {
    if (!loop_) {
        std::fprintf(stderr, "loopwire: this build has no libuv backend\n");
        std::abort();
    }
    server_ = std::make_unique<HttpServer>(*loop_, options);
    if (!server_->configureProxy(constructionError_)) server_->refuseConnections();
}

App::App(void* uvLoop, const ServerOptions& options) : loop_(Loop::createOnUvLoop(uvLoop, options.sweepIntervalMs)) {
    if (!loop_) {
        std::fprintf(stderr, "loopwire: this build has no libuv backend\n");
        std::abort();
    }
    server_ = std::make_unique<HttpServer>(*loop_, options);
    if (!server_->configureProxy(constructionError_)) server_->refuseConnections();
}

App::App(const SocketContextOptions& tls, const ServerOptions& options) : App(options) { useTls(tls); }

App::App(void* uvLoop, const SocketContextOptions& tls, const ServerOptions& options) : App(uvLoop, options) {
    useTls(tls);
}

void App::useTls(const SocketContextOptions& tls) {
    ssl_ = true;
    if (constructorFailed()) return;
    std::string error;
    std::unique_ptr<TlsContext> context = TlsContext::create(tls, server_->options().tlsHandshakeTimeoutMs, error);
    if (!context) {
        // A failed SSLApp must not serve plain HTTP in its place: it keeps refusing connections.
        constructionError_ = error.empty() ? std::string("TLS: unknown error") : std::move(error);
        server_->refuseConnections();
        return;
    }
    if (server_->options().http2) context->offerHttp2();
    server_->setTlsContext(std::move(context));
}

bool App::tryAddServerName(std::string_view pattern, const SocketContextOptions& options, std::string& error) {
    TlsContext* tls = server_->tlsContext();
    if (tls == nullptr) {
        error = "addServerName: this App does not speak TLS (use SSLApp)";
        return false;
    }
    if (!tls->addServerName(pattern, options, error)) return false;
    server_->attachDomain(pattern);
    return true;
}

App& App::domain(std::string_view pattern) {
    if (server_->tlsContext() != nullptr) server_->selectDomain(pattern);
    return *this;
}

App& App::addServerName(std::string_view pattern, const SocketContextOptions& options) {
    std::string error;
    if (!tryAddServerName(pattern, options, error)) std::fprintf(stderr, "loopwire: %s\n", error.c_str());
    return *this;
}

App& App::removeServerName(std::string_view pattern) {
    if (TlsContext* tls = server_->tlsContext()) tls->removeServerName(pattern);
    return *this;
}

App& App::missingServerName(MissingServerNameHandler handler) {
    if (TlsContext* tls = server_->tlsContext()) tls->setMissingServerNameHandler(std::move(handler));
    return *this;
}

App::~App() {
    // The server (and its connections) go before the loop they live on.
    server_.reset();
    loop_.reset();
}

App& App::setBatchRunner(CallbackBatchRunner* runner) noexcept {
    loop_->setBatchRunner(runner);
    return *this;
}

App::App(App&&) noexcept = default;
App& App::operator=(App&&) noexcept = default;

bool App::addRoute(std::string_view method, std::string_view pattern, Handler handler) {
    return server_->addRoute(method, pattern, std::move(handler));
}

App& App::route(std::string_view method, std::string_view pattern, Handler handler) {
    if (!addRoute(method, pattern, std::move(handler))) reportInvalidPattern(pattern);
    return *this;
}

void App::reportInvalidPattern(std::string_view pattern) {
    std::fprintf(stderr, "loopwire: invalid route pattern \"%.*s\" ignored\n", static_cast<int>(pattern.size()),
                 pattern.data());
}

void App::reportInvalidWebSocketSetting(const char* setting) {
    std::fprintf(stderr, "loopwire: WebSocket route ignored: %s is out of range\n", setting);
}

App& App::get(std::string_view pattern, Handler handler) { return route("GET", pattern, std::move(handler)); }
App& App::post(std::string_view pattern, Handler handler) { return route("POST", pattern, std::move(handler)); }
App& App::put(std::string_view pattern, Handler handler) { return route("PUT", pattern, std::move(handler)); }
App& App::del(std::string_view pattern, Handler handler) { return route("DELETE", pattern, std::move(handler)); }
App& App::patch(std::string_view pattern, Handler handler) { return route("PATCH", pattern, std::move(handler)); }
App& App::options(std::string_view pattern, Handler handler) { return route("OPTIONS", pattern, std::move(handler)); }
App& App::head(std::string_view pattern, Handler handler) { return route("HEAD", pattern, std::move(handler)); }
App& App::connect(std::string_view pattern, Handler handler) { return route("CONNECT", pattern, std::move(handler)); }
App& App::trace(std::string_view pattern, Handler handler) { return route("TRACE", pattern, std::move(handler)); }
App& App::any(std::string_view pattern, Handler handler) { return route("*", pattern, std::move(handler)); }

bool App::removeRoute(std::string_view method, std::string_view pattern) {
    return server_->removeRoute(method, pattern);
}

App& App::listen(int port, ListenHandler handler) { return listen({}, port, 0, std::move(handler)); }

App& App::listen(std::string_view host, int port, ListenHandler handler) {
    return listen(host, port, 0, std::move(handler));
}

App& App::listen(int port, int options, ListenHandler handler) { return listen({}, port, options, std::move(handler)); }

App& App::listen(std::string_view host, int port, int options, ListenHandler handler) {
    ListenSocket* socket = nullptr;
    if (port >= 0 && port <= 65535) {
        ListenOptions listenOptions;
        listenOptions.host = host;
        listenOptions.port = static_cast<std::uint16_t>(port);
        listenOptions.exclusivePort = (options & kListenExclusivePort) != 0;
        int error = 0;
        socket = server_->listen(listenOptions, error);
    }
    if (handler) handler(socket);
    return *this;
}

App& App::listenUnix(std::string_view path, ListenHandler handler) {
    int error = 0;
    ListenSocket* socket = server_->listenUnix(path, error);
    if (handler) handler(socket);
    return *this;
}

void App::run() { loop_->run(); }

void App::close() { server_->close(); }

void App::close(const CloseOptions& options, ClosedHandler onClosed) {
    server_->drain(options.drainMs, std::move(onClosed));
}

void App::defer(Task task) { loop_->defer(std::move(task)); }

std::size_t App::connectionCount() const noexcept {
    return server_->connections().size() + server_->extensionConnectionCount();
}

int App::localPort(const ListenSocket* listenSocket) noexcept {
    return listenSocket == nullptr ? 0 : listenSocket->port();
}

void App::closeListenSocket(ListenSocket* listenSocket) noexcept {
    if (listenSocket != nullptr) listenSocket->close();
}

}  // namespace loopwire
