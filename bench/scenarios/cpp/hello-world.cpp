// Scenario http/hello-world: every GET is answered with "Hello world!" (the same server as
// examples/cpp/hello_world.cpp, kept here so that the A/B runner measures the one it builds).
#include "ScenarioArgs.h"

int main(int argc, char** argv) {
    ScenarioArgs args = ScenarioArgs::parse(argc, argv);
    loopwire::App app(args.options);
    app.get("/*", [](loopwire::HttpResponse* res, loopwire::HttpRequest*) { res->end("Hello world!"); })
        .listen(args.port, [&](loopwire::ListenSocket* socket) { ScenarioArgs::announce(socket, args.port); })
        .run();
}
