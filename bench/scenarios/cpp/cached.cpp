// Scenario http/cached: GET /cached answers with a prepared ~1 KB page (CachedPage.h) and a Content-Type; nothing
// is built per request.
#include "CachedPage.h"
#include "ScenarioArgs.h"

#include <string>

int main(int argc, char** argv) {
    ScenarioArgs args = ScenarioArgs::parse(argc, argv);
    const std::string page = buildCachedPage();
    loopwire::App app(args.options);
    app.get("/cached",
            [&page](loopwire::HttpResponse* res, loopwire::HttpRequest*) {
                res->writeHeader("Content-Type", "text/plain; charset=utf-8")->end(page);
            })
        .listen(args.port, [&](loopwire::ListenSocket* socket) { ScenarioArgs::announce(socket, args.port); })
        .run();
}
