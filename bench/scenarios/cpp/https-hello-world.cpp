// Scenario https/hello-world: http/hello-world over TLS. Every GET is answered with "Hello world!" by an SSLApp
// whose key and certificate are the files given with --key and --cert.
//
// Not built yet: its line in CMakeLists.txt waits for loopwire::SSLApp (the runner skips a server that was not
// built).
#include "TlsScenarioArgs.h"

int main(int argc, char** argv) {
    const TlsScenarioArgs args = TlsScenarioArgs::parse(argc, argv);
    loopwire::SSLApp app(loopwire::SocketContextOptions{.key_file_name = args.keyFile, .cert_file_name = args.certFile},
                         args.common.options);
    if (app.constructorFailed()) {
        std::fprintf(stderr, "cannot load the key %s or the certificate %s\n", args.keyFile.c_str(),
                     args.certFile.c_str());
        return 1;
    }
    app.get("/*", [](loopwire::HttpResponse* res, loopwire::HttpRequest*) { res->end("Hello world!"); })
        .listen(args.common.port,
                [&](loopwire::ListenSocket* socket) { ScenarioArgs::announce(socket, args.common.port); })
        .run();
}
