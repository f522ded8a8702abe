// A WebSocket echo server: every message comes back as it came, text as text and binary as binary, up to 16 MiB.
//   ./echo_server --port 9001 --compression off|shared|dedicated
#include "ExampleArgs.h"

#include <cstdint>

namespace {

constexpr std::uint32_t kMaxMessageBytes = 16 * 1024 * 1024;

// Nothing is kept per connection.
struct PerSocket {};

}  // namespace

int main(int argc, char** argv) {
    ExampleArgs args = ExampleArgs::parse(argc, argv);
    const bool compress = args.compression != loopwire::DISABLED;
    loopwire::App app(args.options);
    app.ws<PerSocket>("/*", {.compression = args.compression,
                             .maxPayloadLength = kMaxMessageBytes,
                             .idleTimeout = 60,
                             .maxBackpressure = kMaxMessageBytes,
                             .message = [compress](loopwire::WebSocket<PerSocket>* ws, std::string_view message,
                                                   loopwire::OpCode opCode) { ws->send(message, opCode, compress); }})
        .listen(args.port, [&](loopwire::ListenSocket* socket) { ExampleArgs::announce(socket, args.port); })
        .run();
}
