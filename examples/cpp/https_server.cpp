// Hello world over HTTPS: an SSLApp with a key and a certificate chain from PEM files.
//
//     openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost
//             -keyout key.pem -out cert.pem
//     ./https_server --key key.pem --cert cert.pem --port 3443
//     curl -k https://localhost:3443/
#include "ExampleArgs.h"

int main(int argc, char** argv) {
    ExampleArgs args = ExampleArgs::parse(argc, argv);
    loopwire::SSLApp app({.key_file_name = args.keyFile, .cert_file_name = args.certFile}, args.options);
    if (app.constructorFailed()) {
        // The message names the option at fault: a missing file, a wrong passphrase, a key that does not match.
        std::fprintf(stderr, "%s\n", app.constructionError().c_str());
        return 1;
    }
    app.get("/*", [](loopwire::HttpResponse* res, loopwire::HttpRequest*) { res->end("Hello over TLS!"); })
        .listen(args.port, [&](loopwire::ListenSocket* socket) { ExampleArgs::announce(socket, args.port); })
        .run();
}
