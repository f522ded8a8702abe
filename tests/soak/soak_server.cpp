// The soak test's native server (see docs/soak.md): the same routes as tests/soak/server.js, on the public C++ API.
//
//   GET  /hello           200 "Hello world!"
//   POST /echo            200, the body echoed back (bodies up to 1 MiB; larger ones get 413 and a close). No
//                         x-sha256 header: the client compares the echoed bytes with what it sent.
//   GET  /stream?size=N   200, N bytes (default 8 MiB) sent with tryEnd/onWritable; byte i is (i * 31 + 7) & 0xff
//   GET  /deferred        200 "deferred", 20 to 50 ms later (DelayedTasks: a thread that hands tasks to the loop)
//
// Command line: the examples' --port N --backend epoll|libuv; prints "listening on <port>" once ready.
#include "DelayedTasks.h"
#include "ExampleArgs.h"

#include <charconv>
#include <cstdint>
#include <memory>
#include <random>
#include <string>

namespace {

constexpr std::size_t kMaxEchoBytes = 1024 * 1024;
constexpr std::uint64_t kDefaultStreamBytes = 8 * 1024 * 1024;
constexpr std::uint64_t kMaxStreamBytes = std::uint64_t{1} << 30;
constexpr std::size_t kStreamPieceBytes = 64 * 1024;
// The body pattern repeats every 256 bytes, since 31 * 256 is a multiple of 256.
constexpr std::size_t kPatternPeriod = 256;
constexpr int kMinDeferMs = 20;
constexpr int kMaxDeferMs = 50;

// One piece of pattern long enough to start at any phase of its period.
const std::string& patternBlock() {
    static const std::string block = [] {
        std::string bytes(kStreamPieceBytes + kPatternPeriod, '\0');
        for (std::size_t i = 0; i < bytes.size(); ++i)
            bytes[i] = static_cast<char>((i * 31 + 7) & 0xff);
        return bytes;
    }();
    return block;
}

// The body bytes of a size-byte stream from offset on, at most one piece.
std::string_view streamPiece(std::uint64_t offset, std::uint64_t size) {
    std::uint64_t left = size - offset;
    std::size_t length = left < kStreamPieceBytes ? static_cast<std::size_t>(left) : kStreamPieceBytes;
    return std::string_view(patternBlock()).substr(offset % kPatternPeriod, length);
}

// Sends until the connection pushes back; returns whether the response is complete.
bool pumpStream(loopwire::HttpResponse* res, std::uint64_t size) {
    for (;;) {
        std::uint64_t offset = res->getWriteOffset();
        auto [ok, done] = res->tryEnd(streamPiece(offset, size), size);
        if (done) return true;
        if (!ok) return false;
    }
}

// The size query parameter: absent gives the default; anything but a number up to kMaxStreamBytes is refused.
bool parseStreamSize(std::string_view text, std::uint64_t& size) {
    if (text.data() == nullptr) {
        size = kDefaultStreamBytes;
        return true;
    }
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), size);
    return error == std::errc() && end == text.data() + text.size() && size <= kMaxStreamBytes;
}

void answerStream(loopwire::HttpResponse* res, loopwire::HttpRequest* req) {
    std::uint64_t size = 0;
    if (!parseStreamSize(req->getQuery("size"), size)) {
        res->writeStatus("400 Bad Request")->end("size must be a number of bytes up to 1 GiB");
        return;
    }
    res->onAborted([] {});
    res->writeHeader("Content-Type", "application/octet-stream");
    if (pumpStream(res, size)) return;
    res->onWritable([res, size](std::uint64_t) {
        pumpStream(res, size);
        return true;
    });
}

struct EchoState {
    std::string body;
    bool refused = false;
};

void answerEcho(loopwire::HttpResponse* res, loopwire::HttpRequest* req) {
    std::uint64_t declared = 0;
    std::string_view length = req->getHeader("content-length");
    std::from_chars(length.data(), length.data() + length.size(), declared);
    if (declared > kMaxEchoBytes) {
        res->writeStatus("413 Payload Too Large")->end("", true);
        return;
    }
    auto state = std::make_shared<EchoState>();
    state->body.reserve(static_cast<std::size_t>(declared));
    res->onAborted([state] {});
    res->onData([res, state](std::string_view chunk, bool isLast) {
        if (state->refused) return;
        if (state->body.size() + chunk.size() > kMaxEchoBytes) {
            // A chunked body has no Content-Length to refuse up front.
            state->refused = true;
            res->writeStatus("413 Payload Too Large")->end("", true);
            return;
        }
        state->body.append(chunk);
        if (!isLast) return;
        res->end(state->body);
        std::string().swap(state->body);
    });
}

int randomDeferMs() {
    static std::minstd_rand generator(std::random_device{}());
    return std::uniform_int_distribution<int>(kMinDeferMs, kMaxDeferMs)(generator);
}

void answerLater(loopwire::HttpResponse* res, DelayedTasks& delayed) {
    auto aborted = std::make_shared<bool>(false);
    res->onAborted([aborted] { *aborted = true; });
    delayed.schedule(std::chrono::milliseconds(randomDeferMs()), [res, aborted] {
        if (!*aborted) res->end("deferred");
    });
}

}  // namespace

int main(int argc, char** argv) {
    ExampleArgs args = ExampleArgs::parse(argc, argv);
    loopwire::App app(args.options);
    DelayedTasks delayed(app);
    app.get("/hello", [](loopwire::HttpResponse* res, loopwire::HttpRequest*) { res->end("Hello world!"); })
        .post("/echo", answerEcho)
        .get("/stream", answerStream)
        .get("/deferred",
             [&delayed](loopwire::HttpResponse* res, loopwire::HttpRequest*) { answerLater(res, delayed); })
        .listen("127.0.0.1", args.port,
                [&](loopwire::ListenSocket* socket) { ExampleArgs::announce(socket, args.port); })
        .run();
}
