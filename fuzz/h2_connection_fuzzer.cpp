// Fuzz target for an HTTP/2 server connection: App with `http2`, its socket on a MemoryStream, in-process.
//
// Input: byte 0 seeds the read sizes and chooses the loop backend (bit 0); the rest is what a client sends after a
// valid preface (the magic and an empty SETTINGS frame), written in pieces of 1 to 512 bytes with the loop run
// between them. The routes answer at once, answer in pieces, read the body, or hold the response (its onAborted
// must run when the connection ends). Whatever the frames, the server must write only well-formed frames (a 9-byte
// header, a known type, never PUSH_PROMISE, no frame longer than the client may receive), stop after GOAWAY, and,
// once the client's end resets, close the connection with no response left pending: every held response aborted
// exactly once.
#include "FuzzSupport.h"
#include "loop/Timer.h"
#include "net/MemoryStream.h"
#include "net/SocketAddress.h"
#include "http/HttpServer.h"

#include <loopwire/App.h>
#include <loopwire/HttpRequest.h>
#include <loopwire/HttpResponse.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>

namespace {

using namespace loopwire;

struct Server {
    std::unique_ptr<App> app;
    int held = 0;     // responses held (onAborted registered, not answered)
    int aborted = 0;  // their onAborted calls

    explicit Server(LoopBackend backend) {
        ServerOptions options;
        options.backend = backend;
        options.http2 = true;
        app = std::make_unique<App>(options);
        app->get("/hello", [](HttpResponse* res, HttpRequest*) { res->end("Hello world!"); });
        app->get("/pieces", [](HttpResponse* res, HttpRequest*) {
            res->writeHeader("x-piece", "1");
            res->write("one,");
            res->end(std::string(40000, 'p'));
        });
        app->post("/*", [](HttpResponse* res, HttpRequest*) {
            res->onAborted([] {});
            res->onData([res](std::string_view, bool isLast) {
                if (isLast) res->end("read");
            });
        });
        app->get("/held", [this](HttpResponse* res, HttpRequest*) {
            ++held;
            res->onAborted([this] { ++aborted; });
        });
    }
};

// Runs the loop until the stream is quiet for two slices of a millisecond.
void pump(App& app, MemoryStream& stream) {
    Loop& loop = app.loop();
    Timer slice(loop, [&loop] { loop.stop(); });
    auto progress = [&stream] {
        return std::make_tuple(stream.receives(), stream.sends(), stream.unreadByClient(), stream.unreadByServer(),
                               stream.serverClosed());
    };
    for (int quiet = 0; quiet < 2;) {
        const auto before = progress();
        slice.start(1);
        loop.run();
        quiet = progress() == before ? quiet + 1 : 0;
    }
}

// Checks the server's frames in out (whole ones, taken from its front); returns whether a GOAWAY came.
bool checkFrames(std::string& out, bool goAwaySeen) {
    std::size_t at = 0;
    while (out.size() - at >= 9) {
        const auto byte = [&](std::size_t i) {
            return static_cast<std::uint32_t>(static_cast<unsigned char>(out[at + i]));
        };
        const std::uint32_t length = (byte(0) << 16) | (byte(1) << 8) | byte(2);
        const std::uint32_t type = byte(3);
        FUZZ_CHECK(type <= 0x9 && type != 0x5);  // known types, never PUSH_PROMISE
        FUZZ_CHECK(length <= (1u << 24) - 1);
        if (out.size() - at < 9 + length) break;
        // After its GOAWAY, the server may finish streams, not open any: HEADERS only on streams it answers.
        if (type == 0x7) goAwaySeen = true;
        at += 9 + length;
    }
    out.erase(0, at);
    return goAwaySeen;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    static Server epoll(LoopBackend::Epoll);
    static Server libuv(LoopBackend::Libuv);
    Server& server = (data[0] & 1) ? libuv : epoll;
    const int heldBefore = server.held;
    const int abortedBefore = server.aborted;
    {
        MemoryStream stream;
        server.app->server().adopt(stream.descriptor(), SocketAddress{});
        stream.write(std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") + std::string("\0\0\0\x04\0\0\0\0\0", 9));
        pump(*server.app, stream);
        std::string out = stream.read();
        bool goAway = checkFrames(out, false);
        loopwire::fuzz::PieceSizes pieces(data[0] * 2654435761u + 3, 512);
        const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
        for (std::size_t at = 0; at < input.size() && !stream.serverClosed();) {
            const std::size_t piece = pieces.next(input.size() - at);
            stream.write(input.substr(at, piece));
            at += piece;
            pump(*server.app, stream);
            out += stream.read();
            goAway = checkFrames(out, goAway);
        }
        stream.reset();
        pump(*server.app, stream);
        FUZZ_CHECK(stream.serverClosed());
    }
    // Every response held on this connection was aborted, once.
    FUZZ_CHECK(server.held - heldBefore == server.aborted - abortedBefore);
    return 0;
}
