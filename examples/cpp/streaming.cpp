// Streaming a large body with tryEnd and onWritable: the response never holds more than what the peer reads.
#include "ExampleArgs.h"

#include <cstdint>
#include <string>

namespace {

constexpr std::uint64_t kBodyBytes = 64 * 1024 * 1024;

// The body is generated, so the example needs no file: byte i is 'a' + i % 26.
const std::string& pattern() {
    static const std::string bytes = [] {
        std::string text(64 * 1024 + 26, ' ');
        for (std::size_t i = 0; i < text.size(); ++i)
            text[i] = static_cast<char>('a' + i % 26);
        return text;
    }();
    return bytes;
}

// The next piece of the body, starting at offset.
std::string_view pieceAt(std::uint64_t offset) {
    std::size_t skew = offset % 26;
    std::uint64_t left = kBodyBytes - offset;
    std::size_t length = left < 64 * 1024 ? static_cast<std::size_t>(left) : 64 * 1024;
    return std::string_view(pattern()).substr(skew, length);
}

// Sends pieces until the connection pushes back; returns whether the response is complete.
bool pump(loopwire::HttpResponse* res) {
    for (;;) {
        std::uint64_t offset = res->getWriteOffset();
        auto [ok, done] = res->tryEnd(pieceAt(offset), kBodyBytes);
        if (done) return true;
        if (!ok) return false;
    }
}

}  // namespace

int main(int argc, char** argv) {
    ExampleArgs args = ExampleArgs::parse(argc, argv);
    loopwire::App app(args.options);
    app.get("/large",
            [](loopwire::HttpResponse* res, loopwire::HttpRequest*) {
                res->onAborted([] {});
                res->writeHeader("Content-Type", "application/octet-stream");
                if (pump(res)) return;
                res->onWritable([res](std::uint64_t) {
                    pump(res);
                    return true;
                });
            })
        .listen(args.port, [&](loopwire::ListenSocket* socket) { ExampleArgs::announce(socket, args.port); })
        .run();
}
