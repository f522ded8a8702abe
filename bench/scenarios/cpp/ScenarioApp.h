// The servers of scenarios that run both in cleartext and over TLS (http/headers and http/json-post-1kb, and their
// HTTP/2 twins h2c/* and h2/*): runScenarioApp adds the routes to an App, or, given --key and --cert, to an SSLApp,
// listens on --port and runs the loop. --http2 (ScenarioArgs) turns HTTP/2 on, by prior knowledge or ALPN.
#pragma once

#include "TlsScenarioArgs.h"

// addRoutes(app) is called with the App or the SSLApp. Returns main's exit status: 1 when the key or certificate
// cannot be loaded, 0 once the loop ends.
template <typename AddRoutes>
int runScenarioApp(int argc, char** argv, AddRoutes addRoutes) {
    const TlsScenarioArgs args = TlsScenarioArgs::parse(argc, argv, TlsScenarioArgs::Material::Optional);
    const auto serve = [&](auto& app) {
        addRoutes(app);
        app.listen(args.common.port,
                   [&](loopwire::ListenSocket* socket) { ScenarioArgs::announce(socket, args.common.port); })
            .run();
    };
    if (!args.tls()) {
        loopwire::App app(args.common.options);
        serve(app);
        return 0;
    }
    loopwire::SSLApp app(args.material(), args.common.options);
    if (args.refusedBy(app)) return 1;
    serve(app);
    return 0;
}
