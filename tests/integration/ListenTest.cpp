// Listening: port 0, IPv6, Unix sockets, SO_REUSEPORT sharing and the exclusive option, closing a listener.
#include "Fixture.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <thread>

namespace loopwire::test {
namespace {

class Listening : public BackendTest {};
LW_INSTANTIATE_BACKENDS(Listening);

TEST_P(Listening, PortZeroPicksAFreePortThatIsReported) {
    serve([](App& app) { app.get("/", [](HttpResponse* res, HttpRequest*) { res->end("x"); }); });
    EXPECT_GT(port(), 0);
    EXPECT_EQ(fetch(port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n")->body, "x");
}

TEST_P(Listening, ServesOnAUnixSocket) {
    std::string path = "/tmp/loopwire-test-" + std::to_string(::getpid()) + "-" + backendName(backend()) + ".sock";
    {
        TestServer server(
            options(), [](App& app) { app.get("/", [](HttpResponse* res, HttpRequest*) { res->end("unix"); }); }, path);
        TestClient client(path);
        client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        auto response = client.readResponse();
        ASSERT_TRUE(response);
        EXPECT_EQ(response->body, "unix");
        EXPECT_EQ(response->status, 200);
    }
    EXPECT_NE(::access(path.c_str(), F_OK), 0) << "the socket file is removed when the listener closes";
}

TEST_P(Listening, ListensOnIpv6Loopback) {
    int ipv6Port = 0;
    serve([&ipv6Port](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) { res->end(res->getRemoteAddressAsText()); });
        app.listen("::1", 0, [&ipv6Port](ListenSocket* socket) { ipv6Port = socket ? App::localPort(socket) : -1; });
    });
    if (ipv6Port < 0) GTEST_SKIP() << "no IPv6 loopback on this machine";
    int fd = ::socket(AF_INET6, SOCK_STREAM, 0);
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    address.sin6_port = htons(static_cast<std::uint16_t>(ipv6Port));
    address.sin6_addr = in6addr_loopback;
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    std::string request = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    ASSERT_EQ(::send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
    std::string reply;
    char buffer[4096];
    ssize_t got;
    while ((got = ::recv(fd, buffer, sizeof buffer, 0)) > 0)
        reply.append(buffer, static_cast<std::size_t>(got));
    ::close(fd);
    EXPECT_NE(reply.find("\r\n\r\n0000:0000:0000:0000:0000:0000:0000:0001"), std::string::npos) << reply;
}

TEST_P(Listening, SharesAPortByDefaultButNotWhenExclusive) {
    int first = 0;
    bool sharedOk = false;
    bool exclusiveOk = true;
    serve([&](App& app) {
        app.listen("127.0.0.1", 0, [&first](ListenSocket* socket) { first = App::localPort(socket); });
        app.listen("127.0.0.1", first, [&sharedOk](ListenSocket* socket) { sharedOk = socket != nullptr; });
        app.listen("127.0.0.1", first, kListenExclusivePort,
                   [&exclusiveOk](ListenSocket* socket) { exclusiveOk = socket != nullptr; });
    });
    EXPECT_TRUE(sharedOk);
    EXPECT_FALSE(exclusiveOk);
}

TEST_P(Listening, AnExclusivePortCannotBeShared) {
    bool secondOk = true;
    serve([&](App& app) {
        int port = 0;
        app.listen("127.0.0.1", 0, kListenExclusivePort,
                   [&port](ListenSocket* socket) { port = App::localPort(socket); });
        app.listen("127.0.0.1", port, [&secondOk](ListenSocket* socket) { secondOk = socket != nullptr; });
    });
    EXPECT_FALSE(secondOk);
}

TEST_P(Listening, ListenFailureReportsNull) {
    bool called = false;
    bool gotSocket = true;
    serve([&](App& app) {
        app.listen("203.0.113.1", 0, [&](ListenSocket* socket) {
            called = true;
            gotSocket = socket != nullptr;
        });
    });
    EXPECT_TRUE(called);
    EXPECT_FALSE(gotSocket);
}

TEST_P(Listening, ClosingAListenerStopsNewConnectionsOnly) {
    ListenSocket* extra = nullptr;
    int extraPort = 0;
    serve([&](App& app) {
        app.get("/", [](HttpResponse* res, HttpRequest*) { res->end("x"); });
        app.listen("127.0.0.1", 0, [&](ListenSocket* socket) {
            extra = socket;
            extraPort = App::localPort(socket);
        });
    });
    TestClient kept(extraPort);
    kept.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(kept.readResponse());
    server().runOnLoop([&](App&) { App::closeListenSocket(extra); });
    EXPECT_THROW(TestClient refused(extraPort), std::runtime_error);
    kept.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_TRUE(kept.readResponse());
}

TEST_P(Listening, CloseEndsRunAndEveryConnection) {
    serve([](App& app) { app.get("/", [](HttpResponse* res, HttpRequest*) { res->end("x"); }); });
    TestClient client(port());
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(client.readResponse());
    EXPECT_EQ(server().connectionCount(), 1u);
    server_.reset();  // closes the App from its thread and joins: run() must return
    EXPECT_TRUE(client.waitForClose());
}

}  // namespace
}  // namespace loopwire::test
