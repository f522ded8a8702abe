// The smallest loopwire server: answers every GET with "Hello world!".
#include "ExampleArgs.h"

int main(int argc, char** argv) {
    ExampleArgs args = ExampleArgs::parse(argc, argv);
    loopwire::App app(args.options);
    app.get("/*", [](loopwire::HttpResponse* res, loopwire::HttpRequest*) { res->end("Hello world!"); })
        .listen(args.port, [&](loopwire::ListenSocket* socket) { ExampleArgs::announce(socket, args.port); })
        .run();
}
