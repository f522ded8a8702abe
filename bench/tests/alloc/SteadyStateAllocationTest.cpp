// lwload allocates nothing per request or per message (or delivery) once its connections are open: a run of many
// requests allocates exactly as often as a run of few. This binary replaces the global operator new to count, on the
// calling thread only (the scripted servers and the TLS proxy allocate on theirs); and OpenSSL's allocator, to bound
// what OpenSSL itself allocates per request over TLS.
#include "../FanoutTestServer.h"
#include "../LoopbackServer.h"
#include "../TlsTestProxy.h"
#include "../WsTestServer.h"

#include "Clock.h"
#include "FanoutLoad.h"
#include "HttpLoad.h"
#include "Tls.h"
#include "WsHandshake.h"
#include "WsLoad.h"

#include <gtest/gtest.h>

#include <openssl/crypto.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <new>
#include <string>

namespace {
thread_local std::uint64_t tAllocations = 0;
thread_local std::uint64_t tOpenSslAllocations = 0;

void* countingOpenSslMalloc(std::size_t size, const char*, int) {
    ++tOpenSslAllocations;
    return std::malloc(size);
}
void* countingOpenSslRealloc(void* p, std::size_t size, const char*, int) {
    ++tOpenSslAllocations;
    return std::realloc(p, size);
}
void countingOpenSslFree(void* p, const char*, int) { std::free(p); }

// OpenSSL takes another allocator only before its first allocation: at static initialisation, then.
const bool kOpenSslCounted = [] {
    std::signal(SIGPIPE, SIG_IGN);  // OpenSSL writes with write()
    return CRYPTO_set_mem_functions(countingOpenSslMalloc, countingOpenSslRealloc, countingOpenSslFree) == 1;
}();
}  // namespace

void* operator new(std::size_t size) {
    ++tAllocations;
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
    ++tAllocations;
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace loopwire::lwload {
namespace {

using test::LoopbackServer;

std::atomic<bool> gStop{false};

RunPlan planWithBudget(std::uint64_t budget) {
    RunPlan plan;
    plan.measureStartNs = monotonicNs();
    plan.deadlineNs = plan.measureStartNs + 10'000'000'000;
    plan.timeoutNs = 2'000'000'000;
    plan.requestBudget = budget;
    plan.stop = &gStop;
    return plan;
}

ResolvedTarget targetFor(const std::string& url) {
    TargetUrl parsed;
    std::string error;
    ResolvedTarget target;
    EXPECT_TRUE(parseUrl(url, parsed, error));
    EXPECT_TRUE(resolveTarget(parsed, false, target, error));
    return target;
}

// Connections of every run. A longer run may grow a connection's buffer once more than a short one (reads
// coalesce differently), so the runs may differ by up to this many allocations, never by anything per request.
constexpr std::uint32_t kConnections = 4;

std::uint64_t httpRunAllocations(std::uint16_t port, std::uint32_t pipeline, std::uint64_t budget) {
    const ResolvedTarget target = targetFor("http://127.0.0.1:" + std::to_string(port) + "/");
    const std::string request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    std::string batch;
    for (std::uint32_t i = 0; i < pipeline; ++i)
        batch += request;
    HttpWorkerConfig config;
    config.target = &target;
    config.requestBatch = batch;
    config.requestBytes = request.size();
    config.pipeline = pipeline;
    config.connections = kConnections;
    config.plan = planWithBudget(budget);
    const std::uint64_t before = tAllocations;
    HttpWorker worker(config);
    worker.run();
    const std::uint64_t allocations = tAllocations - before;
    EXPECT_EQ(worker.stats().requests, budget);
    EXPECT_EQ(worker.stats().errors.total(), 0u);
    return allocations;
}

TEST(SteadyStateAllocation, HttpRequestsAllocateNothing) {
    LoopbackServer server([](int fd) {
        std::string buffer;
        std::string head;
        int n = 0;
        while (LoopbackServer::readHead(fd, buffer, head)) {
            const char* response =
                (n++ % 2 == 0) ? "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
                               : "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
            if (!LoopbackServer::writeAll(fd, response)) return;
        }
    });
    const std::uint64_t few = httpRunAllocations(server.port(), 1, 100);
    const std::uint64_t many = httpRunAllocations(server.port(), 1, 5000);
    EXPECT_GT(few, 0u);  // the counter works: setting up the connections allocates
    EXPECT_LE(many, few + kConnections);
    const std::uint64_t fewPipelined = httpRunAllocations(server.port(), 8, 800);
    const std::uint64_t manyPipelined = httpRunAllocations(server.port(), 8, 8000);
    EXPECT_LE(manyPipelined, fewPipelined + kConnections);
}

struct AllocationCounts {
    std::uint64_t lwload = 0;   // operator new
    std::uint64_t openSsl = 0;  // OpenSSL's own allocator
};

AllocationCounts httpsRunAllocations(std::uint16_t port, std::uint32_t pipeline, std::uint64_t budget) {
    const ResolvedTarget target = targetFor("https://127.0.0.1:" + std::to_string(port) + "/");
    TlsSettings settings;
    settings.serverName = "127.0.0.1";
    const TlsContext tls(settings);
    EXPECT_TRUE(tls.valid()) << tls.error();
    const std::string request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    std::string batch;
    for (std::uint32_t i = 0; i < pipeline; ++i)
        batch += request;
    HttpWorkerConfig config;
    config.target = &target;
    config.requestBatch = batch;
    config.requestBytes = request.size();
    config.pipeline = pipeline;
    config.connections = kConnections;
    config.tls = &tls;
    config.plan = planWithBudget(budget);
    const AllocationCounts before{tAllocations, tOpenSslAllocations};
    HttpWorker worker(config);
    worker.run();
    const AllocationCounts allocations{tAllocations - before.lwload, tOpenSslAllocations - before.openSsl};
    EXPECT_EQ(worker.stats().requests, budget);
    EXPECT_EQ(worker.stats().errors.total(), 0u);
    EXPECT_EQ(worker.stats().tlsHandshakes, kConnections);
    EXPECT_EQ(worker.stats().reconnects, 0u);
    return allocations;
}

// OpenSSL 3.0 allocates four small blocks for each record it writes (the packet builder, WPACKET, of its record
// layer; counted by call site: crypto/packet.c only): not lwload's to remove, but bounded here so that anything more,
// two more blocks per record (a buffer per read and per response), is noticed. Now and then a write builds one packet
// more, by timing: 2 to 5 % of them on a quiet machine, up to 39 % on a loaded one (seen while other tests ran
// beside it); one per record is allowed.
constexpr std::uint64_t kOpenSslAllocationsPerRecordWritten = 4;
constexpr std::uint64_t kOccasionalOpenSslAllocationEvery = 1;

TEST(SteadyStateAllocation, HttpsRequestsAllocateNothingAndOpenSslLittlePerRecord) {
    ASSERT_TRUE(kOpenSslCounted);
    LoopbackServer server([](int fd) {
        std::string buffer;
        std::string head;
        while (LoopbackServer::readHead(fd, buffer, head)) {
            if (!LoopbackServer::writeAll(fd, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")) return;
        }
    });
    test::TlsTestProxy proxy(server.port());
    for (const std::uint32_t pipeline : {1u, 8u}) {
        const std::uint64_t fewRequests = 100 * pipeline;
        const std::uint64_t manyRequests = 5000 * pipeline;
        const AllocationCounts few = httpsRunAllocations(proxy.port(), pipeline, fewRequests);
        const AllocationCounts many = httpsRunAllocations(proxy.port(), pipeline, manyRequests);
        EXPECT_GT(few.openSsl, 100u) << pipeline;  // the counter sees OpenSSL: a handshake allocates
        EXPECT_LE(many.lwload, few.lwload + kConnections) << pipeline;
        // One record per batch of requests written.
        const std::uint64_t moreRecords = (manyRequests - fewRequests) / pipeline;
        EXPECT_LE(many.openSsl, few.openSsl + moreRecords * kOpenSslAllocationsPerRecordWritten +
                                    moreRecords / kOccasionalOpenSslAllocationEvery)
            << pipeline;
    }
}

std::uint64_t wsRunAllocations(std::uint16_t port, std::uint64_t budget) {
    const ResolvedTarget target = targetFor("ws://127.0.0.1:" + std::to_string(port) + "/");
    WsWorkerConfig config;
    config.target = &target;
    config.path = "/";
    config.authority = "127.0.0.1";
    config.messageBytes = 300;
    config.connections = kConnections;
    config.plan = planWithBudget(budget);
    const std::uint64_t before = tAllocations;
    WsWorker worker(config);
    worker.run();
    const std::uint64_t allocations = tAllocations - before;
    EXPECT_EQ(worker.stats().requests, budget);
    EXPECT_EQ(worker.stats().errors.total(), 0u);
    return allocations;
}

TEST(SteadyStateAllocation, WebSocketEchoesAllocateNothing) {
    LoopbackServer server([](int fd) {
        std::string pending;
        if (!test::acceptUpgrade(fd, pending)) return;
        int opcode = 0;
        std::string payload;
        while (test::readClientFrame(fd, pending, opcode, payload)) {
            if (opcode == 8) return;
            if (!LoopbackServer::writeAll(fd, test::serverFrame(static_cast<std::uint8_t>(0x80 | opcode), payload))) {
                return;
            }
        }
    });
    const std::uint64_t few = wsRunAllocations(server.port(), 100);
    const std::uint64_t many = wsRunAllocations(server.port(), 5000);
    EXPECT_GT(few, 0u);
    EXPECT_LE(many, few + kConnections);
}

std::uint64_t fanoutRunAllocations(std::uint16_t port, std::uint64_t budget) {
    const ResolvedTarget target = targetFor("ws://127.0.0.1:" + std::to_string(port) + "/");
    FanoutWorkerConfig config;
    config.target = &target;
    config.subscriberPath = "/?role=sub";
    config.publisherPath = "/?role=pub";
    config.authority = "127.0.0.1";
    config.messageBytes = 300;
    config.subscribers = kConnections;
    config.plan = planWithBudget(budget);
    const std::uint64_t before = tAllocations;
    FanoutWorker worker(config);
    worker.run();
    const std::uint64_t allocations = tAllocations - before;
    EXPECT_EQ(worker.stats().requests, budget);
    EXPECT_EQ(worker.stats().errors.total(), 0u);
    return allocations;
}

TEST(SteadyStateAllocation, FanoutDeliveriesAllocateNothing) {
    test::FanoutScript script;
    LoopbackServer server(test::fanoutServer(script));
    const std::uint64_t few = fanoutRunAllocations(server.port(), 100);
    const std::uint64_t many = fanoutRunAllocations(server.port(), 5000);
    EXPECT_GT(few, 0u);
    EXPECT_LE(many, few + kConnections);
}

}  // namespace
}  // namespace loopwire::lwload
