#include "Options.h"

#include "FanoutLoad.h"
#include "LoadLimits.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace loopwire::lwload {
namespace {

ParseOutcome parse(std::initializer_list<const char*> args) {
    std::vector<const char*> argv{"lwload"};
    argv.insert(argv.end(), args.begin(), args.end());
    return parseOptions(static_cast<int>(argv.size()), argv.data());
}

TEST(Options, Defaults) {
    const ParseOutcome out = parse({"http", "http://127.0.0.1:8080/"});
    ASSERT_TRUE(out.ok) << out.error;
    EXPECT_EQ(out.options.mode, LoadMode::Http);
    EXPECT_EQ(out.options.connections, 100u);
    EXPECT_EQ(out.options.threads, 1u);
    EXPECT_EQ(out.options.pipeline, 1u);
    EXPECT_DOUBLE_EQ(out.options.durationSeconds, 10.0);
    EXPECT_EQ(out.options.requests, 0u);
    EXPECT_EQ(out.options.method, "GET");
}

TEST(Options, ParsesEveryHttpOption) {
    const ParseOutcome out = parse({"http",
                                    "-c",
                                    "64",
                                    "--threads=2",
                                    "-p",
                                    "16",
                                    "-d",
                                    "500ms",
                                    "--warmup",
                                    "1s",
                                    "--timeout",
                                    "2",
                                    "-m",
                                    "POST",
                                    "-H",
                                    "X-A: 1",
                                    "--header=X-B: 2",
                                    "--body-size",
                                    "1k",
                                    "http://localhost:80/x"});
    ASSERT_TRUE(out.ok) << out.error;
    const LoadOptions& o = out.options;
    EXPECT_EQ(o.connections, 64u);
    EXPECT_EQ(o.threads, 2u);
    EXPECT_EQ(o.pipeline, 16u);
    EXPECT_DOUBLE_EQ(o.durationSeconds, 0.5);
    EXPECT_DOUBLE_EQ(o.warmupSeconds, 1.0);
    EXPECT_DOUBLE_EQ(o.timeoutSeconds, 2.0);
    EXPECT_EQ(o.method, "POST");
    ASSERT_EQ(o.headers.size(), 2u);
    EXPECT_EQ(o.headers[1], "X-B: 2");
    EXPECT_EQ(o.bodySize, 1024u);
    EXPECT_TRUE(o.hasBody);
}

TEST(Options, ParsesWebSocketOptions) {
    const ParseOutcome out = parse({"ws", "-s", "4k", "--text", "-n", "1000", "ws://127.0.0.1:9001/"});
    ASSERT_TRUE(out.ok) << out.error;
    EXPECT_EQ(out.options.mode, LoadMode::WebSocket);
    EXPECT_EQ(out.options.messageBytes, 4096u);
    EXPECT_TRUE(out.options.text);
    EXPECT_EQ(out.options.requests, 1000u);
    // A --requests run without -d is bounded by the run's time limit.
    EXPECT_DOUBLE_EQ(out.options.durationSeconds, limits::kMaxRunSeconds);
}

TEST(Options, ParsesFanoutOptions) {
    const ParseOutcome out =
        parse({"fanout", "-c", "1000", "-s", "64", "--window=16", "-d", "2", "ws://127.0.0.1:9001/room"});
    ASSERT_TRUE(out.ok) << out.error;
    EXPECT_EQ(out.options.mode, LoadMode::Fanout);
    EXPECT_EQ(out.options.connections, 1000u);
    EXPECT_EQ(out.options.messageBytes, 64u);
    EXPECT_EQ(out.options.window, 16u);
    EXPECT_FALSE(out.options.text);
    EXPECT_EQ(out.options.target.path, "/room");
    EXPECT_TRUE(out.options.splitUrl.empty());
}

TEST(Options, ParsesASecondServerForHalfTheSubscribers) {
    const ParseOutcome out = parse({"fanout", "--split-url", "ws://127.0.0.1:9002/room", "ws://127.0.0.1:9001/room"});
    ASSERT_TRUE(out.ok) << out.error;
    EXPECT_EQ(out.options.splitTarget.port, 9002);
    EXPECT_EQ(out.options.target.port, 9001);
    EXPECT_EQ(out.options.settleMs, 0u);
    const ParseOutcome settled = parse({"fanout", "--settle", "5000", "ws://127.0.0.1:9001/room"});
    ASSERT_TRUE(settled.ok) << settled.error;
    EXPECT_EQ(settled.options.settleMs, limits::kMaxFanoutSettleMs);
    EXPECT_FALSE(settled.options.socketIo);
    const ParseOutcome socketIo =
        parse({"fanout", "--socket-io", "ws://127.0.0.1:9001/socket.io/?EIO=4&transport=websocket"});
    ASSERT_TRUE(socketIo.ok) << socketIo.error;
    EXPECT_TRUE(socketIo.options.socketIo);
    EXPECT_TRUE(socketIo.options.text);  // an event's argument is text
    EXPECT_FALSE(socketIo.options.stamped);
    const ParseOutcome stamped = parse({"fanout", "--stamped", "ws://127.0.0.1:9001/room"});
    ASSERT_TRUE(stamped.ok) << stamped.error;
    EXPECT_TRUE(stamped.options.stamped);
}

TEST(Options, ParsesTlsOptions) {
    ParseOutcome out =
        parse({"http", "--reconnect", "--tls-resume", "off", "--cacert=/tmp/ca.pem", "https://localhost:8443/"});
    ASSERT_TRUE(out.ok) << out.error;
    EXPECT_TRUE(out.options.target.tls);
    EXPECT_TRUE(out.options.reconnect);
    EXPECT_FALSE(out.options.tlsResume);
    EXPECT_EQ(out.options.caFile, "/tmp/ca.pem");

    out = parse({"ws", "wss://127.0.0.1:8443/"});
    ASSERT_TRUE(out.ok) << out.error;
    EXPECT_TRUE(out.options.target.tls);
    EXPECT_TRUE(out.options.tlsResume);  // on by default
    EXPECT_TRUE(out.options.caFile.empty());
    EXPECT_FALSE(out.options.reconnect);

    out = parse({"fanout", "--tls-resume=on", "wss://127.0.0.1:8443/"});
    ASSERT_TRUE(out.ok) << out.error;
    EXPECT_TRUE(out.options.tlsResume);

    // --reconnect works in the clear too: connections per second.
    EXPECT_TRUE(parse({"http", "--reconnect", "http://127.0.0.1/"}).ok);
}

TEST(Options, RefusesTlsOptionsThatCannotApply) {
    for (auto args : std::vector<std::vector<const char*>>{
             {"http", "--tls-resume", "off", "http://127.0.0.1/"},  // no TLS
             {"ws", "--cacert", "/x.pem", "ws://127.0.0.1/"},
             {"http", "--tls-resume", "yes", "https://127.0.0.1/"},
             {"http", "--tls-resume", "https://127.0.0.1/"},
             {"http", "--cacert", "", "https://127.0.0.1/"},
             {"ws", "--reconnect", "wss://127.0.0.1/"},  // http only
             {"fanout", "--reconnect", "ws://127.0.0.1/"},
             {"http", "wss://127.0.0.1/"},
             {"ws", "https://127.0.0.1/"},
         }) {
        args.insert(args.begin(), "lwload");
        const ParseOutcome out = parseOptions(static_cast<int>(args.size()), args.data());
        EXPECT_FALSE(out.ok) << args[1] << " " << args[2] << " " << args[3];
        EXPECT_FALSE(out.error.empty());
    }
}

TEST(Options, FanoutDefaults) {
    const ParseOutcome out = parse({"fanout", "ws://127.0.0.1:9001/"});
    ASSERT_TRUE(out.ok) << out.error;
    EXPECT_EQ(out.options.messageBytes, 20u);
    EXPECT_EQ(out.options.window, 8u);
    EXPECT_EQ(out.options.threads, 1u);
}

TEST(Options, RefusesWhatFanoutCannotDo) {
    for (auto args : std::vector<std::vector<const char*>>{
             {"fanout", "http://127.0.0.1/"},                 // a ws:// URL
             {"fanout", "-s", "7", "ws://127.0.0.1/"},        // no room for the counter
             {"fanout", "--window", "0", "ws://127.0.0.1/"},  // nothing could be sent
             {"fanout", "--window", "1025", "ws://127.0.0.1/"},
             {"fanout", "-t", "2", "-c", "10", "ws://127.0.0.1/"},  // one thread
             {"fanout", "-p", "2", "ws://127.0.0.1/"},
             {"ws", "--window", "4", "ws://127.0.0.1/"},  // fanout only
             {"http", "--window", "4", "http://127.0.0.1/"},
             {"ws", "--split-url", "ws://127.0.0.1:2/", "ws://127.0.0.1/"},        // fanout only
             {"fanout", "--split-url", "http://127.0.0.1:2/", "ws://127.0.0.1/"},  // the same scheme
             {"fanout", "--split-url", "wss://127.0.0.1:2/", "ws://127.0.0.1/"},
             {"fanout", "--split-url", "ws://192.0.2.1:2/", "ws://127.0.0.1/"},  // loopback only
             {"fanout", "--split-url", "ws://127.0.0.1/"},                       // takes a URL
             {"fanout", "--settle", "5001", "ws://127.0.0.1/"},                  // kMaxFanoutSettleMs
             {"fanout", "--settle", "soon", "ws://127.0.0.1/"},
             {"ws", "--settle", "10", "ws://127.0.0.1/"},                // fanout only
             {"ws", "--socket-io", "ws://127.0.0.1/"},                   // fanout only
             {"fanout", "--socket-io", "--binary", "ws://127.0.0.1/"},   // events carry text
             {"ws", "--stamped", "ws://127.0.0.1/"},                     // fanout only
             {"fanout", "--stamped", "--socket-io", "ws://127.0.0.1/"},  // loopwire's, not socket.io's
         }) {
        args.insert(args.begin(), "lwload");
        const ParseOutcome out = parseOptions(static_cast<int>(args.size()), args.data());
        EXPECT_FALSE(out.ok) << args[1] << " " << args[2] << " " << args[3];
        EXPECT_FALSE(out.error.empty());
    }
}

TEST(Options, FanoutRolePathAddsToTheQuery) {
    EXPECT_EQ(fanoutRolePath("/", "sub"), "/?role=sub");
    EXPECT_EQ(fanoutRolePath("/room", "pub"), "/room?role=pub");
    EXPECT_EQ(fanoutRolePath("/room?a=1", "sub"), "/room?a=1&role=sub");
}

TEST(Options, Help) {
    EXPECT_TRUE(parse({"--help"}).help);
    EXPECT_TRUE(parse({"http", "-h"}).help);
}

TEST(Options, RefusesNonLoopbackTargetsUnlessAllowed) {
    const ParseOutcome refused = parse({"http", "http://10.1.2.3:80/"});
    EXPECT_FALSE(refused.ok);
    EXPECT_NE(refused.error.find("--allow-remote"), std::string::npos);
    EXPECT_FALSE(parse({"http", "http://example.com/"}).ok);
    EXPECT_FALSE(parse({"ws", "ws://192.168.0.1/"}).ok);
    EXPECT_TRUE(parse({"http", "--allow-remote", "http://10.1.2.3:80/"}).ok);
    EXPECT_TRUE(parse({"http", "http://[::1]:80/"}).ok);
}

TEST(Options, EveryRunIsBoundedInTime) {
    EXPECT_FALSE(parse({"http", "-d", "601", "http://127.0.0.1/"}).ok);
    EXPECT_FALSE(parse({"http", "-d", "11m", "http://127.0.0.1/"}).ok);
    EXPECT_FALSE(parse({"http", "-d", "590", "--warmup", "20", "http://127.0.0.1/"}).ok);
    EXPECT_TRUE(parse({"http", "-d", "600", "http://127.0.0.1/"}).ok);
    EXPECT_FALSE(parse({"http", "-d", "0", "http://127.0.0.1/"}).ok);
    const ParseOutcome requests = parse({"http", "-n", "5", "--warmup", "100", "http://127.0.0.1/"});
    ASSERT_TRUE(requests.ok);
    EXPECT_DOUBLE_EQ(requests.options.durationSeconds + requests.options.warmupSeconds, limits::kMaxRunSeconds);
}

TEST(Options, RefusesBadValues) {
    for (auto args : std::vector<std::vector<const char*>>{
             {"http"},
             {"ftp", "http://127.0.0.1/"},
             {"http", "ws://127.0.0.1/"},
             {"ws", "http://127.0.0.1/"},
             {"http", "-c", "0", "http://127.0.0.1/"},
             {"http", "-c", "100001", "http://127.0.0.1/"},
             {"http", "-c", "http://127.0.0.1/"},
             {"http", "-p", "0", "http://127.0.0.1/"},
             {"http", "-p", "1025", "http://127.0.0.1/"},
             {"http", "-t", "257", "http://127.0.0.1/"},
             {"http", "-n", "0", "http://127.0.0.1/"},
             {"http", "-H", "NoColon", "http://127.0.0.1/"},
             {"http", "-H", "Bad Name: x", "http://127.0.0.1/"},
             {"http", "-m", "GE T", "http://127.0.0.1/"},
             {"http", "--body-size", "65m", "http://127.0.0.1/"},
             {"http", "--body-size", "1", "--body-file", "/x", "http://127.0.0.1/"},
             {"http", "-s", "20", "http://127.0.0.1/"},
             {"ws", "-p", "2", "ws://127.0.0.1/"},
             {"http", "--bogus", "http://127.0.0.1/"},
             {"http", "http://127.0.0.1/", "http://127.0.0.1/"},
             {"http", "-d", "5x", "http://127.0.0.1/"},
         }) {
        args.insert(args.begin(), "lwload");
        const ParseOutcome out = parseOptions(static_cast<int>(args.size()), args.data());
        EXPECT_FALSE(out.ok) << args.size() << " " << (args.size() > 2 ? args[2] : "");
        EXPECT_FALSE(out.error.empty());
    }
}

TEST(Options, ThreadsNeverExceedConnections) {
    const ParseOutcome out = parse({"http", "-c", "2", "-t", "8", "http://127.0.0.1/"});
    ASSERT_TRUE(out.ok);
    EXPECT_EQ(out.options.threads, 2u);
}

TEST(Options, BuildsTheRequestBytes) {
    ParseOutcome out =
        parse({"http", "-m", "POST", "-H", "Accept: */*", "--body-size", "3", "http://127.0.0.1:81/a?b"});
    ASSERT_TRUE(out.ok);
    EXPECT_EQ(buildHttpRequest(out.options, "xyz"),
              "POST /a?b HTTP/1.1\r\nHost: 127.0.0.1:81\r\nAccept: */*\r\nContent-Length: 3\r\n\r\nxyz");
    out = parse({"http", "-H", "host: example", "http://127.0.0.1/"});
    ASSERT_TRUE(out.ok);
    EXPECT_EQ(buildHttpRequest(out.options, ""), "GET / HTTP/1.1\r\nhost: example\r\n\r\n");
}

}  // namespace
}  // namespace loopwire::lwload
