// Reading a request body as it streams in with onData, with onAborted for a client that goes away.
#include "ExampleArgs.h"

#include <memory>
#include <string>

int main(int argc, char** argv) {
    ExampleArgs args = ExampleArgs::parse(argc, argv);
    loopwire::App app(args.options);
    app.post("/upload",
             [](loopwire::HttpResponse* res, loopwire::HttpRequest*) {
                 // The body may arrive in many pieces: collect them until isLast. The buffer lives as long as the
                 // request; the two callbacks share it.
                 auto* body = new std::string;
                 res->onAborted([body] { delete body; });
                 res->onData([res, body](std::string_view chunk, bool isLast) {
                     body->append(chunk);
                     if (!isLast) return;
                     std::string answer = "received " + std::to_string(body->size()) + " bytes";
                     delete body;
                     res->end(answer);
                 });
             })
        .listen(args.port, [&](loopwire::ListenSocket* socket) { ExampleArgs::announce(socket, args.port); })
        .run();
}
