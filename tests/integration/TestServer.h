// TestServer: an App running on its own thread for a test, listening on 127.0.0.1 port 0.
//
// The setup function runs on the server thread before listening (add routes there). The destructor closes the
// App from its own thread (defer) and joins, so every test cleans up even when an assertion fails.
#pragma once

#include <loopwire/App.h>

#include <functional>
#include <future>
#include <string>
#include <thread>

namespace loopwire::test {

class TestServer {
public:
    using Setup = std::function<void(App&)>;

    TestServer(ServerOptions options, Setup setup);
    // A server listening on a Unix socket at unixPath instead of TCP.
    TestServer(ServerOptions options, Setup setup, std::string unixPath);
    // An SSLApp with tls's material (the views must live until the constructor returns). Throws when it cannot
    // listen, with the SSLApp's constructionError().
    TestServer(ServerOptions options, Setup setup, const SocketContextOptions& tls);
    ~TestServer();
    TestServer(const TestServer&) = delete;
    TestServer& operator=(const TestServer&) = delete;

    int port() const noexcept { return port_; }
    // Runs f on the server thread and waits for it.
    void runOnLoop(std::function<void(App&)> f);
    // Connections the server has open, read on its thread.
    std::size_t connectionCount();

private:
    void start(ServerOptions options, Setup setup, std::string unixPath, const SocketContextOptions* tls);

    App* app_ = nullptr;
    int port_ = 0;
    std::thread thread_;
};

// Runs f on the thread that runs app (from another thread) and waits for it.
void runOnAppThread(App& app, const std::function<void(App&)>& f);

// A POST /* route that reads the body with onData and answers "received <bytes>".
void answerWithBodyLength(App& app);

// While set (non-null), TestServer(options, setup) makes an SSLApp with this material: the fixtures run the same
// HTTP tests over TLS by setting it.
void setDefaultServerTls(const SocketContextOptions* tls) noexcept;

// The two backends every integration test runs on, for INSTANTIATE_TEST_SUITE_P.
inline std::string backendName(LoopBackend backend) { return backend == LoopBackend::Epoll ? "epoll" : "libuv"; }

}  // namespace loopwire::test
