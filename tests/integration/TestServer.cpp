#include "TestServer.h"

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace loopwire::test {

namespace {
const SocketContextOptions* gDefaultServerTls = nullptr;
}  // namespace

void setDefaultServerTls(const SocketContextOptions* tls) noexcept { gDefaultServerTls = tls; }

TestServer::TestServer(ServerOptions options, Setup setup) { start(options, std::move(setup), {}, gDefaultServerTls); }

TestServer::TestServer(ServerOptions options, Setup setup, std::string unixPath) {
    start(options, std::move(setup), std::move(unixPath), gDefaultServerTls);
}

TestServer::TestServer(ServerOptions options, Setup setup, const SocketContextOptions& tls) {
    start(options, std::move(setup), {}, &tls);
}

void TestServer::start(ServerOptions options, Setup setup, std::string unixPath, const SocketContextOptions* tls) {
    std::promise<int> ready;
    auto portFuture = ready.get_future();
    std::string failure;
    thread_ = std::thread([this, options, setup = std::move(setup), unixPath, tls, &ready, &failure]() mutable {
        std::optional<App> plainApp;
        std::optional<SSLApp> sslApp;
        if (tls != nullptr) {
            sslApp.emplace(*tls, options);
        } else {
            plainApp.emplace(options);
        }
        App& app = tls != nullptr ? static_cast<App&>(*sslApp) : *plainApp;
        failure = app.constructionError();
        app_ = &app;
        if (setup) setup(app);
        auto onListen = [&ready](ListenSocket* socket) {
            ready.set_value(socket == nullptr ? -1 : App::localPort(socket));
        };
        if (unixPath.empty()) {
            app.listen("127.0.0.1", 0, onListen);
        } else {
            app.listenUnix(unixPath, onListen);
        }
        app.run();
        app_ = nullptr;
    });
    if (portFuture.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
        throw std::runtime_error("test server did not start");
    }
    port_ = portFuture.get();
    if (port_ < 0) {
        thread_.join();
        throw std::runtime_error("test server could not listen" + (failure.empty() ? "" : ": " + failure));
    }
}

TestServer::~TestServer() {
    if (app_ != nullptr) {
        App* app = app_;
        app->defer([app] { app->close(); });
    }
    if (thread_.joinable()) thread_.join();
}

void runOnAppThread(App& app, const std::function<void(App&)>& f) {
    std::promise<void> done;
    // Through the heap: the task's captures are larger than App::Task holds inline.
    auto* task = new std::function<void()>([&] {
        f(app);
        done.set_value();
    });
    app.defer([task] {
        (*task)();
        delete task;
    });
    done.get_future().wait();
}

void TestServer::runOnLoop(std::function<void(App&)> f) { runOnAppThread(*app_, f); }

void answerWithBodyLength(App& app) {
    app.post("/*", [](HttpResponse* res, HttpRequest*) {
        auto received = std::make_shared<std::size_t>(0);
        res->onAborted([] {});
        res->onData([res, received](std::string_view chunk, bool isLast) {
            *received += chunk.size();
            if (isLast) res->end("received " + std::to_string(*received));
        });
    });
}

std::size_t TestServer::connectionCount() {
    std::size_t count = 0;
    runOnLoop([&count](App& app) { count = app.connectionCount(); });
    return count;
}

}  // namespace loopwire::test
