// Routes: static paths, ":name" parameters, a "*" wildcard, the query string, yielding to the next route,
// and a custom 404.
#include "ExampleArgs.h"

#include <string>

int main(int argc, char** argv) {
    ExampleArgs args = ExampleArgs::parse(argc, argv);
    loopwire::App app(args.options);
    app.get("/users/:id",
            [](loopwire::HttpResponse* res, loopwire::HttpRequest* req) {
                std::string body = "user " + std::string(req->getParameter("id"));
                res->writeHeader("Content-Type", "text/plain")->end(body);
            })
        .get("/users/:id/posts/:post",
             [](loopwire::HttpResponse* res, loopwire::HttpRequest* req) {
                 std::string body =
                     "post " + std::string(req->getParameter(1)) + " of user " + std::string(req->getParameter(0));
                 res->end(body);
             })
        .get("/search",
             [](loopwire::HttpResponse* res, loopwire::HttpRequest* req) {
                 res->end("searching for " + std::string(req->getQuery("q")));
             })
        .get("/admin/*",
             [](loopwire::HttpResponse*, loopwire::HttpRequest* req) {
                 // Not ours to answer: let the next matching route (the catch-all) have it.
                 req->setYield(true);
             })
        .post("/echo-method",
              [](loopwire::HttpResponse* res, loopwire::HttpRequest* req) { res->end(req->getMethod()); })
        .any("/*",
             [](loopwire::HttpResponse* res, loopwire::HttpRequest* req) {
                 res->writeStatus("404 Not Found")->end("no route for " + std::string(req->getUrl()));
             })
        .listen(args.port, [&](loopwire::ListenSocket* socket) { ExampleArgs::announce(socket, args.port); })
        .run();
}
