// The PROXY protocol over real loopback connections (issue 23), on both loop backends and over TLS (where the
// header comes before the handshake): versions 1 and 2 name the client that getProxiedRemoteAddress* report,
// a header split at every byte is read whole, a WebSocket upgrade keeps it, and malformed, untrusted, missing and
// unfinished headers close the connection with nothing answered.
#include "Fixture.h"
#include "WsTestClient.h"
#include "../ProxyHeaders.h"

#include <loopwire/WebSocket.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace loopwire::test {
namespace {

using namespace std::chrono_literals;

class ProxyProtocol : public BackendTest {
protected:
    // Answers every GET with "<proxied text>|<proxied port>|<peer text>", and WebSockets on /ws with the same text
    // as their first message.
    void serveAddresses(ServerOptions options) {
        serve(options, [](App& app) {
            app.get("/*", [](HttpResponse* res, HttpRequest*) {
                std::string answer = std::string(res->getProxiedRemoteAddressAsText()) + "|" +
                                     std::to_string(res->getProxiedRemotePort()) + "|" +
                                     std::string(res->getRemoteAddressAsText()) + "|" +
                                     std::to_string(res->getProxiedRemoteAddress().size());
                res->end(answer);
            });
            WebSocketBehavior<int> behavior;
            behavior.open = [](WebSocket<int>* ws) {
                ws->send(
                    std::string(ws->getProxiedRemoteAddressAsText()) + "|" + std::to_string(ws->getProxiedRemotePort()),
                    OpCode::Text);
            };
            app.ws<int>("/ws", std::move(behavior));
        });
    }

    // Sends prelude (in the pieces given, letting the server's loop turn twice between them, so that each is most
    // likely read alone), then a request, and reads the answer; nullopt when the server closed instead.
    std::optional<Response> ask(const std::vector<std::string>& prelude) {
        TestClient client(port(), prelude, [this] {
            server().runOnLoop([](App&) {});
            server().runOnLoop([](App&) {});
        });
        client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        return client.readResponse();
    }

    // Sends prelude and expects the connection to be closed with nothing sent back.
    void expectClosed(const std::vector<std::string>& prelude, std::string_view after = {}) {
        TestClient client(port(), prelude);
        if (!after.empty()) client.send(after);
        EXPECT_TRUE(client.waitForClose(3s));
    }
};
LW_INSTANTIATE_TRANSPORTS(ProxyProtocol);

using namespace proxy_headers;

// 203.0.113.7:51234 to 192.0.2.1:443, and an AWS-style TLV after it.
std::string v2Inet() { return v2(1, 0x11, inetBlock() + tlv(0xEA, "vpce")); }

std::string v2Inet6() { return v2(1, 0x21, inet6Block()); }

const std::string kV1 = "PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\r\n";

TEST_P(ProxyProtocol, Version1AndVersion2NameTheClientAndThePeerStays) {
    serveAddresses(options());
    auto v1 = ask({kV1});
    ASSERT_TRUE(v1);
    EXPECT_EQ(v1->body, "203.0.113.7|51234|127.0.0.1|4");
    auto inet = ask({v2Inet()});
    ASSERT_TRUE(inet);
    EXPECT_EQ(inet->body, "203.0.113.7|51234|127.0.0.1|4");
    auto inet6 = ask({v2Inet6()});
    ASSERT_TRUE(inet6);
    EXPECT_EQ(inet6->body, "2001:0db8:0000:0000:0000:0000:0000:0007|5000|127.0.0.1|16");
    // LOCAL (a health check) and UNKNOWN name no client; without a header there is none either.
    for (const std::string& none : {v2(0, 0x00, ""), std::string("PROXY UNKNOWN\r\n"), std::string()}) {
        auto answer = ask({none});
        ASSERT_TRUE(answer);
        EXPECT_EQ(answer->body, "|0|127.0.0.1|0");
    }
}

TEST_P(ProxyProtocol, AHeaderSplitAtEveryByteIsReadWhole) {
    serveAddresses(options());
    for (const std::string& header : {kV1, v2Inet()}) {
        for (std::size_t split = 1; split < header.size(); ++split) {
            auto answer = ask({header.substr(0, split), header.substr(split)});
            ASSERT_TRUE(answer) << "split at " << split;
            EXPECT_EQ(answer->body, "203.0.113.7|51234|127.0.0.1|4") << "split at " << split;
        }
    }
}

TEST_P(ProxyProtocol, AWebSocketUpgradeBehindAHeaderKeepsIt) {
    serveAddresses(options());
    // WsTestClient speaks plain TCP; over TLS the header and the handshake go through TestClient's prelude.
    if (overTls()) {
        TestClient client(port(), std::vector<std::string>{v2Inet()});
        client.send(upgradeRequest("/ws"));
        std::string head = client.readBytes(12);
        EXPECT_EQ(head, "HTTP/1.1 101");
        return;
    }
    WsTestClient client(port());
    client.send(v2Inet());
    auto response = client.handshake("/ws");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 101);
    auto frame = client.readFrame();
    ASSERT_TRUE(frame);
    EXPECT_EQ(frame->payload, "203.0.113.7|51234");
}

TEST_P(ProxyProtocol, MalformedAndTruncatedHeadersAreClosed) {
    serveAddresses(options());
    std::string badVersion = v2Inet();
    badVersion[12] = 0x31;
    for (const std::string& bad :
         {badVersion, v2(1, 0x11, "short"), std::string("PROXY TCP4 203.0.113.7 192.0.2.1 51234 99999\r\n"),
          std::string("PROXY TCP4 nonsense\r\n"), std::string("PROXY ") + std::string(200, 'x')}) {
        expectClosed({bad}, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    // A header cut short, and the client gone: nothing is answered, nothing is left behind.
    {
        TestClient client(port(), std::vector<std::string>{v2Inet().substr(0, 20)});
        client.shutdownWrite();
        EXPECT_TRUE(client.waitForClose(3s));
    }
    EXPECT_TRUE(waitForNoConnections());
}

TEST_P(ProxyProtocol, AHeaderThatNeverEndsIsClosedAfterTheTimeout) {
    ServerOptions options = fastTimeouts();
    options.idleTimeoutMs = 60000;  // so that only the PROXY header's own timeout can close it
    options.proxyHeaderTimeoutMs = 150;
    serveAddresses(options);
    const auto started = std::chrono::steady_clock::now();
    TestClient client(port(), std::vector<std::string>{"PROXY TCP4 203.0.113.7"});
    EXPECT_TRUE(client.waitForClose(5s));
    EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
}

TEST_P(ProxyProtocol, AHeaderFromAnUntrustedSourceIsClosedAndOneFromATrustedOneRead) {
    ServerOptions untrusted = options();
    untrusted.proxyTrustedSources = {"10.0.0.0/8", "2001:db8::/32"};
    serveAddresses(untrusted);
    expectClosed({kV1}, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    // Without a header the same source is served: the header is optional.
    auto plain = ask({});
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->body, "|0|127.0.0.1|0");

    ServerOptions trusted = options();
    trusted.proxyTrustedSources = {"127.0.0.0/8"};
    serveAddresses(trusted);
    auto answer = ask({v2Inet()});
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->body, "203.0.113.7|51234|127.0.0.1|4");
}

TEST_P(ProxyProtocol, RequiredRefusesAConnectionWithoutAHeaderAndOffReadsItAsHttp) {
    ServerOptions required = options();
    required.proxyProtocol = loopwire::ProxyProtocol::Required;
    serveAddresses(required);
    expectClosed({}, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    auto answer = ask({kV1});
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->body, "203.0.113.7|51234|127.0.0.1|4");

    ServerOptions off = options();
    off.proxyProtocol = loopwire::ProxyProtocol::Off;
    serveAddresses(off);
    if (overTls()) {
        // Before TLS, the header is no handshake: the connection fails.
        expectClosed({kV1});
        return;
    }
    auto refused = ask({kV1});
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 400);
}

TEST(ProxyProtocolOptions, AnUntrustedSourceListThatIsNotOneFailsTheApp) {
    ServerOptions options;
    options.proxyTrustedSources = {"10.0.0.0/8", "10.1.0.0/8"};
    App app(options);
    EXPECT_TRUE(app.constructorFailed());
    EXPECT_NE(app.constructionError().find("proxyTrustedSources: \"10.1.0.0/8\""), std::string::npos)
        << app.constructionError();
    bool listened = true;
    app.listen(0, [&](ListenSocket* socket) { listened = socket != nullptr; });
    EXPECT_FALSE(listened);
    EXPECT_FALSE(app.isSsl());
}

}  // namespace
}  // namespace loopwire::test
