// TLS: SSLApp's handshakes, its material and the errors about it, server names, resumption, ALPN, the handshake
// timeout, one record per corked batch, backpressure and the ends of a connection; with OpenSSL clients and curl.
#include "Fixture.h"
#include "TestCertificates.h"
#include "WsTestClient.h"
#include "loop/Loop.h"

#include <openssl/ssl.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <atomic>
#include <netinet/in.h>
#include <stdexcept>
#include <string>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace loopwire::test {

namespace {

using ::testing::HasSubstr;

constexpr std::string_view kGet = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";

// The options of one key and certificate file (the TestCertificates strings live as long as the process).
SocketContextOptions material(const std::string& keyFile, const std::string& certFile) {
    SocketContextOptions tls;
    tls.key_file_name = keyFile;
    tls.cert_file_name = certFile;
    return tls;
}

SocketContextOptions localhost() { return material(TestCertificates::get().keyFile, TestCertificates::get().certFile); }

// other.test's key and certificate, for the server-name tests.
SocketContextOptions otherTest() {
    return material(TestCertificates::get().otherKeyFile, TestCertificates::get().otherCertFile);
}

TlsClientOptions verifying() {
    TlsClientOptions client;
    client.caFile = TestCertificates::get().caFile;
    return client;
}

TlsClientOptions naming(std::string serverName) {
    TlsClientOptions client;
    client.serverName = std::move(serverName);
    return client;
}

// The error an SSLApp with these options reports ("" when it works).
std::string constructionErrorOf(const SocketContextOptions& tls) {
    SSLApp app(tls);
    return app.constructionError();
}

class TlsTest : public BackendTest {
protected:
    void serveTls(const SocketContextOptions& tls, TestServer::Setup setup = helloWorld()) {
        serveTls(options(), tls, std::move(setup));
    }
    void serveTls(ServerOptions serverOptions, const SocketContextOptions& tls,
                  TestServer::Setup setup = helloWorld()) {
        server_ = std::make_unique<TestServer>(serverOptions, std::move(setup), tls);
    }
    static TestServer::Setup helloWorld() {
        return [](App& app) { app.get("/*", [](auto* res, auto*) { res->end("hello over TLS"); }); };
    }
    std::optional<Response> get(TestClient& client) {
        client.send(kGet);
        return client.readResponse();
    }
};

// ---- handshakes and requests ----

TEST_P(TlsTest, AnswersAVerifyingClientOnOneSessionRequestAfterRequest) {
    serveTls(localhost());
    TestClient client(port(), verifying());
    ASSERT_EQ(client.handshakeError(), "");
    // TLS 1.3, and the server's first choice of suite over OpenSSL's default order (AES-256 first).
    EXPECT_EQ(SSL_version(client.ssl()), TLS1_3_VERSION);
    EXPECT_STREQ(SSL_get_cipher_name(client.ssl()), "TLS_AES_128_GCM_SHA256");
    for (int i = 0; i < 3; ++i) {
        auto response = get(client);
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status, 200);
        EXPECT_EQ(response->body, "hello over TLS");
    }
}

TEST_P(TlsTest, CurlVerifiesTheCertificateAndGetsTheBody) {
    serveTls(localhost());
    CommandResult result =
        runCommand("curl --silent --show-error --max-time 5 --cacert " + TestCertificates::get().caFile +
                   " https://localhost:" + std::to_string(port()) + "/ 2>&1");
    EXPECT_EQ(result.status, 0) << result.output;
    EXPECT_EQ(result.output, "hello over TLS");
}

TEST_P(TlsTest, OpensslSClientVerifiesAndGetsTheBody) {
    serveTls(localhost());
    CommandResult result = runCommand(
        "printf 'GET / HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' | timeout 10 openssl s_client "
        "-connect 127.0.0.1:" +
        std::to_string(port()) + " -servername localhost -verify_return_error -quiet -CAfile " +
        TestCertificates::get().caFile + " 2>&1");
    EXPECT_EQ(result.status, 0) << result.output;
    EXPECT_NE(result.output.find("HTTP/1.1 200 OK"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("hello over TLS"), std::string::npos) << result.output;
}

TEST_P(TlsTest, ServesKeyAndCertificateGivenInMemory) {
    const TestCertificates& c = TestCertificates::get();
    std::string key = readFile(c.keyFile);
    std::string certificate = readFile(c.certFile);
    SocketContextOptions tls;
    tls.key = key;
    tls.cert = certificate;
    serveTls(tls);
    TestClient client(port(), verifying());
    ASSERT_EQ(client.handshakeError(), "");
    auto response = get(client);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "hello over TLS");
}

TEST_P(TlsTest, DecryptsAnEncryptedKeyWithItsPassphrase) {
    const TestCertificates& c = TestCertificates::get();
    SocketContextOptions tls = localhost();
    tls.key_file_name = c.encryptedKeyFile;
    tls.passphrase = TestCertificates::kPassphrase;
    serveTls(tls);
    TestClient client(port(), verifying());
    ASSERT_EQ(client.handshakeError(), "");
    auto response = get(client);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
}

TEST_P(TlsTest, AClientThatTrustsAnotherAuthorityRefusesTheCertificate) {
    const TestCertificates& c = TestCertificates::get();
    SocketContextOptions tls;
    tls.key_file_name = c.strangerKeyFile;
    tls.cert_file_name = c.strangerCertFile;
    serveTls(tls);
    TestClient refusing(port(), verifying());
    EXPECT_NE(refusing.handshakeError(), "");
    // The server is unharmed: a client that does not verify is served.
    TestClient trusting(port(), TlsClientOptions{});
    ASSERT_EQ(trusting.handshakeError(), "");
    auto response = get(trusting);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
}

TEST_P(TlsTest, ALargeResponseLeavesThroughBackpressureWhole) {
    // More than the kernel buffers on loopback, so that most of it waits as backpressure (as records).
    std::string body(24 * 1024 * 1024 + 17, '\0');
    for (std::size_t i = 0; i < body.size(); ++i)
        body[i] = static_cast<char>('a' + i % 23);
    serveTls(localhost(), [&body](App& app) { app.get("/big", [&body](auto* res, auto*) { res->end(body); }); });
    TestClient client(port(), verifying());
    client.send("GET /big HTTP/1.1\r\nHost: localhost\r\n\r\n");
    auto response = client.readResponse(false, std::chrono::seconds(20));
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body.size(), body.size());
    EXPECT_TRUE(response->body == body);
}

TEST_P(TlsTest, ACorkedBatchLeavesAsOneRecordInOneSend) {
    serveTls(localhost(), [](App& app) {
        app.get("/many", [](auto* res, auto*) {
            res->writeStatus("200 OK");
            for (int i = 0; i < 20; ++i)
                res->writeHeader("x-part", "0123456789");
            for (int i = 0; i < 20; ++i)
                res->write("some bytes of the body; ");
            res->end();
        });
    });
    TestClient client(port(), verifying());
    ASSERT_EQ(client.handshakeError(), "");
    auto first = get(client);  // also lets the session tickets arrive
    ASSERT_TRUE(first);
    std::uint64_t sendsBefore = 0;
    server().runOnLoop([&](App& app) { sendsBefore = app.loop().sendCalls(); });
    std::size_t recordsBefore = client.recordsReceived();
    client.send("GET /many HTTP/1.1\r\nHost: localhost\r\n\r\n");
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->headers.count("x-part"), 20u);
    std::uint64_t sendsAfter = 0;
    server().runOnLoop([&](App& app) { sendsAfter = app.loop().sendCalls(); });
    EXPECT_EQ(sendsAfter - sendsBefore, 1u);
    EXPECT_EQ(client.recordsReceived() - recordsBefore, 1u);
}

TEST_P(TlsTest, WebSocketMessagesSentInOneHandlerLeaveAsOneRecord) {
    struct NoData {};
    constexpr int kReplies = 12;
    serveTls(localhost(), [](App& app) {
        app.ws<NoData>("/ws", {.message = [](WebSocket<NoData>* ws, std::string_view message, OpCode) {
                           for (int i = 0; i < kReplies; ++i)
                               ws->send(message, OpCode::Binary);
                       }});
    });
    TlsClientOptions tls = verifying();
    setDefaultClientTls(&tls);
    WsTestClient client(port());
    setDefaultClientTls(nullptr);
    ASSERT_EQ(client.raw().handshakeError(), "");
    auto head = client.handshake();
    ASSERT_TRUE(head);
    ASSERT_EQ(head->status, 101);
    client.sendBinary("x");  // the first message also lets the session tickets arrive
    for (int i = 0; i < kReplies; ++i)
        ASSERT_TRUE(client.readFrame());
    std::size_t recordsBefore = client.raw().recordsReceived();
    std::uint64_t sendsBefore = 0;
    server().runOnLoop([&](App& app) { sendsBefore = app.loop().sendCalls(); });
    client.sendBinary("twelve replies");
    for (int i = 0; i < kReplies; ++i) {
        auto frame = client.readFrame();
        ASSERT_TRUE(frame);
        EXPECT_EQ(frame->payload, "twelve replies");
    }
    std::uint64_t sendsAfter = 0;
    server().runOnLoop([&](App& app) { sendsAfter = app.loop().sendCalls(); });
    EXPECT_EQ(client.raw().recordsReceived() - recordsBefore, 1u);
    EXPECT_EQ(sendsAfter - sendsBefore, 1u);
}

TEST_P(TlsTest, PipelinedRequestsInOneRecordAreAllAnswered) {
    serveTls(localhost());
    TestClient client(port(), verifying());
    std::string three;
    for (int i = 0; i < 3; ++i)
        three += kGet;
    client.send(three);
    for (int i = 0; i < 3; ++i) {
        auto response = client.readResponse();
        ASSERT_TRUE(response) << i;
        EXPECT_EQ(response->body, "hello over TLS");
    }
}

TEST_P(TlsTest, ARequestSentOneByteAtATimeIsAnswered) {
    serveTls(localhost());
    TestClient client(port(), verifying());
    for (char c : kGet)
        client.send(std::string_view(&c, 1));
    auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
}

// ---- the ends of a connection ----

TEST_P(TlsTest, ConnectionCloseEndsWithCloseNotify) {
    serveTls(localhost());
    {
        TestClient client(port(), verifying());
        client.send("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        auto response = client.readResponse();
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status, 200);
        EXPECT_TRUE(client.waitForClose());
        // A clean TLS end (close_notify), not a truncation.
        EXPECT_NE(SSL_get_shutdown(client.ssl()) & SSL_RECEIVED_SHUTDOWN, 0);
    }
    EXPECT_TRUE(waitForNoConnections());
}

TEST_P(TlsTest, TheClientsCloseNotifyEndsTheConnection) {
    serveTls(localhost());
    TestClient client(port(), verifying());
    auto response = get(client);
    ASSERT_TRUE(response);
    client.shutdownWrite();
    EXPECT_TRUE(client.waitForClose());
    EXPECT_TRUE(waitForNoConnections());
}

TEST_P(TlsTest, GarbageInsteadOfAHandshakeIsClosedAndHarmsNobody) {
    serveTls(localhost());
    TestClient garbage(port());
    garbage.send("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");  // plain HTTP to a TLS port
    EXPECT_TRUE(garbage.waitForClose());
    TestClient client(port(), verifying());
    auto response = get(client);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
}

TEST_P(TlsTest, ACorruptRecordAfterTheHandshakeClosesTheConnection) {
    serveTls(localhost());
    TestClient client(port(), verifying());
    ASSERT_TRUE(get(client));
    // An application-data record whose bytes no key made.
    std::string record = "\x17\x03\x03";
    record += static_cast<char>(0);
    record += static_cast<char>(64);
    record += std::string(64, 'x');
    ASSERT_EQ(::send(client.fd(), record.data(), record.size(), MSG_NOSIGNAL), static_cast<ssize_t>(record.size()));
    EXPECT_TRUE(client.waitForClose());
    EXPECT_TRUE(waitForNoConnections());
}

// ---- the handshake: timeout, flood ----

TEST_P(TlsTest, AClientThatStopsMidHandshakeIsClosedAfterTheHandshakeTimeout) {
    ServerOptions serverOptions = options();
    serverOptions.sweepIntervalMs = 20;
    serverOptions.tlsHandshakeTimeoutMs = 200;
    serveTls(serverOptions, localhost());
    TestClient stalled(port());
    // The first bytes of a ClientHello, and nothing more.
    stalled.send(std::string_view("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11));
    // Meanwhile, others are served at once.
    TestClient client(port(), verifying());
    auto response = get(client);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(stalled.waitForClose(std::chrono::seconds(3)));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

// One deadline per socket: the handshake's until it has finished, then the HTTP layer's own (here the idle timeout,
// longer than the handshake's), which a finished handshake must not cut short.
TEST_P(TlsTest, AFinishedHandshakeIsGivenTheIdleTimeoutNotTheHandshakes) {
    ServerOptions serverOptions = options();
    serverOptions.sweepIntervalMs = 20;
    serverOptions.tlsHandshakeTimeoutMs = 200;
    serverOptions.idleTimeoutMs = 1500;
    serveTls(serverOptions, localhost());
    auto start = std::chrono::steady_clock::now();
    TestClient idle(port(), verifying());
    ASSERT_EQ(idle.handshakeError(), "");
    EXPECT_FALSE(idle.waitForClose(std::chrono::milliseconds(800)));
    EXPECT_TRUE(idle.waitForClose(std::chrono::seconds(5)));
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1400));
}

TEST_P(TlsTest, AHandshakeFloodDoesNotStallPlainRequests) {
    serveTls(localhost());
    std::vector<std::unique_ptr<TestClient>> flood;
    for (int i = 0; i < 64; ++i) {
        flood.push_back(std::make_unique<TestClient>(port()));
        flood.back()->send(std::string_view("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11));
    }
    for (int i = 0; i < 5; ++i) {
        TestClient client(port(), verifying());
        ASSERT_EQ(client.handshakeError(), "");
        auto response = get(client);
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status, 200);
    }
    flood.clear();
    EXPECT_TRUE(waitForNoConnections());
}

// ---- resumption and ALPN ----

TEST_P(TlsTest, ResumesATls13SessionFromItsTicket) {
    serveTls(localhost());
    SSL_SESSION* session = nullptr;
    {
        TestClient first(port(), verifying());
        ASSERT_TRUE(get(first));  // the tickets come after the handshake
        EXPECT_FALSE(first.sessionReused());
        EXPECT_EQ(SSL_version(first.ssl()), TLS1_3_VERSION);
        session = first.takeSession();
    }
    ASSERT_NE(session, nullptr);
    TlsClientOptions again = verifying();
    again.resume = session;
    TestClient second(port(), again);
    SSL_SESSION_free(session);
    ASSERT_EQ(second.handshakeError(), "");
    EXPECT_TRUE(second.sessionReused());
    auto response = get(second);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
}

TEST_P(TlsTest, ResumesATls12SessionFromItsTicket) {
    serveTls(localhost());
    TlsClientOptions tls12 = verifying();
    tls12.tls12Only = true;
    SSL_SESSION* session = nullptr;
    {
        TestClient first(port(), tls12);
        ASSERT_TRUE(get(first));
        EXPECT_EQ(SSL_version(first.ssl()), TLS1_2_VERSION);
        session = first.takeSession();
    }
    tls12.resume = session;
    TestClient second(port(), tls12);
    SSL_SESSION_free(session);
    ASSERT_EQ(second.handshakeError(), "");
    EXPECT_TRUE(second.sessionReused());
    EXPECT_TRUE(get(second));
}

TEST_P(TlsTest, AlpnPicksHttp11AndNothingElse) {
    serveTls(localhost());
    TlsClientOptions both = verifying();
    both.alpn = {"h2", "http/1.1"};
    TestClient client(port(), both);
    ASSERT_EQ(client.handshakeError(), "");
    EXPECT_EQ(client.alpnProtocol(), "http/1.1");
    TlsClientOptions http2Only = verifying();
    http2Only.alpn = {"h2"};
    TestClient other(port(), http2Only);
    ASSERT_EQ(other.handshakeError(), "");
    EXPECT_EQ(other.alpnProtocol(), "");
}

TEST_P(TlsTest, SslGroupsChoosesTheKeyExchangeGroup) {
    // The client's first choice, X25519, has its key share in the ClientHello; a server limited to P-384 asks
    // for another (HelloRetryRequest) and gets it.
    SocketContextOptions p384Only = localhost();
    p384Only.ssl_groups = "secp384r1";
    serveTls(p384Only);
    TestClient client(port(), verifying());
    ASSERT_EQ(client.handshakeError(), "");
    const char* group = SSL_group_to_name(client.ssl(), SSL_get_negotiated_group(client.ssl()));
    EXPECT_STREQ(group, "secp384r1");
    auto response = get(client);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "hello over TLS");
}

TEST_P(TlsTest, ByDefaultX25519IsTheKeyExchangeGroup) {
    serveTls(localhost());
    TestClient client(port(), verifying());
    ASSERT_EQ(client.handshakeError(), "");
    const char* group = SSL_group_to_name(client.ssl(), SSL_get_negotiated_group(client.ssl()));
    EXPECT_STREQ(group, "x25519");
}

// ---- server names ----

TEST_P(TlsTest, ServerNamesPickTheirCertificatesWithWildcardsOneLabelDeep) {
    const TestCertificates& c = TestCertificates::get();
    serveTls(localhost(), [&c](App& app) {
        SocketContextOptions other = otherTest();
        SocketContextOptions wildcard;
        wildcard.key_file_name = c.wildcardKeyFile;
        wildcard.cert_file_name = c.wildcardCertFile;
        app.addServerName("other.test", other).addServerName("*.wild.test", wildcard);
        app.get("/*", [](auto* res, auto*) { res->end("named"); });
    });
    auto commonNameFor = [this](const std::string& name) {
        TestClient client(port(), naming(name));
        EXPECT_EQ(client.handshakeError(), "") << name;
        return client.peerCommonName();
    };
    EXPECT_EQ(commonNameFor("other.test"), "other.test");
    EXPECT_EQ(commonNameFor("OTHER.Test"), "other.test");
    EXPECT_EQ(commonNameFor("a.wild.test"), "*.wild.test");
    EXPECT_EQ(commonNameFor("wild.test"), "localhost");
    EXPECT_EQ(commonNameFor("a.b.wild.test"), "localhost");
    EXPECT_EQ(commonNameFor("unknown.test"), "localhost");
    // And a verifying client of other.test accepts what it gets.
    TlsClientOptions strict = verifying();
    strict.serverName = "other.test";
    TestClient client(port(), strict);
    ASSERT_EQ(client.handshakeError(), "");
    auto response = get(client);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "named");
}

TEST_P(TlsTest, AMissingServerNameCanBeAddedForTheHandshakeThatAskedForIt) {
    auto asked = std::make_shared<std::vector<std::string>>();
    serveTls(localhost(), [asked](App& app) {
        app.missingServerName([&app, asked](std::string_view hostname) {
            asked->emplace_back(hostname);
            if (hostname == "other.test") {
                SocketContextOptions other = otherTest();
                app.addServerName(hostname, other);
            }
        });
        app.get("/*", [](auto* res, auto*) { res->end("late"); });
    });
    {
        TestClient client(port(), naming("other.test"));
        ASSERT_EQ(client.handshakeError(), "");
        EXPECT_EQ(client.peerCommonName(), "other.test");
        auto response = get(client);
        ASSERT_TRUE(response);
        EXPECT_EQ(response->body, "late");
    }
    {
        // Added once: the second handshake finds it without asking.
        TestClient client(port(), naming("other.test"));
        EXPECT_EQ(client.peerCommonName(), "other.test");
    }
    {
        TestClient client(port(), naming("nobody.test"));
        EXPECT_EQ(client.peerCommonName(), "localhost");
    }
    server().runOnLoop([asked](App&) { EXPECT_EQ(*asked, (std::vector<std::string>{"other.test", "nobody.test"})); });
}

TEST_P(TlsTest, AMissingServerNameHandlerThatClosesTheAppEndsTheHandshake) {
    serveTls(localhost(), [](App& app) {
        app.missingServerName([&app](std::string_view) { app.close(); });
        app.get("/*", [](auto* res, auto*) { res->end(); });
    });
    TestClient client(port(), naming("closing.test"));
    // The App closed its connections and its listener, and its thread ended (under ASan: without touching a
    // freed session).
    EXPECT_NE(client.handshakeError(), "");
    EXPECT_THROW(TestClient{port()}, std::runtime_error);
}

TEST_P(TlsTest, ARemovedServerNameFallsBackToTheDefaultCertificate) {
    serveTls(localhost(), [](App& app) {
        SocketContextOptions other = otherTest();
        app.addServerName("other.test", other);
        app.get("/*", [](auto* res, auto*) { res->end(); });
    });
    EXPECT_EQ(TestClient(port(), naming("other.test")).peerCommonName(), "other.test");
    server().runOnLoop([](App& app) { app.removeServerName("other.test"); });
    EXPECT_EQ(TestClient(port(), naming("other.test")).peerCommonName(), "localhost");
}

TEST_P(TlsTest, DomainRoutesServeOnlyTheirServerName) {
    serveTls(localhost(), [](App& app) {
        SocketContextOptions other = otherTest();
        app.addServerName("other.test", other);
        app.get("/*", [](auto* res, auto*) { res->end("default"); });
        app.domain("other.test")
            .get("/", [](auto* res, auto*) { res->end("other"); })
            .get("/only-other", [](auto* res, auto*) { res->end("only other"); });
        // Routes for a name added later (here by the missing-name handler) wait for it.
        app.domain("late.test").get("/*", [](auto* res, auto*) { res->end("late"); });
        app.domain("").get("/after", [](auto* res, auto*) { res->end("default after"); });
        app.missingServerName([&app](std::string_view hostname) {
            if (hostname != "late.test") return;
            SocketContextOptions late = otherTest();
            app.addServerName(hostname, late);
        });
    });
    auto bodyOf = [this](const std::string& serverName, std::string_view path) {
        TestClient client(port(), naming(serverName));
        client.send("GET " + std::string(path) + " HTTP/1.1\r\nHost: x\r\n\r\n");
        auto response = client.readResponse();
        return response ? std::to_string(response->status) + " " + response->body : std::string("none");
    };
    EXPECT_EQ(bodyOf("other.test", "/"), "200 other");
    EXPECT_EQ(bodyOf("other.test", "/only-other"), "200 only other");
    EXPECT_EQ(bodyOf("other.test", "/after"), "404 Not Found");
    EXPECT_EQ(bodyOf("late.test", "/x"), "200 late");
    EXPECT_EQ(bodyOf("unknown.test", "/only-other"), "200 default");
    EXPECT_EQ(bodyOf("unknown.test", "/after"), "200 default after");
    EXPECT_EQ(bodyOf("", "/"), "200 default");
}

// ---- client certificates ----

TEST_P(TlsTest, AClientCertificateIsCheckedAgainstTheCaList) {
    const TestCertificates& c = TestCertificates::get();
    SocketContextOptions tls = localhost();
    tls.ca_file_name = c.caFile;
    serveTls(tls);
    TlsClientOptions withCertificate = verifying();
    withCertificate.certFile = c.clientCertFile;
    withCertificate.keyFile = c.clientKeyFile;
    TestClient accepted(port(), withCertificate);
    ASSERT_EQ(accepted.handshakeError(), "");
    EXPECT_TRUE(get(accepted));
    // No certificate at all is allowed ...
    TestClient anonymous(port(), verifying());
    EXPECT_TRUE(get(anonymous));
    // ... one that does not verify is not (TLS 1.3 reports it after the client's Finished: the request fails).
    TlsClientOptions stranger = verifying();
    stranger.certFile = c.strangerCertFile;
    stranger.keyFile = c.strangerKeyFile;
    TestClient refused(port(), stranger);
    if (refused.handshakeError().empty()) {
        refused.send(kGet);
        EXPECT_FALSE(refused.readResponse());
    }
}

// ---- the material and its errors ----

TEST(TlsMaterial, EachProblemIsNamedAtConstruction) {
    const TestCertificates& c = TestCertificates::get();
    SocketContextOptions missingFile = localhost();
    missingFile.key_file_name = "/nonexistent/key.pem";
    EXPECT_THAT(constructionErrorOf(missingFile), HasSubstr("key_file_name: cannot read '/nonexistent/key.pem'"));

    SocketContextOptions missingCertificate = localhost();
    missingCertificate.cert_file_name = "/nonexistent/cert.pem";
    EXPECT_THAT(constructionErrorOf(missingCertificate), HasSubstr("cert_file_name: cannot read"));

    SocketContextOptions noKey;
    noKey.cert_file_name = c.certFile;
    EXPECT_THAT(constructionErrorOf(noKey), HasSubstr("key_file_name: no private key given"));

    SocketContextOptions wrongPassphrase = localhost();
    wrongPassphrase.key_file_name = c.encryptedKeyFile;
    wrongPassphrase.passphrase = "wrong";
    EXPECT_THAT(constructionErrorOf(wrongPassphrase), HasSubstr("passphrase"));

    SocketContextOptions noPassphrase = localhost();
    noPassphrase.key_file_name = c.encryptedKeyFile;
    EXPECT_THAT(constructionErrorOf(noPassphrase), HasSubstr("passphrase"));

    SocketContextOptions mismatched = localhost();
    mismatched.key_file_name = c.otherKeyFile;
    EXPECT_THAT(constructionErrorOf(mismatched), HasSubstr("does not match the certificate"));

    SocketContextOptions notPem = localhost();
    notPem.key = "this is not a key";
    EXPECT_THAT(constructionErrorOf(notPem), HasSubstr("key: no PEM private key found"));

    SocketContextOptions badCiphers = localhost();
    badCiphers.ssl_ciphers = "NO-SUCH-CIPHER";
    EXPECT_THAT(constructionErrorOf(badCiphers), HasSubstr("ssl_ciphers"));

    SocketContextOptions badGroups = localhost();
    badGroups.ssl_groups = "NO-SUCH-GROUP";
    EXPECT_THAT(constructionErrorOf(badGroups), HasSubstr("ssl_groups: OpenSSL"));

    SocketContextOptions badCa = localhost();
    badCa.ca_file_name = "/nonexistent/ca.pem";
    EXPECT_THAT(constructionErrorOf(badCa), HasSubstr("ca_file_name"));

    EXPECT_EQ(constructionErrorOf(localhost()), "");
}

TEST(TlsMaterial, AFailedSslAppNeverListens) {
    SocketContextOptions broken = localhost();
    broken.key_file_name = "/nonexistent/key.pem";
    SSLApp app(broken);
    ASSERT_TRUE(app.constructorFailed());
    EXPECT_TRUE(app.isSsl());
    bool listened = true;
    app.listen("127.0.0.1", 0, [&listened](ListenSocket* socket) { listened = socket != nullptr; });
    EXPECT_FALSE(listened);
}

TEST(TlsMaterial, AddServerNameReportsItsErrorsAndAPlainAppRefusesIt) {
    SSLApp app(localhost());
    SocketContextOptions broken;
    broken.key_file_name = "/nonexistent/key.pem";
    broken.cert_file_name = TestCertificates::get().certFile;
    std::string error;
    EXPECT_FALSE(app.tryAddServerName("broken.test", broken, error));
    EXPECT_THAT(error, HasSubstr("key_file_name"));
    App plain;
    EXPECT_FALSE(plain.tryAddServerName("a.test", localhost(), error));
    EXPECT_THAT(error, HasSubstr("SSLApp"));
    EXPECT_FALSE(plain.isSsl());
}

}  // namespace

LW_INSTANTIATE_BACKENDS(TlsTest);

}  // namespace loopwire::test
