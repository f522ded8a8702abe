// Scenario wss/echo-20b: ws/echo-* over TLS, from an SSLApp whose key and certificate are the files given with
// --key and --cert. Every message is sent back as it came, without compression.
#include "TlsScenarioArgs.h"

namespace {

// The largest message the ws scenarios send, with room to spare (bench/scenarios/js/common.js).
constexpr std::uint32_t kMaxMessageBytes = 64 * 1024;

struct NoUserData {};

}  // namespace

int main(int argc, char** argv) {
    const TlsScenarioArgs args = TlsScenarioArgs::parse(argc, argv);
    loopwire::SSLApp app(args.material(), args.common.options);
    if (args.refusedBy(app)) return 1;
    app.ws<NoUserData>("/*", {.compression = loopwire::DISABLED,
                              .maxPayloadLength = kMaxMessageBytes,
                              .message = [](loopwire::WebSocket<NoUserData>* ws, std::string_view message,
                                            loopwire::OpCode opCode) { ws->send(message, opCode); }})
        .listen(args.common.port,
                [&](loopwire::ListenSocket* socket) { ScenarioArgs::announce(socket, args.common.port); })
        .run();
}
