// Scenario ws/fanout: a connection whose upgrade request has role=sub in its query subscribes to one topic when it
// opens; every message any other connection (the publisher) sends is published to that topic as it came, binary
// or text, without compression (lwload fanout, docs/lwload.md).
#include "ScenarioArgs.h"

#include <string_view>

#include <sys/resource.h>

namespace {

// The largest message the ws scenarios send, with room to spare (bench/scenarios/js/common.js).
constexpr std::uint32_t kMaxMessageBytes = 64 * 1024;
// Far above what lwload's window of messages can queue for one subscriber, so that nothing is ever dropped.
constexpr std::uint32_t kMaxBackpressureBytes = 1024 * 1024;
constexpr std::string_view kTopic = "fanout";

struct Role {
    bool subscriber = false;
};

// A thousand subscribers need more descriptors than a soft limit of 1024 allows: raise it to the hard limit, as
// Node does for itself at startup.
void raiseDescriptorLimit() {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) std::perror("setrlimit(RLIMIT_NOFILE)");
}

}  // namespace

int main(int argc, char** argv) {
    raiseDescriptorLimit();
    ScenarioArgs args = ScenarioArgs::parse(argc, argv);
    loopwire::App app(args.options);
    app.ws<Role>("/*",
                 {.compression = loopwire::DISABLED,
                  .maxPayloadLength = kMaxMessageBytes,
                  .maxBackpressure = kMaxBackpressureBytes,
                  .upgrade =
                      [](loopwire::HttpResponse* res, loopwire::HttpRequest* req, loopwire::WebSocketContext* context) {
                          const bool subscriber = req->getQuery("role") == "sub";
                          res->upgrade(Role{subscriber}, req->getHeader("sec-websocket-key"),
                                       req->getHeader("sec-websocket-protocol"),
                                       req->getHeader("sec-websocket-extensions"), context);
                      },
                  .open =
                      [](loopwire::WebSocket<Role>* ws) {
                          if (ws->getUserData()->subscriber) ws->subscribe(kTopic);
                      },
                  .message =
                      [&app](loopwire::WebSocket<Role>* ws, std::string_view message, loopwire::OpCode opCode) {
                          if (!ws->getUserData()->subscriber) app.publish(kTopic, message, opCode);
                      }})
        .listen(args.port, [&](loopwire::ListenSocket* socket) { ScenarioArgs::announce(socket, args.port); })
        .run();
}
