#include "RunStats.h"

#include <gtest/gtest.h>

namespace loopwire::lwload {
namespace {

TEST(RunStats, JsonLineHasTheFixedFields) {
    RunReport report;
    report.mode = "http";
    report.url = "http://127.0.0.1:8080/\"q\"";
    report.connections = 100;
    report.threads = 1;
    report.pipeline = 1;
    report.durationSeconds = 2.0;
    report.stats.requests = 1000;
    report.stats.non2xx = 3;
    report.stats.errors.read = 2;
    report.stats.bytesRead = 123456;
    // 1..1000 us; percentiles are bucket upper bounds (at most 1/128 above the true value), capped at max.
    for (int i = 1; i <= 1000; ++i)
        report.stats.latency.record(static_cast<std::uint64_t>(i) * 1000);
    const std::string json = formatJson(report);
    EXPECT_EQ(json.find('\n'), std::string::npos);
    EXPECT_EQ(json.front(), '{');
    EXPECT_EQ(json.back(), '}');
    for (const char* field :
         {"\"mode\":\"http\"", "\"url\":\"http://127.0.0.1:8080/\\\"q\\\"\"", "\"connections\":100", "\"pipeline\":1",
          "\"duration_s\":2.000", "\"requests\":1000", "\"rps\":500.0", "\"non2xx\":3",
          "\"errors\":{\"connect\":0,\"read\":2,\"write\":0,\"protocol\":0,\"timeout\":0,\"verify\":0,\"tls\":0}",
          "\"bytes_read\":123456", "\"latency_us\":{\"p50\":501.8,\"p99\":991.2,\"p999\":1000.0,\"max\":1000.0",
          "\"client_cpu_s\":"}) {
        EXPECT_NE(json.find(field), std::string::npos) << field << " in " << json;
    }
    EXPECT_EQ(json.find("message_bytes"), std::string::npos);
    EXPECT_EQ(json.find("\"tls\":{"), std::string::npos);
    EXPECT_EQ(json.find("reconnect\""), std::string::npos);
}

TEST(RunStats, TlsLineCountsHandshakesAndResumptions) {
    RunReport report;
    report.mode = "http";
    report.tls = true;
    report.reconnect = true;
    report.durationSeconds = 2.0;
    report.stats.requests = 900;
    report.stats.tlsHandshakes = 1000;
    report.stats.tlsResumed = 990;
    report.stats.errors.tls = 1;
    const std::string json = formatJson(report);
    for (const char* field :
         {"\"pipeline\":1,\"reconnect\":true,\"duration_s\"", "\"verify\":0,\"tls\":1}",
          "\"tls\":{\"handshakes\":1000,\"resumed\":990,\"handshakes_per_s\":500.0},\"latency_us\""}) {
        EXPECT_NE(json.find(field), std::string::npos) << field << " in " << json;
    }
}

TEST(RunStats, WebSocketLineNamesTheMessage) {
    RunReport report;
    report.mode = "ws";
    report.messageBytes = 4096;
    report.text = true;
    const std::string json = formatJson(report);
    EXPECT_NE(json.find("\"message_bytes\":4096,\"message_type\":\"text\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"rps\":0.0"), std::string::npos) << json;
}

TEST(RunStats, FanoutLineNamesTheMessageToo) {
    RunReport report;
    report.mode = "fanout";
    report.messageBytes = 20;
    const std::string json = formatJson(report);
    EXPECT_EQ(json.rfind("{\"mode\":\"fanout\",", 0), 0u) << json;
    EXPECT_NE(json.find("\"message_bytes\":20,\"message_type\":\"binary\""), std::string::npos) << json;
}

TEST(RunStats, MergeAddsEverything) {
    RunStats a;
    RunStats b;
    a.requests = 1;
    b.requests = 2;
    b.errors.protocol = 4;
    b.errors.tls = 5;
    b.tlsHandshakes = 6;
    b.tlsResumed = 2;
    b.latency.record(7);
    a.merge(b);
    EXPECT_EQ(a.requests, 3u);
    EXPECT_EQ(a.errors.protocol, 4u);
    EXPECT_EQ(a.errors.tls, 5u);
    EXPECT_EQ(a.errors.total(), 9u);
    EXPECT_EQ(a.tlsHandshakes, 6u);
    EXPECT_EQ(a.tlsResumed, 2u);
    EXPECT_EQ(a.latency.count(), 1u);
    a.reset();
    EXPECT_EQ(a.requests, 0u);
    EXPECT_EQ(a.errors.total(), 0u);
    EXPECT_EQ(a.tlsHandshakes, 0u);
    EXPECT_EQ(a.tlsResumed, 0u);
}

}  // namespace
}  // namespace loopwire::lwload
