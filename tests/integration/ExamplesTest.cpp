// Smoke-runs every C++ example: start it with --port 0, wait for "listening on <port>", make the request it is
// about, and stop it.
#include "RedisServer.h"
#include "TestCertificates.h"
#include "TestClient.h"
#include "WsTestClient.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <set>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace loopwire::test {
namespace {

// A child process running an example, killed when this goes out of scope.
class ExampleProcess {
public:
    explicit ExampleProcess(const std::string& name, const std::string& backend = "epoll",
                            std::vector<std::string> extraArguments = {}) {
        std::string path = std::string(LW_EXAMPLES_DIR) + "/" + name;
        std::vector<std::string> arguments{path, "--port", "0", "--backend", backend};
        arguments.insert(arguments.end(), extraArguments.begin(), extraArguments.end());
        std::vector<char*> argv;
        for (std::string& argument : arguments)
            argv.push_back(argument.data());
        argv.push_back(nullptr);
        int output[2];
        if (::pipe(output) != 0) return;
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(output[1], STDOUT_FILENO);
            ::close(output[0]);
            ::close(output[1]);
            ::execv(path.c_str(), argv.data());
            ::_exit(127);
        }
        ::close(output[1]);
        FILE* lines = ::fdopen(output[0], "r");
        char line[128] = {};
        if (std::fgets(line, sizeof line, lines) != nullptr && std::sscanf(line, "listening on %d", &port_) != 1) {
            port_ = 0;
        }
        std::fclose(lines);
    }
    ~ExampleProcess() {
        if (pid_ > 0) {
            ::kill(pid_, SIGTERM);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    int port() const { return port_; }

private:
    pid_t pid_ = -1;
    int port_ = 0;
};

class Examples : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Backends, Examples, ::testing::Values("epoll", "libuv"),
                         [](const ::testing::TestParamInfo<std::string>& backendInfo) { return backendInfo.param; });

TEST_P(Examples, HelloWorld) {
    ExampleProcess example("hello_world", GetParam());
    ASSERT_GT(example.port(), 0);
    auto response = fetch(example.port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "Hello world!");
}

TEST_P(Examples, HttpsServer) {
    const TestCertificates& certificates = TestCertificates::get();
    ExampleProcess example("https_server", GetParam(),
                           {"--key", certificates.keyFile, "--cert", certificates.certFile});
    ASSERT_GT(example.port(), 0);
    TestClient client(example.port(), TlsClientOptions{.caFile = certificates.caFile});
    ASSERT_EQ(client.handshakeError(), "");
    client.send("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "Hello over TLS!");
}

TEST_P(Examples, HttpsServerNamesTheFaultyOption) {
    CommandResult result = runCommand(std::string(LW_EXAMPLES_DIR) +
                                      "/https_server --port 0 --key /nonexistent.pem --cert /nonexistent.pem 2>&1");
    EXPECT_EQ(result.status, 1);
    EXPECT_NE(result.output.find("cert_file_name: cannot read '/nonexistent.pem'"), std::string::npos) << result.output;
}

TEST_P(Examples, Routing) {
    ExampleProcess example("routing", GetParam());
    ASSERT_GT(example.port(), 0);
    EXPECT_EQ(fetch(example.port(), "GET /users/7 HTTP/1.1\r\nHost: x\r\n\r\n")->body, "user 7");
    EXPECT_EQ(fetch(example.port(), "GET /users/7/posts/9 HTTP/1.1\r\nHost: x\r\n\r\n")->body, "post 9 of user 7");
    EXPECT_EQ(fetch(example.port(), "GET /search?q=a+b HTTP/1.1\r\nHost: x\r\n\r\n")->body, "searching for a b");
    auto yielded = fetch(example.port(), "GET /admin/x HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(yielded->status, 404);
    EXPECT_EQ(yielded->body, "no route for /admin/x");
}

TEST_P(Examples, PostBody) {
    ExampleProcess example("post_body", GetParam());
    ASSERT_GT(example.port(), 0);
    std::string body(200000, 'x');
    auto response = fetch(example.port(), "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n" + body);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "received 200000 bytes");
}

TEST_P(Examples, Streaming) {
    ExampleProcess example("streaming", GetParam());
    ASSERT_GT(example.port(), 0);
    TestClient client(example.port());
    client.send("GET /large HTTP/1.1\r\nHost: x\r\n\r\n");
    auto response = client.readResponse(false, std::chrono::milliseconds(30000));
    ASSERT_TRUE(response);
    ASSERT_EQ(response->body.size(), 64u * 1024 * 1024);
    for (std::size_t i = 0; i < response->body.size(); i += 999983) {
        ASSERT_EQ(response->body[i], static_cast<char>('a' + i % 26)) << "byte " << i;
    }
}

TEST_P(Examples, EchoServer) {
    ExampleProcess example("echo_server", GetParam());
    ASSERT_GT(example.port(), 0);
    WsTestClient client(example.port());
    auto head = client.handshake("/");
    ASSERT_TRUE(head);
    ASSERT_EQ(head->status, 101);
    std::string big(200000, 'b');
    client.send(clientFrame(op::kBinary, big));
    auto echoed = client.readFrame();
    ASSERT_TRUE(echoed);
    EXPECT_EQ(echoed->opcode, op::kBinary);
    EXPECT_EQ(echoed->payload, big);
    client.send(clientFrame(op::kText, "hello"));
    echoed = client.readFrame();
    ASSERT_TRUE(echoed);
    EXPECT_EQ(echoed->opcode, op::kText);
    EXPECT_EQ(echoed->payload, "hello");
}

TEST_P(Examples, PubSub) {
    ExampleProcess example("pubsub", GetParam());
    ASSERT_GT(example.port(), 0);
    WsTestClient alice(example.port());
    WsTestClient bob(example.port());
    WsTestClient elsewhere(example.port());
    ASSERT_EQ(alice.handshake("/room/lobby")->status, 101);
    ASSERT_EQ(bob.handshake("/room/lobby")->status, 101);
    ASSERT_EQ(elsewhere.handshake("/room/other")->status, 101);
    alice.send(clientFrame(op::kText, "hi"));
    for (WsTestClient* member : {&alice, &bob}) {
        auto line = member->readFrame();
        ASSERT_TRUE(line);
        EXPECT_EQ(line->payload, "#1: hi");
    }
    EXPECT_TRUE(elsewhere.raw().staysQuiet(std::chrono::milliseconds(200)));
}

// Two processes linked to one Redis share their rooms.
TEST_P(Examples, ClusterPubSub) {
    ASSERT_TRUE(RedisServer::available()) << "redis-server is missing: scripts/deps.sh";
    RedisServer redis;
    ASSERT_TRUE(redis.running());
    ExampleProcess first("cluster_pubsub", GetParam(), {"--redis", redis.url()});
    ExampleProcess second("cluster_pubsub", GetParam(), {"--redis", redis.url()});
    ASSERT_GT(first.port(), 0);
    ASSERT_GT(second.port(), 0);
    WsTestClient alice(first.port());
    WsTestClient bob(second.port());
    ASSERT_EQ(alice.handshake("/room/lobby")->status, 101);
    ASSERT_EQ(bob.handshake("/room/lobby")->status, 101);
    const std::string numsub = "*3\r\n$6\r\nPUBSUB\r\n$6\r\nNUMSUB\r\n$19\r\nloopwire:room/lobby\r\n";
    for (int i = 0; i < 500 && !redis.command(numsub).ends_with(":2\r\n"); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    alice.send(clientFrame(op::kText, "hi"));
    for (WsTestClient* member : {&alice, &bob}) {
        auto line = member->readFrame();
        ASSERT_TRUE(line);
        EXPECT_EQ(line->payload, "#1: hi");
    }
}

// Every thread listens on the port: the kernel spreads 64 connections over the 4 threads (each thread is
// left out with a chance of (3/4)^64, so all four answer).
TEST_P(Examples, MultiCoreReusePort) {
    ExampleProcess example("multi_core", GetParam(), {"--threads", "4"});
    ASSERT_GT(example.port(), 0);
    std::set<std::string> answered;
    for (int i = 0; i < 64; ++i) {
        auto response = fetch(example.port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        ASSERT_TRUE(response);
        answered.insert(response->body);
    }
    EXPECT_EQ(answered, (std::set<std::string>{"Hello from thread 0!", "Hello from thread 1!", "Hello from thread 2!",
                                               "Hello from thread 3!"}));
}

// The main thread accepts and deals the connections out in turn.
TEST_P(Examples, MultiCoreAcceptor) {
    ExampleProcess example("multi_core", GetParam(), {"--acceptor", "--threads", "3"});
    ASSERT_GT(example.port(), 0);
    for (int i = 0; i < 6; ++i) {
        auto response = fetch(example.port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        ASSERT_TRUE(response);
        EXPECT_EQ(response->body, "Hello from thread " + std::to_string(i % 3) + "!");
    }
}

}  // namespace
}  // namespace loopwire::test
