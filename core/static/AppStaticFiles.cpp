// App's static-file members, here with the static layer (as AppWebSockets.cpp is with the WebSocket one), so that
// http/ does not depend on static/.
#include "StaticFileServer.h"

#include <loopwire/App.h>

#include <cstdio>

namespace loopwire {

namespace {

// A prefix is a plain path: '/' and segments without pattern syntax (":name", "*") or a query. Returns it without
// its trailing slashes ("/" becomes ""), or false.
bool normalisePrefix(std::string_view prefix, std::string& normalised) {
    if (prefix.empty() || prefix[0] != '/') return false;
    for (char c : prefix) {
        if (c == '*' || c == ':' || c == '?' || c == '#' || static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
            return false;
        }
    }
    while (!prefix.empty() && prefix.back() == '/')
        prefix.remove_suffix(1);
    normalised.assign(prefix);
    return true;
}

}  // namespace

bool App::tryServeStatic(std::string_view urlPrefix, std::string_view rootDirectory, const StaticFileOptions& options,
                         std::string& error) {
    if (server_->isDispatching()) {
        error = "static: routes cannot be added while a request is being handled";
        return false;
    }
    std::string prefix;
    if (!normalisePrefix(urlPrefix, prefix)) {
        error = "static: the URL prefix must be a path starting with '/', without ':', '*', '?' or '#'";
        return false;
    }
    files::StaticFileServer& files = files::StaticFileServer::of(*server_);
    files::StaticMount* mount = files.addMount(prefix, rootDirectory, options, error);
    if (mount == nullptr) return false;
    auto serve = [mount](HttpResponse* response, HttpRequest* request) { mount->serve(*response, *request); };
    // GET (and HEAD, which the server gives to GET routes) are served; the other methods reach the any route,
    // which answers 405, or yields GET and HEAD, for which the GET route has already run and yielded (fallthrough).
    auto others = [mount](HttpResponse* response, HttpRequest* request) {
        mount->serveOtherMethod(*response, *request);
    };
    // Leading routes: an app route of the same pattern added before or after (its get("/*"), an SPA's fallback)
    // runs when the mount yields a miss, instead of replacing the mount or being replaced by it.
    const std::string wildcard = prefix + "/*";
    // The prefix was checked above, so the patterns are well formed and these cannot fail.
    server_->addLeadingRoute("GET", wildcard, serve);
    server_->addLeadingRoute("*", wildcard, others);
    if (!prefix.empty()) {
        server_->addLeadingRoute("GET", prefix, serve);
        server_->addLeadingRoute("*", prefix, others);
    }
    return true;
}

App& App::serveStatic(std::string_view urlPrefix, std::string_view rootDirectory, const StaticFileOptions& options) {
    std::string error;
    if (!tryServeStatic(urlPrefix, rootDirectory, options, error))
        std::fprintf(stderr, "loopwire: %s\n", error.c_str());
    return *this;
}

}  // namespace loopwire
