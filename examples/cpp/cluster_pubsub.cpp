// Pub/sub across processes: the rooms of pubsub.cpp, with the App's pub/sub linked to a Redis server, so that every
// process started with the same --redis shares them. A text message sent on /room/<name> reaches everybody in
// that room on every process, prefixed with the sender's process-local number.
//   ./cluster_pubsub --port 3000 --redis redis://127.0.0.1:6379 &
//   ./cluster_pubsub --port 3001 --redis redis://127.0.0.1:6379 &
//   then websocat ws://127.0.0.1:3000/room/lobby and websocat ws://127.0.0.1:3001/room/lobby
// It prints "listening on <port>", then on stderr "pub/sub ready" once linked, and what goes wrong with the link.
#include "ExampleArgs.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace {

struct Member {
    std::string room;  // "room/<name>": the topic, which is the channel "loopwire:room/<name>" in Redis
    std::uint64_t number = 0;
};

constexpr std::size_t kMaxRoomNameBytes = 64;

void reportLink(const loopwire::PubSubEvent& event) {
    if (event.kind == loopwire::PubSubEventKind::Ready) {
        std::fprintf(stderr, "pub/sub ready\n");
        return;
    }
    std::fprintf(stderr, "pub/sub: %.*s (%.*s)\n", static_cast<int>(event.message.size()), event.message.data(),
                 static_cast<int>(event.code.size()), event.code.data());
}

}  // namespace

int main(int argc, char** argv) {
    ExampleArgs args = ExampleArgs::parse(argc, argv);
    loopwire::App app(args.options);
    std::uint64_t members = 0;
    app.ws<Member>(
        "/room/:name",
        {.maxPayloadLength = 4096,
         .upgrade =
             [&members](loopwire::HttpResponse* res, loopwire::HttpRequest* req, loopwire::WebSocketContext* context) {
                 std::string_view name = req->getParameter("name");
                 if (name.empty() || name.size() > kMaxRoomNameBytes) {
                     res->writeStatus("400 Bad Request")->end("a room name has 1 to 64 characters");
                     return;
                 }
                 res->upgrade(Member{"room/" + std::string(name), ++members}, req->getHeader("sec-websocket-key"),
                              req->getHeader("sec-websocket-protocol"), req->getHeader("sec-websocket-extensions"),
                              context);
             },
         .open = [](loopwire::WebSocket<Member>* ws) { ws->subscribe(ws->getUserData()->room); },
         .message =
             [&app](loopwire::WebSocket<Member>* ws, std::string_view message, loopwire::OpCode) {
                 const Member& member = *ws->getUserData();
                 std::string line = "#" + std::to_string(member.number) + ": " + std::string(message);
                 // Every member of the room, here and on the other processes, the sender included.
                 app.publish(member.room, line, loopwire::OpCode::Text);
             }});
    loopwire::PubSubOptions pubsub;
    pubsub.url = args.redisUrl;
    std::string error;
    if (!app.tryConnectPubSub(pubsub, reportLink, error)) {
        std::fprintf(stderr, "--redis %s: %s\n", args.redisUrl, error.c_str());
        return 2;
    }
    app.listen(args.port, [&](loopwire::ListenSocket* socket) { ExampleArgs::announce(socket, args.port); }).run();
}
