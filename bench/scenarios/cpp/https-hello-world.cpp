// Scenario https/hello-world: http/hello-world over TLS. Every GET is answered with "Hello world!" by an SSLApp
// whose key and certificate are the files given with --key and --cert.
#include "TlsScenarioArgs.h"

int main(int argc, char** argv) {
    const TlsScenarioArgs args = TlsScenarioArgs::parse(argc, argv);
    loopwire::SSLApp app(args.material(), args.common.options);
    if (args.refusedBy(app)) return 1;
    app.get("/*", [](loopwire::HttpResponse* res, loopwire::HttpRequest*) { res->end("Hello world!"); })
        .listen(args.common.port,
                [&](loopwire::ListenSocket* socket) { ScenarioArgs::announce(socket, args.common.port); })
        .run();
}
