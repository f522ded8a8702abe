#include "RunStats.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <string_view>

namespace loopwire::lwload {

void RunStats::merge(const RunStats& other) noexcept {
    requests += other.requests;
    non2xx += other.non2xx;
    bytesRead += other.bytesRead;
    reconnects += other.reconnects;
    tlsHandshakes += other.tlsHandshakes;
    tlsResumed += other.tlsResumed;
    errors.connect += other.errors.connect;
    errors.read += other.errors.read;
    errors.write += other.errors.write;
    errors.protocol += other.errors.protocol;
    errors.timeout += other.errors.timeout;
    errors.verify += other.errors.verify;
    errors.tls += other.errors.tls;
    latency.merge(other.latency);
}

void RunStats::reset() noexcept {
    requests = 0;
    non2xx = 0;
    bytesRead = 0;
    reconnects = 0;
    tlsHandshakes = 0;
    tlsResumed = 0;
    errors = ErrorCounts{};
    latency.reset();
}

namespace {

void appendEscaped(std::string& out, const std::string& text) {
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(c);
        } else if (u < 0x20) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\u%04x", u);
            out.append(escape);
        } else {
            out.push_back(c);
        }
    }
}

void appendFormat(std::string& out, const char* format, ...) __attribute__((format(printf, 2, 3)));

void appendFormat(std::string& out, const char* format, ...) {
    char buffer[256];
    va_list args;
    va_start(args, format);
    const int n = std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    if (n <= 0) return;
    const auto length = static_cast<std::size_t>(n);
    out.append(buffer, length < sizeof buffer ? length : sizeof buffer - 1);
}

double microseconds(std::uint64_t ns) noexcept { return static_cast<double>(ns) / 1000.0; }

}  // namespace

std::string formatJson(const RunReport& report) {
    const RunStats& s = report.stats;
    const double rps = report.durationSeconds > 0.0 ? static_cast<double>(s.requests) / report.durationSeconds : 0.0;
    std::string out;
    out.reserve(512);
    out.append("{\"mode\":\"").append(report.mode).append("\",\"url\":\"");
    appendEscaped(out, report.url);
    out.append("\"");
    appendFormat(out, ",\"connections\":%" PRIu32 ",\"threads\":%" PRIu32 ",\"pipeline\":%" PRIu32, report.connections,
                 report.threads, report.pipeline);
    if (report.reconnect) out.append(",\"reconnect\":true");
    if (std::string_view(report.mode) != "http") {
        appendFormat(out, ",\"message_bytes\":%" PRIu64 ",\"message_type\":\"%s\"", report.messageBytes,
                     report.text ? "text" : "binary");
    }
    appendFormat(out, ",\"duration_s\":%.3f,\"requests\":%" PRIu64 ",\"rps\":%.1f,\"non2xx\":%" PRIu64,
                 report.durationSeconds, s.requests, rps, s.non2xx);
    appendFormat(out,
                 ",\"errors\":{\"connect\":%" PRIu64 ",\"read\":%" PRIu64 ",\"write\":%" PRIu64 ",\"protocol\":%" PRIu64
                 ",\"timeout\":%" PRIu64 ",\"verify\":%" PRIu64 ",\"tls\":%" PRIu64 "}",
                 s.errors.connect, s.errors.read, s.errors.write, s.errors.protocol, s.errors.timeout, s.errors.verify,
                 s.errors.tls);
    appendFormat(out, ",\"reconnects\":%" PRIu64 ",\"bytes_read\":%" PRIu64, s.reconnects, s.bytesRead);
    if (report.tls) {
        const double handshakeRate =
            report.durationSeconds > 0.0 ? static_cast<double>(s.tlsHandshakes) / report.durationSeconds : 0.0;
        appendFormat(out, ",\"tls\":{\"handshakes\":%" PRIu64 ",\"resumed\":%" PRIu64 ",\"handshakes_per_s\":%.1f}",
                     s.tlsHandshakes, s.tlsResumed, handshakeRate);
    }
    appendFormat(out, ",\"latency_us\":{\"p50\":%.1f,\"p99\":%.1f,\"p999\":%.1f,\"max\":%.1f,\"mean\":%.1f}",
                 microseconds(s.latency.percentile(50.0)), microseconds(s.latency.percentile(99.0)),
                 microseconds(s.latency.percentile(99.9)), microseconds(s.latency.max()), s.latency.mean() / 1000.0);
    appendFormat(out, ",\"client_cpu_s\":%.3f}", report.clientCpuSeconds);
    return out;
}

}  // namespace loopwire::lwload
