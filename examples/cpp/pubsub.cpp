// Pub/sub over WebSockets: a client connects to /room/<name> and every text message it sends reaches everybody in
// that room, itself included, prefixed with its number. The upgrade handler picks the room from the URL and puts
// it, with a client number, in each socket's user data.
//   ./pubsub --port 3000       then, e.g., websocat ws://127.0.0.1:3000/room/lobby
#include "ExampleArgs.h"

#include <cstdint>
#include <string>

namespace {

struct Member {
    std::string room;  // "room/<name>": the topic
    std::uint64_t number = 0;
};

// Room names are what the route's parameter holds: at most this long.
constexpr std::size_t kMaxRoomNameBytes = 64;

}  // namespace

int main(int argc, char** argv) {
    ExampleArgs args = ExampleArgs::parse(argc, argv);
    loopwire::App app(args.options);
    std::uint64_t members = 0;
    app.ws<Member>("/room/:name",
                   {.maxPayloadLength = 4096,
                    .upgrade =
                        [&members](loopwire::HttpResponse* res, loopwire::HttpRequest* req,
                                   loopwire::WebSocketContext* context) {
                            std::string_view name = req->getParameter("name");
                            if (name.empty() || name.size() > kMaxRoomNameBytes) {
                                res->writeStatus("400 Bad Request")->end("a room name has 1 to 64 characters");
                                return;
                            }
                            res->upgrade(Member{"room/" + std::string(name), ++members},
                                         req->getHeader("sec-websocket-key"), req->getHeader("sec-websocket-protocol"),
                                         req->getHeader("sec-websocket-extensions"), context);
                        },
                    .open = [](loopwire::WebSocket<Member>* ws) { ws->subscribe(ws->getUserData()->room); },
                    .message =
                        [&app](loopwire::WebSocket<Member>* ws, std::string_view message, loopwire::OpCode) {
                            const Member& member = *ws->getUserData();
                            std::string line = "#" + std::to_string(member.number) + ": " + std::string(message);
                            // app.publish reaches the sender too (ws->publish would skip it).
                            app.publish(member.room, line, loopwire::OpCode::Text);
                        }})
        .listen(args.port, [&](loopwire::ListenSocket* socket) { ExampleArgs::announce(socket, args.port); })
        .run();
}
