// Scenarios ws/echo-*: every WebSocket message is sent back as it came, binary or text, without compression (the
// same server as examples/cpp/echo_server.cpp with compression off, kept here so that the A/B runner measures the
// one it builds).
#include "ScenarioArgs.h"

namespace {

// The largest message the ws scenarios send, with room to spare (bench/scenarios/js/common.js).
constexpr std::uint32_t kMaxMessageBytes = 64 * 1024;

struct NoUserData {};

}  // namespace

int main(int argc, char** argv) {
    ScenarioArgs args = ScenarioArgs::parse(argc, argv);
    loopwire::App app(args.options);
    app.ws<NoUserData>("/*", {.compression = loopwire::DISABLED,
                              .maxPayloadLength = kMaxMessageBytes,
                              .message = [](loopwire::WebSocket<NoUserData>* ws, std::string_view message,
                                            loopwire::OpCode opCode) { ws->send(message, opCode); }})
        .listen(args.port, [&](loopwire::ListenSocket* socket) { ScenarioArgs::announce(socket, args.port); })
        .run();
}
