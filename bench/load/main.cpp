// lwload: the HTTP/1.1, WebSocket and WebSocket fan-out load generator of lwbench, in the clear or over TLS. See
// docs/lwload.md.
#include "Clock.h"
#include "FanoutLoad.h"
#include "HttpLoad.h"
#include "LoadLimits.h"
#include "Options.h"
#include "RunStats.h"
#include "Target.h"
#include "Tls.h"
#include "WsLoad.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>

namespace {

using namespace loopwire::lwload;

std::atomic<bool> gStop{false};

extern "C" void onSignal(int) { gStop.store(true, std::memory_order_relaxed); }

double cpuSeconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    auto seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Each connection needs a descriptor; raise the soft limit towards the hard one when the default is too low.
bool ensureDescriptors(std::uint32_t connections) {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return true;
    const rlim_t needed = static_cast<rlim_t>(connections) + 64;
    if (limit.rlim_cur >= needed) return true;
    if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed) return false;
    limit.rlim_cur = needed;
    return setrlimit(RLIMIT_NOFILE, &limit) == 0;
}

bool loadBody(const LoadOptions& options, std::string& body, std::string& error) {
    if (!options.bodyFile.empty()) {
        std::ifstream file(options.bodyFile, std::ios::binary);
        if (!file) {
            error = "cannot read " + options.bodyFile;
            return false;
        }
        body.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
        if (body.size() > limits::kMaxBodyBytes) {
            error = options.bodyFile + " is larger than " + std::to_string(limits::kMaxBodyBytes) + " bytes";
            return false;
        }
    } else {
        body.assign(static_cast<std::size_t>(options.bodySize), 'x');
    }
    return true;
}

template <typename Worker>
void runWorkers(std::vector<std::unique_ptr<Worker>>& workers) {
    if (workers.size() == 1) {
        workers[0]->run();
        return;
    }
    std::vector<std::thread> threads;
    threads.reserve(workers.size());
    for (auto& worker : workers)
        threads.emplace_back([&worker] { worker->run(); });
    for (std::thread& thread : threads)
        thread.join();
}

template <typename Worker>
void collect(const std::vector<std::unique_ptr<Worker>>& workers, const RunPlan& plan, RunReport& report) {
    std::int64_t measuredNs = 0;
    const char* firstError = nullptr;
    for (const auto& worker : workers) {
        report.stats.merge(worker->stats());
        const std::int64_t end = worker->endNs() < plan.deadlineNs ? worker->endNs() : plan.deadlineNs;
        if (end - plan.measureStartNs > measuredNs) measuredNs = end - plan.measureStartNs;
        if (firstError == nullptr) firstError = worker->firstProtocolError();
    }
    report.durationSeconds = static_cast<double>(measuredNs) / 1e9;
    if (firstError != nullptr) std::fprintf(stderr, "lwload: first protocol error: %s\n", firstError);
}

}  // namespace

int main(int argc, char** argv) {
    const ParseOutcome parsed = parseOptions(argc, argv);
    if (parsed.help) {
        std::fputs(usageText(), stdout);
        return 0;
    }
    if (!parsed.ok) {
        std::fprintf(stderr, "lwload: %s\n(lwload --help for usage)\n", parsed.error.c_str());
        return 1;
    }
    LoadOptions options = parsed.options;
    if (options.requests != 0 && options.threads > options.requests) {
        options.threads = static_cast<std::uint32_t>(options.requests);
    }

    std::string error;
    ResolvedTarget target;
    if (!resolveTarget(options.target, options.allowRemote, target, error)) {
        std::fprintf(stderr, "lwload: %s\n", error.c_str());
        return 2;
    }
    ResolvedTarget splitTarget;
    if (!options.splitUrl.empty() && !resolveTarget(options.splitTarget, options.allowRemote, splitTarget, error)) {
        std::fprintf(stderr, "lwload: --split-url: %s\n", error.c_str());
        return 2;
    }
    // A fanout run has one connection more than -c: the publisher.
    if (!ensureDescriptors(options.connections + (options.mode == LoadMode::Fanout ? 1 : 0))) {
        std::fprintf(stderr, "lwload: %u connections need more file descriptors than RLIMIT_NOFILE allows\n",
                     options.connections);
        return 2;
    }
    std::string body;
    if (!loadBody(options, body, error)) {
        std::fprintf(stderr, "lwload: %s\n", error.c_str());
        return 2;
    }

    // One TLS context for every thread, or none for http:// and ws://.
    std::unique_ptr<TlsContext> tls;
    if (options.target.tls) {
        TlsSettings settings;
        settings.serverName = options.target.host;
        settings.caFile = options.caFile;
        settings.resume = options.tlsResume;
        tls = std::make_unique<TlsContext>(settings);
        if (!tls->valid()) {
            std::fprintf(stderr, "lwload: %s\n", tls->error().c_str());
            return 2;
        }
    }

    // Writes to a closed connection must fail with EPIPE, not end the process: OpenSSL writes with write().
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);

    const double cpuStart = cpuSeconds();
    const std::int64_t start = monotonicNs();
    RunPlan plan;
    plan.measureStartNs = start + static_cast<std::int64_t>(options.warmupSeconds * 1e9);
    plan.deadlineNs = plan.measureStartNs + static_cast<std::int64_t>(options.durationSeconds * 1e9);
    plan.timeoutNs = static_cast<std::int64_t>(options.timeoutSeconds * 1e9);
    plan.stop = &gStop;

    // Connections and requests are shared out as evenly as they divide.
    auto share = [&options](std::uint64_t total, std::uint32_t index) {
        return total / options.threads + (index < total % options.threads ? 1 : 0);
    };

    RunReport report;
    report.url = options.url;
    report.connections = options.connections;
    report.threads = options.threads;
    report.tls = options.target.tls;

    if (options.mode == LoadMode::Http) {
        const std::string request = buildHttpRequest(options, body);
        std::string batch;
        batch.reserve(request.size() * options.pipeline);
        for (std::uint32_t i = 0; i < options.pipeline; ++i)
            batch += request;

        std::vector<std::unique_ptr<HttpWorker>> workers;
        for (std::uint32_t i = 0; i < options.threads; ++i) {
            HttpWorkerConfig config;
            config.target = &target;
            config.requestBatch = batch;
            config.requestBytes = request.size();
            config.pipeline = options.pipeline;
            config.connections = static_cast<std::uint32_t>(share(options.connections, i));
            config.headRequest = options.method == "HEAD";
            config.reconnect = options.reconnect;
            config.tls = tls.get();
            config.plan = plan;
            config.plan.requestBudget = options.requests == 0 ? 0 : share(options.requests, i);
            workers.push_back(std::make_unique<HttpWorker>(config));
        }
        runWorkers(workers);
        report.mode = "http";
        report.pipeline = options.pipeline;
        report.reconnect = options.reconnect;
        collect(workers, plan, report);
    } else if (options.mode == LoadMode::Fanout) {
        std::string extraHeaders;
        for (const std::string& header : options.headers)
            extraHeaders.append(header).append("\r\n");
        const std::string subscriberPath = fanoutRolePath(options.target.path, "sub");
        const std::string publisherPath = fanoutRolePath(options.target.path, "pub");
        std::random_device entropy;
        FanoutWorkerConfig config;
        config.target = &target;
        config.splitTarget = options.splitUrl.empty() ? nullptr : &splitTarget;
        config.subscriberPath = subscriberPath;
        config.publisherPath = publisherPath;
        config.authority = options.target.authority;
        config.extraHeaders = extraHeaders;
        config.messageBytes = options.messageBytes;
        config.text = options.text;
        config.subscribers = options.connections;
        config.window = options.window;
        config.settleNs = std::int64_t{options.settleMs} * 1'000'000;
        config.socketIo = options.socketIo;
        config.stamped = options.stamped;
        config.tls = tls.get();
        config.seed = (std::uint64_t{entropy()} << 32) ^ entropy();
        config.plan = plan;
        config.plan.requestBudget = options.requests;
        FanoutWorker worker(config);
        worker.run();
        report.mode = "fanout";
        report.threads = 1;
        report.messageBytes = options.messageBytes;
        report.text = options.text;
        report.stats = worker.stats();
        // The measured time is the worker's own: it begins when every subscriber has joined.
        const std::int64_t end = worker.endNs() < worker.deadlineNs() ? worker.endNs() : worker.deadlineNs();
        const std::int64_t measured = end - worker.measureStartNs();
        report.durationSeconds = measured > 0 ? static_cast<double>(measured) / 1e9 : 0.0;
        if (worker.firstProtocolError() != nullptr) {
            std::fprintf(stderr, "lwload: first protocol error: %s\n", worker.firstProtocolError());
        }
    } else {
        std::string extraHeaders;
        for (const std::string& header : options.headers)
            extraHeaders.append(header).append("\r\n");
        std::random_device entropy;
        std::vector<std::unique_ptr<WsWorker>> workers;
        for (std::uint32_t i = 0; i < options.threads; ++i) {
            WsWorkerConfig config;
            config.target = &target;
            config.path = options.target.path;
            config.authority = options.target.authority;
            config.extraHeaders = extraHeaders;
            config.messageBytes = options.messageBytes;
            config.text = options.text;
            config.connections = static_cast<std::uint32_t>(share(options.connections, i));
            config.seed = (std::uint64_t{entropy()} << 32) ^ entropy() ^ i;
            config.tls = tls.get();
            config.plan = plan;
            config.plan.requestBudget = options.requests == 0 ? 0 : share(options.requests, i);
            workers.push_back(std::make_unique<WsWorker>(config));
        }
        runWorkers(workers);
        report.mode = "ws";
        report.messageBytes = options.messageBytes;
        report.text = options.text;
        collect(workers, plan, report);
    }
    report.clientCpuSeconds = cpuSeconds() - cpuStart;

    std::printf("%s\n", formatJson(report).c_str());
    std::fflush(stdout);
    return report.stats.requests > 0 ? 0 : 3;
}
