// Several loops, one per thread: Apps sharing a port through SO_REUSEPORT, an acceptor App handing its sockets
// to child Apps in turn (addChildApp, removeChildApp, getDescriptor), and adoptSocket.
#include "Fixture.h"
#include "http/SocketInbox.h"
#include "loop/Loop.h"

#include <loopwire/AppDescriptor.h>

#include <dirent.h>
#include <fcntl.h>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace loopwire::test {
namespace {

constexpr std::string_view kRequest = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

// An App on a thread of its own, built by setup on that thread; it may listen or not. The destructor closes the
// App from its thread (unless its loop has ended already) and joins.
class AppThread {
public:
    using Setup = std::function<void(App&)>;

    AppThread(ServerOptions options, Setup setup) {
        std::promise<void> ready;
        thread_ = std::thread([this, options, &setup, &ready] {
            App app(options);
            app_ = &app;
            setup(app);
            ready.set_value();
            app.run();
            // The loop may end before the destructor (a test that closed the App): it must not use it then.
            std::lock_guard<std::mutex> lock(mutex_);
            app_ = nullptr;
        });
        ready.get_future().wait();
    }
    ~AppThread() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (App* app = app_) app->defer([app] { app->close(); });
        }
        thread_.join();
    }
    AppThread(const AppThread&) = delete;
    AppThread& operator=(const AppThread&) = delete;

    // Runs f on the App's thread and waits for it.
    void runOnLoop(const std::function<void(App&)>& f) { runOnAppThread(*app_, f); }
    App* app() const noexcept { return app_; }

private:
    std::mutex mutex_;
    App* app_ = nullptr;  // null once run() has returned
    std::thread thread_;
};

// A route answering name, for telling which App served a request.
AppThread::Setup answering(std::string name) {
    return [name](App& app) { app.get("/*", [name](HttpResponse* res, HttpRequest*) { res->end(name); }); };
}

// Answers name and hands its descriptor out.
AppThread::Setup child(std::string name, AppDescriptor& descriptor) {
    return [name, &descriptor](App& app) {
        answering(name)(app);
        descriptor = app.getDescriptor();
    };
}

// The bodies of n requests, each on a connection of its own, made one after the other.
std::vector<std::string> bodies(int port, int n) {
    std::vector<std::string> result;
    for (int i = 0; i < n; ++i) {
        auto response = fetch(port, kRequest);
        result.push_back(response ? response->body : "(no response)");
    }
    return result;
}

std::size_t openDescriptors() {
    std::size_t count = 0;
    DIR* directory = ::opendir("/proc/self/fd");
    while (::readdir(directory) != nullptr)
        ++count;
    ::closedir(directory);
    return count;
}

// Polls every 10 ms until condition holds (true) or 3 s pass (false).
bool eventually(const std::function<bool()>& condition) {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (!condition()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

class ThreadsTest : public BackendTest {
protected:
    // An acceptor on 127.0.0.1 port 0 that answers "acceptor" itself, with children added on its thread.
    std::unique_ptr<AppThread> acceptor(std::vector<AppDescriptor> children) {
        return std::make_unique<AppThread>(options(), [this, children](App& app) {
            answering("acceptor")(app);
            for (const AppDescriptor& descriptor : children)
                app.addChildApp(descriptor);
            app.listen("127.0.0.1", 0, [this](ListenSocket* socket) { acceptorPort_ = App::localPort(socket); });
        });
    }
    int acceptorPort_ = 0;
};

TEST_P(ThreadsTest, AppsListeningOnOnePortEachServeSomeConnections) {
    int port = 0;
    std::vector<std::unique_ptr<AppThread>> apps;
    for (int index = 0; index < 4; ++index) {
        apps.push_back(std::make_unique<AppThread>(options(), [index, &port](App& app) {
            answering(std::to_string(index))(app);
            app.listen("127.0.0.1", port, [&port](ListenSocket* socket) {
                ASSERT_NE(socket, nullptr);
                port = App::localPort(socket);
            });
        }));
    }
    std::map<std::string, int> served;
    for (const std::string& body : bodies(port, 64))
        ++served[body];
    // Each App is left out with a chance of (3/4)^64.
    EXPECT_EQ(served.size(), 4u);
    for (int index = 0; index < 4; ++index)
        EXPECT_GT(served[std::to_string(index)], 0) << index;
}

TEST_P(ThreadsTest, AnAcceptorDealsItsSocketsToItsChildrenInTurn) {
    std::vector<AppDescriptor> descriptors(3);
    AppThread first(options(), child("0", descriptors[0]));
    AppThread second(options(), child("1", descriptors[1]));
    AppThread third(options(), child("2", descriptors[2]));
    auto main = acceptor(descriptors);
    EXPECT_EQ(bodies(acceptorPort_, 6), (std::vector<std::string>{"0", "1", "2", "0", "1", "2"}));
    // Keep-alive connections stay with the child that got them.
    TestClient client(acceptorPort_);
    for (int i = 0; i < 3; ++i) {
        client.send(kRequest);
        auto response = client.readResponse();
        ASSERT_TRUE(response);
        EXPECT_EQ(response->body, "0");
    }
}

TEST_P(ThreadsTest, AChildThatClosedIsDroppedAndItsThreadEnds) {
    std::vector<AppDescriptor> descriptors(3);
    AppThread first(options(), child("0", descriptors[0]));
    auto second = std::make_unique<AppThread>(options(), child("1", descriptors[1]));
    AppThread third(options(), child("2", descriptors[2]));
    auto main = acceptor(descriptors);
    second->runOnLoop([](App& app) { app.close(); });
    EXPECT_FALSE(descriptors[1].isOpen());
    // Closing leaves the child's loop nothing to do: its run() returns, and the thread joins.
    second.reset();
    EXPECT_EQ(bodies(acceptorPort_, 4), (std::vector<std::string>{"0", "2", "0", "2"}));
}

TEST_P(ThreadsTest, RemovedChildrenGetNoMoreSockets) {
    std::vector<AppDescriptor> descriptors(2);
    AppThread first(options(), child("0", descriptors[0]));
    AppThread second(options(), child("1", descriptors[1]));
    auto main = acceptor({descriptors[0], descriptors[1], descriptors[0]});
    main->runOnLoop([&](App& app) { app.removeChildApp(descriptors[0]); });
    EXPECT_EQ(bodies(acceptorPort_, 3), (std::vector<std::string>{"1", "1", "1"}));
    main->runOnLoop([&](App& app) { app.removeChildApp(descriptors[1]).removeChildApp(AppDescriptor()); });
    EXPECT_EQ(bodies(acceptorPort_, 2), (std::vector<std::string>{"acceptor", "acceptor"}));
}

TEST_P(ThreadsTest, AChildIsSkippedUntilItTakesItsDescriptor) {
    // Listening keeps the child's loop running before it has a descriptor.
    AppThread late(options(), [](App& app) {
        answering("late")(app);
        app.listen("127.0.0.1", 0, [](ListenSocket*) {});
    });
    App* lateApp = late.app();
    auto main = std::make_unique<AppThread>(options(), [this, lateApp](App& app) {
        answering("acceptor")(app);
        app.addChildApp(lateApp);
        app.listen("127.0.0.1", 0, [this](ListenSocket* socket) { acceptorPort_ = App::localPort(socket); });
    });
    EXPECT_EQ(bodies(acceptorPort_, 2), (std::vector<std::string>{"acceptor", "acceptor"}));
    late.runOnLoop([](App& app) { EXPECT_TRUE(app.getDescriptor().isOpen()); });
    EXPECT_EQ(bodies(acceptorPort_, 2), (std::vector<std::string>{"late", "late"}));
}

TEST_P(ThreadsTest, SocketsWaitingForAChildThatEndsAreClosed) {
    // The first libuv loop of a process opens descriptors libuv keeps until the process ends (its signal pipe).
    { App warmUp(options()); }
    std::size_t descriptorsBefore = openDescriptors();
    {
        // A child whose loop never runs: what is handed to it waits in its inbox.
        auto idle = std::make_unique<App>(options());
        AppDescriptor descriptor = idle->getDescriptor();
        auto main = acceptor({descriptor});
        TestClient waiting(acceptorPort_);
        waiting.send(kRequest);
        ASSERT_TRUE(eventually([&] { return descriptor.pendingSockets() == 1; }));
        idle.reset();
        EXPECT_FALSE(descriptor.isOpen());
        EXPECT_EQ(descriptor.pendingSockets(), 0u);
        EXPECT_TRUE(waiting.waitForClose());
        // The acceptor drops the child that ended, and serves by itself again.
        EXPECT_EQ(bodies(acceptorPort_, 1), (std::vector<std::string>{"acceptor"}));
    }
    EXPECT_EQ(openDescriptors(), descriptorsBefore);
}

TEST_P(ThreadsTest, AChildWithAFullInboxIsPassedBy) {
    std::size_t needed = 2 * SocketInbox::kMaxPendingSockets + 64;
    rlimit limit{};
    ::getrlimit(RLIMIT_NOFILE, &limit);
    if (limit.rlim_cur < needed && limit.rlim_max >= needed) {
        limit.rlim_cur = needed;
        ::setrlimit(RLIMIT_NOFILE, &limit);
    }
    if (limit.rlim_cur < needed) GTEST_SKIP() << "needs " << needed << " descriptors";
    auto idle = std::make_unique<App>(options());
    AppDescriptor descriptor = idle->getDescriptor();
    auto main = acceptor({descriptor});
    std::vector<std::unique_ptr<TestClient>> waiting;
    // In steps, so that the acceptor's backlog never overflows (the kernel would then retry connects a second later).
    while (waiting.size() < SocketInbox::kMaxPendingSockets) {
        for (int i = 0; i < 128 && waiting.size() < SocketInbox::kMaxPendingSockets; ++i)
            waiting.push_back(std::make_unique<TestClient>(acceptorPort_));
        ASSERT_TRUE(eventually([&] { return descriptor.pendingSockets() == waiting.size(); }));
    }
    // The inbox is full: the acceptor serves the next connection itself, and the child stays on its list.
    EXPECT_EQ(bodies(acceptorPort_, 1), (std::vector<std::string>{"acceptor"}));
    EXPECT_EQ(descriptor.pendingSockets(), SocketInbox::kMaxPendingSockets);
    idle.reset();
    EXPECT_TRUE(waiting.front()->waitForClose());
    EXPECT_TRUE(waiting.back()->waitForClose());
}

// Reads fd until the peer closes it (or nothing comes for 5 s), then closes it; returns what arrived.
std::string readUntilClosed(int fd) {
    std::string answer;
    pollfd readable{fd, POLLIN, 0};
    char buffer[4096];
    while (::poll(&readable, 1, 5000) == 1) {
        ssize_t got = ::read(fd, buffer, sizeof buffer);
        if (got <= 0) break;
        answer.append(buffer, static_cast<std::size_t>(got));
    }
    ::close(fd);
    return answer;
}

TEST_P(ThreadsTest, AdoptSocketServesAConnectedSocket) {
    int pair[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    AppThread server(options(), [](App& app) {
        answering("adopted")(app);
        app.getDescriptor();  // keeps the loop running
    });
    server.runOnLoop([&](App& app) { EXPECT_TRUE(app.tryAdoptSocket(pair[0])); });
    std::string request = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    ASSERT_EQ(::write(pair[1], request.data(), request.size()), static_cast<ssize_t>(request.size()));
    std::string answer = readUntilClosed(pair[1]);
    EXPECT_EQ(answer.substr(0, 15), "HTTP/1.1 200 OK");
    EXPECT_EQ(answer.substr(answer.size() - 7), "adopted");
}

// Sockets are watched edge-triggered: epoll announces bytes once, when they arrive. A socket adopted with more
// queued than one read takes (the loop's receive buffer) gets no later announcement for the rest, since nothing
// new arrives; the read that filled the buffer must ask for the socket to be reported again, or the request
// would wait forever. The client's send buffer is enlarged so that the kernel queues the whole request before the
// App sees the socket (as root, or where net.core.wmem_max allows; elsewhere what does not fit is sent after, and
// the test checks less).
TEST_P(ThreadsTest, AnAdoptedSocketWithMoreQueuedThanOneReadIsReadToTheEnd) {
    int pair[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    constexpr std::size_t kBodyBytes = 3 * Loop::kReceiveBufferBytes + 123;
    enlargeSendBuffer(pair[1], 4 * static_cast<int>(kBodyBytes));
    const std::string request = postWithBody(kBodyBytes, "Connection: close\r\n");
    ssize_t queued = ::send(pair[1], request.data(), request.size(), MSG_DONTWAIT);
    ASSERT_GT(queued, 0);

    AppThread server(options(), [](App& app) {
        answerWithBodyLength(app);
        app.getDescriptor();  // keeps the loop running
    });
    server.runOnLoop([&](App& app) { EXPECT_TRUE(app.tryAdoptSocket(pair[0])); });
    for (auto sent = static_cast<std::size_t>(queued); sent < request.size();) {
        ssize_t more = ::write(pair[1], request.data() + sent, request.size() - sent);
        ASSERT_GT(more, 0);
        sent += static_cast<std::size_t>(more);
    }
    std::string answer = readUntilClosed(pair[1]);
    ASSERT_GE(answer.size(), 15u) << "no answer: the rest of the body was never read";
    EXPECT_EQ(answer.substr(0, 15), "HTTP/1.1 200 OK");
    std::string expected = "received " + std::to_string(kBodyBytes);
    EXPECT_EQ(answer.substr(answer.size() - expected.size()), expected);
}

TEST_P(ThreadsTest, ASocketThisAppServesAlreadyIsRefusedAndKeepsWorking) {
    int pair[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    AppThread server(options(), [](App& app) {
        answering("adopted once")(app);
        app.getDescriptor();  // keeps the loop running
    });
    server.runOnLoop([&](App& app) {
        EXPECT_TRUE(app.tryAdoptSocket(pair[0]));
        EXPECT_FALSE(app.tryAdoptSocket(pair[0]));
        app.adoptSocket(pair[0]);  // refused, and left open: the connection has it
        EXPECT_EQ(app.connectionCount(), 1u);
    });
    std::string request = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    ASSERT_EQ(::write(pair[1], request.data(), request.size()), static_cast<ssize_t>(request.size()));
    std::string answer = readUntilClosed(pair[1]);
    ASSERT_GE(answer.size(), 15u);
    EXPECT_EQ(answer.substr(0, 15), "HTTP/1.1 200 OK");
    EXPECT_EQ(answer.substr(answer.size() - 12), "adopted once");
}

TEST_P(ThreadsTest, TryAdoptSocketLeavesAloneWhatIsNotAConnectedStreamSocket) {
    App app(options());
    auto isOpen = [](int fd) { return ::fcntl(fd, F_GETFD) != -1; };
    int pipeEnds[2];
    ASSERT_EQ(::pipe(pipeEnds), 0);
    int datagram = ::socket(AF_INET, SOCK_DGRAM, 0);
    int unconnected = ::socket(AF_INET, SOCK_STREAM, 0);
    int listening = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in any{};
    any.sin_family = AF_INET;
    any.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(listening, reinterpret_cast<sockaddr*>(&any), sizeof any), 0);
    ASSERT_EQ(::listen(listening, 1), 0);
    EXPECT_FALSE(app.tryAdoptSocket(-1));
    EXPECT_FALSE(app.tryAdoptSocket(1 << 20));
    for (int fd : {pipeEnds[0], datagram, unconnected, listening}) {
        EXPECT_FALSE(app.tryAdoptSocket(fd)) << fd;
        EXPECT_TRUE(isOpen(fd)) << fd;
        EXPECT_EQ(::fcntl(fd, F_GETFL) & O_NONBLOCK, 0) << fd;
    }
    // adoptSocket owns what it is given: what it cannot serve, it closes.
    app.adoptSocket(pipeEnds[0]);
    EXPECT_FALSE(isOpen(pipeEnds[0]));
    for (int fd : {pipeEnds[1], datagram, unconnected, listening})
        ::close(fd);
    EXPECT_EQ(app.connectionCount(), 0u);
}

LW_INSTANTIATE_BACKENDS(ThreadsTest);

}  // namespace
}  // namespace loopwire::test
