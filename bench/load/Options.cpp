#include "Options.h"

#include "FanoutLoad.h"
#include "HttpSyntax.h"
#include "LoadLimits.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace loopwire::lwload {

namespace {

bool parseUnsigned(std::string_view text, std::uint64_t max, std::uint64_t& out) {
    if (text.empty() || text.size() > 19) return false;
    std::uint64_t value = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return false;
        value = value * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (value > max) return false;
    out = value;
    return true;
}

// Sizes: a number of bytes with an optional k or m suffix (KiB, MiB).
bool parseSize(std::string_view text, std::uint64_t max, std::uint64_t& out) {
    std::uint64_t scale = 1;
    if (!text.empty() && (text.back() == 'k' || text.back() == 'K')) {
        scale = 1024;
        text.remove_suffix(1);
    } else if (!text.empty() && (text.back() == 'm' || text.back() == 'M')) {
        scale = 1024 * 1024;
        text.remove_suffix(1);
    }
    std::uint64_t value = 0;
    if (!parseUnsigned(text, max, value) || value > max / scale) return false;
    out = value * scale;
    return true;
}

// Durations: seconds, with an optional unit: 500ms, 5s, 2m.
bool parseSeconds(std::string_view text, double& out) {
    double scale = 1.0;
    if (text.size() > 2 && text.substr(text.size() - 2) == "ms") {
        scale = 0.001;
        text.remove_suffix(2);
    } else if (!text.empty() && text.back() == 's') {
        text.remove_suffix(1);
    } else if (!text.empty() && text.back() == 'm') {
        scale = 60.0;
        text.remove_suffix(1);
    }
    if (text.empty() || text.size() > 32) return false;
    for (char c : text) {
        if ((c < '0' || c > '9') && c != '.') return false;
    }
    const std::string copy(text);
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(copy.c_str(), &end);
    if (errno != 0 || end != copy.c_str() + copy.size() || !std::isfinite(value)) return false;
    out = value * scale;
    return true;
}

bool validHeader(std::string_view header) {
    std::string_view name;
    std::string_view value;
    return http::splitField(header, name, value);
}

bool validMethod(std::string_view method) {
    if (method.empty() || method.size() > 32) return false;
    for (char c : method) {
        if (!http::isTokenChar(static_cast<unsigned char>(c))) return false;
    }
    return true;
}

}  // namespace

const char* usageText() noexcept {
    return R"(lwload: HTTP/1.1 and WebSocket load generator (one JSON line of results on stdout)

usage: lwload http   [options] http://127.0.0.1:PORT/path     (or https://)
       lwload ws     [options] ws://127.0.0.1:PORT/path       (or wss://)
       lwload fanout [options] ws://127.0.0.1:PORT/path       (or wss://)

common options:
  -c, --connections N   connections, spread over the threads (default 100)
  -t, --threads N       worker threads, each with its own epoll (default 1)
  -d, --duration T      measured time: 5, 5s, 500ms, 2m (default 10s; at most 600s with the warm-up)
  -n, --requests N      stop after N responses (ws: echoes; fanout: deliveries); -d is then the time limit
                        (default 600s)
      --warmup T        load for T first, not counted (default 0)
      --timeout T       a request (echo; fanout: delivery) outstanding for longer is an error, its connection
                        reopened (default 5s)
  -H, --header "K: V"   add a header field to each request (ws, fanout: to the upgrade requests); repeatable
      --allow-remote    allow a target that is not a loopback address
  -h, --help            this text

TLS options (https://, wss://; the server's certificate is not checked unless --cacert is given):
      --cacert PATH     verify the server's certificate, and that it names the URL's host, against PATH (PEM)
      --tls-resume on|off
                        offer the session of a connection's last handshake when it is reopened (default on)

http options:
  -p, --pipeline N      requests written back to back per connection (default 1)
  -m, --method M        request method (default GET)
      --body-file PATH  request body from a file (adds Content-Length)
      --body-size N     request body of N bytes, e.g. 1k (adds Content-Length)
      --reconnect       one connection per request (batch): connect, TLS handshake, request, response, close,
                        and again; latency then includes the connect and the handshake

ws and fanout options:
  -s, --size N          message size in bytes, e.g. 20 or 4k (default 20; fanout: at least 8)
      --text            send text messages (default binary)
      --binary          send binary messages

fanout options:
      --window N        messages in flight, not yet received by every subscriber, at most (default 8)
      --socket-io       speak socket.io over each WebSocket (give the server's /socket.io/?EIO=4&transport=websocket
                        path): answer engine.io's open packet with a connect ("40") and its pings ("2") with
                        pongs, join once connected, and send each message as the event "m" ('42["m","<text>"]',
                        the text messages of -s bytes inside), which the server emits to the subscribers' room
      --stamped         each message comes with "<epoch>:<offset>:" in front (loopwire's pub/sub history): it is
                        taken off before the message is compared, and the offsets must increase

http, ws: each connection sends its next request (or batch of --pipeline requests; ws: message) when the
previous one has been answered in full. Every response is parsed; every echo is compared with the message sent.

fanout: -c subscribers connect to the path with role=sub added to its query, one more connection, the
publisher, with role=pub; the server must publish each message of the publisher to every subscriber. The
publisher sends messages carrying a counter, at most --window of them in flight; each subscriber checks that
it receives every one, in order and unchanged. "requests" and "rps" count deliveries (messages received by a
subscriber), "latency_us" runs from the publisher's write to each delivery, and "connections" is the number
of subscribers. The measured time begins once every subscriber has joined. One thread (-t 1).

Exit status: 0 when at least one response was counted, 1 on a usage error, 2 when the target cannot be used,
3 when no response was counted.
)";
}

ParseOutcome parseOptions(int argc, const char* const* argv) {
    ParseOutcome outcome;
    LoadOptions& o = outcome.options;
    auto fail = [&outcome](std::string message) {
        outcome.ok = false;
        outcome.error = std::move(message);
        return outcome;
    };

    int i = 1;
    if (argc < 2) return fail("missing mode: http, ws or fanout");
    const std::string_view mode = argv[1];
    if (mode == "-h" || mode == "--help") {
        outcome.help = true;
        return outcome;
    }
    if (mode == "http") {
        o.mode = LoadMode::Http;
    } else if (mode == "ws") {
        o.mode = LoadMode::WebSocket;
    } else if (mode == "fanout") {
        o.mode = LoadMode::Fanout;
    } else {
        return fail("unknown mode '" + std::string(mode) + "': expected http, ws or fanout");
    }
    ++i;

    bool requestsGiven = false;
    bool pipelineGiven = false;
    bool methodGiven = false;
    bool sizeGiven = false;
    bool kindGiven = false;
    bool windowGiven = false;
    bool settleGiven = false;
    bool tlsResumeGiven = false;
    for (; i < argc; ++i) {
        std::string_view arg = argv[i];
        std::string_view value;
        bool hasInlineValue = false;
        if (arg.size() > 2 && arg.substr(0, 2) == "--") {
            const std::size_t eq = arg.find('=');
            if (eq != std::string_view::npos) {
                value = arg.substr(eq + 1);
                arg = arg.substr(0, eq);
                hasInlineValue = true;
            }
        }
        auto flag = [&](std::string_view shortName, std::string_view longName) {
            return (!shortName.empty() && arg == shortName) || arg == longName;
        };
        // Fetches the option's value: after '=' or from the next argument.
        auto next = [&](std::string_view& out) {
            if (hasInlineValue) {
                out = value;
                return true;
            }
            if (i + 1 >= argc) return false;
            out = argv[++i];
            return true;
        };
        std::string_view v;
        std::uint64_t number = 0;

        if (flag("-h", "--help")) {
            outcome.help = true;
            return outcome;
        } else if (flag("", "--allow-remote")) {
            o.allowRemote = true;
        } else if (flag("", "--reconnect")) {
            o.reconnect = true;
        } else if (flag("", "--tls-resume")) {
            if (!next(v) || (v != "on" && v != "off")) return fail("--tls-resume takes on or off");
            o.tlsResume = v == "on";
            tlsResumeGiven = true;
        } else if (flag("", "--cacert")) {
            if (!next(v) || v.empty()) return fail("--cacert takes the path of a PEM file");
            o.caFile = std::string(v);
        } else if (flag("", "--text")) {
            o.text = true;
            kindGiven = true;
        } else if (flag("", "--binary")) {
            o.text = false;
            kindGiven = true;
        } else if (flag("-c", "--connections")) {
            if (!next(v) || !parseUnsigned(v, limits::kMaxConnections, number) || number == 0) {
                return fail("--connections takes a number from 1 to " + std::to_string(limits::kMaxConnections));
            }
            o.connections = static_cast<std::uint32_t>(number);
        } else if (flag("-t", "--threads")) {
            if (!next(v) || !parseUnsigned(v, limits::kMaxThreads, number) || number == 0) {
                return fail("--threads takes a number from 1 to " + std::to_string(limits::kMaxThreads));
            }
            o.threads = static_cast<std::uint32_t>(number);
        } else if (flag("-p", "--pipeline")) {
            if (!next(v) || !parseUnsigned(v, limits::kMaxPipeline, number) || number == 0) {
                return fail("--pipeline takes a number from 1 to " + std::to_string(limits::kMaxPipeline));
            }
            o.pipeline = static_cast<std::uint32_t>(number);
            pipelineGiven = true;
        } else if (flag("-d", "--duration")) {
            if (!next(v) || !parseSeconds(v, o.durationSeconds) || !(o.durationSeconds > 0.0)) {
                return fail("--duration takes a positive time such as 5, 5s or 500ms");
            }
            o.durationGiven = true;
        } else if (flag("", "--warmup")) {
            if (!next(v) || !parseSeconds(v, o.warmupSeconds)) {
                return fail("--warmup takes a time such as 2, 2s or 500ms");
            }
        } else if (flag("", "--timeout")) {
            if (!next(v) || !parseSeconds(v, o.timeoutSeconds) || !(o.timeoutSeconds > 0.0)) {
                return fail("--timeout takes a positive time such as 5, 5s or 500ms");
            }
        } else if (flag("-n", "--requests")) {
            if (!next(v) || !parseUnsigned(v, limits::kMaxRequests, number) || number == 0) {
                return fail("--requests takes a positive number");
            }
            o.requests = number;
            requestsGiven = true;
        } else if (flag("-H", "--header")) {
            if (!next(v) || !validHeader(v)) return fail("--header takes a field line such as \"Accept: */*\"");
            o.headers.emplace_back(v);
        } else if (flag("-m", "--method")) {
            if (!next(v) || !validMethod(v)) return fail("--method takes a method token such as GET or POST");
            o.method = std::string(v);
            methodGiven = true;
        } else if (flag("", "--body-file")) {
            if (!next(v) || v.empty()) return fail("--body-file takes a path");
            o.bodyFile = std::string(v);
            o.hasBody = true;
        } else if (flag("", "--body-size")) {
            if (!next(v) || !parseSize(v, limits::kMaxBodyBytes, number)) {
                return fail("--body-size takes a size up to " + std::to_string(limits::kMaxBodyBytes) + " bytes");
            }
            o.bodySize = number;
            o.hasBody = true;
        } else if (flag("-s", "--size")) {
            if (!next(v) || !parseSize(v, limits::kMaxMessageBytes, number)) {
                return fail("--size takes a size up to " + std::to_string(limits::kMaxMessageBytes) + " bytes");
            }
            o.messageBytes = number;
            sizeGiven = true;
        } else if (flag("", "--window")) {
            if (!next(v) || !parseUnsigned(v, limits::kMaxFanoutWindow, number) || number == 0) {
                return fail("--window takes a number from 1 to " + std::to_string(limits::kMaxFanoutWindow));
            }
            o.window = static_cast<std::uint32_t>(number);
            windowGiven = true;
        } else if (flag("", "--settle")) {
            if (!next(v) || !parseUnsigned(v, limits::kMaxFanoutSettleMs, number)) {
                return fail("--settle takes milliseconds from 0 to " + std::to_string(limits::kMaxFanoutSettleMs));
            }
            o.settleMs = static_cast<std::uint32_t>(number);
            settleGiven = true;
        } else if (flag("", "--socket-io")) {
            o.socketIo = true;
        } else if (flag("", "--stamped")) {
            o.stamped = true;
        } else if (flag("", "--split-url")) {
            if (!next(v)) return fail("--split-url takes a ws:// URL");
            o.splitUrl = std::string(v);
        } else if (!arg.empty() && arg.front() == '-') {
            return fail("unknown option '" + std::string(arg) + "'");
        } else {
            if (!o.url.empty()) return fail("more than one URL given");
            o.url = std::string(arg);
        }
    }

    if (o.url.empty()) return fail("missing URL");
    std::string error;
    if (!parseUrl(o.url, o.target, error)) return fail(error);
    if (o.mode == LoadMode::Http && o.target.scheme != Scheme::Http) {
        return fail("lwload http takes an http:// or https:// URL");
    }
    if (o.mode == LoadMode::WebSocket && o.target.scheme != Scheme::WebSocket) {
        return fail("lwload ws takes a ws:// or wss:// URL");
    }
    if (o.mode == LoadMode::Fanout && o.target.scheme != Scheme::WebSocket) {
        return fail("lwload fanout takes a ws:// or wss:// URL");
    }
    if (settleGiven && o.mode != LoadMode::Fanout) return fail("--settle is for fanout");
    if (o.stamped && o.mode != LoadMode::Fanout) return fail("--stamped is for fanout");
    if (o.stamped && o.socketIo) return fail("--stamped is loopwire's history, not socket.io's");
    if (o.socketIo) {
        if (o.mode != LoadMode::Fanout) return fail("--socket-io is for fanout");
        // An event's argument is text: socket.io sends a binary one as a frame of its own after the event's.
        if (kindGiven && !o.text) return fail("--socket-io sends text messages, not --binary");
        o.text = true;
    }
    if (!o.splitUrl.empty()) {
        if (o.mode != LoadMode::Fanout) return fail("--split-url is for fanout");
        if (!parseUrl(o.splitUrl, o.splitTarget, error)) return fail("--split-url: " + error);
        if (o.splitTarget.scheme != Scheme::WebSocket || o.splitTarget.tls != o.target.tls) {
            return fail("--split-url takes a URL of the same scheme as the target's");
        }
        if (!o.allowRemote && !isLoopbackHost(o.splitTarget.host)) {
            return fail("refusing to load " + o.splitTarget.host + " (--split-url): only loopback targets");
        }
    }
    if (!o.target.tls && (!o.caFile.empty() || tlsResumeGiven)) {
        return fail("--cacert and --tls-resume are for https:// and wss:// URLs");
    }
    if (o.mode != LoadMode::Http && o.reconnect) return fail("--reconnect is for http");
    if (!o.allowRemote && !isLoopbackHost(o.target.host)) {
        return fail("refusing to load " + o.target.host +
                    ": only loopback targets (127.0.0.0/8, ::1, localhost) unless --allow-remote is given");
    }
    if (o.mode == LoadMode::Http && (sizeGiven || kindGiven)) {
        return fail("--size, --text and --binary are for ws and fanout");
    }
    if (o.mode != LoadMode::Http && (pipelineGiven || methodGiven || o.hasBody)) {
        return fail("--pipeline, --method, --body-file and --body-size are for http");
    }
    if (o.mode != LoadMode::Fanout && windowGiven) return fail("--window is for fanout");
    if (o.mode == LoadMode::Fanout) {
        if (o.messageBytes < FanoutWorker::kCounterBytes) {
            return fail("lwload fanout needs messages of at least " + std::to_string(FanoutWorker::kCounterBytes) +
                        " bytes (-s): they carry a counter");
        }
        if (o.threads > 1) return fail("lwload fanout runs in one thread: -t 1");
    }
    if (!o.bodyFile.empty() && o.bodySize != 0) return fail("give --body-file or --body-size, not both");

    if (requestsGiven && !o.durationGiven) o.durationSeconds = limits::kMaxRunSeconds - o.warmupSeconds;
    if (o.warmupSeconds < 0.0 || o.durationSeconds + o.warmupSeconds > limits::kMaxRunSeconds + 1e-9) {
        return fail("--duration plus --warmup may not exceed " +
                    std::to_string(static_cast<int>(limits::kMaxRunSeconds)) + " seconds");
    }
    if (o.timeoutSeconds > limits::kMaxRunSeconds) return fail("--timeout may not exceed the run's time limit");
    if (o.threads > o.connections) o.threads = o.connections;
    outcome.ok = true;
    return outcome;
}

std::string buildHttpRequest(const LoadOptions& options, const std::string& body) {
    bool hostGiven = false;
    for (const std::string& header : options.headers) {
        if (header.size() > 5 && http::equalsLower(std::string_view(header).substr(0, 5), "host:")) hostGiven = true;
    }
    std::string request;
    request.reserve(128 + options.target.path.size() + body.size());
    request.append(options.method).append(" ").append(options.target.path).append(" HTTP/1.1\r\n");
    if (!hostGiven) request.append("Host: ").append(options.target.authority).append("\r\n");
    for (const std::string& header : options.headers)
        request.append(header).append("\r\n");
    if (options.hasBody) request.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
    request.append("\r\n");
    request.append(body);
    return request;
}

}  // namespace loopwire::lwload
