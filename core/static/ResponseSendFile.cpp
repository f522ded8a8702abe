// HttpResponse::sendFile, here with the static layer (as App::serveStatic is), so that http/ does not depend on
// static/.
#include "StaticFileServer.h"
#include "http/ResponseStream.h"

#include <loopwire/HttpResponse.h>
#include <loopwire/StaticFileOptions.h>

namespace loopwire {

bool HttpResponse::sendFile(std::string_view path) { return sendFile(path, SendFileOptions{}); }

bool HttpResponse::sendFile(std::string_view path, const SendFileOptions& options, std::string* error) {
    HttpServer& http = any_response::server(*this);
    std::string reason;
    if (any_response::hasWrittenStatus(*this)) {
        // The answer's status is sendFile's to choose (304, 206, 404...): one written already would stand.
        if (error != nullptr) {
            *error =
                "sendFile: a status was written already (by writeStatus, or by writeHeader, which writes 200 "
                "first): give the answer's own fields as options.headers";
        }
        return false;
    }
    // The request's fields are views into the bytes it arrived in: readable only while its handler runs.
    const bool answered = files::StaticFileServer::of(http).sendFile(
        *this, http.requestBeingHandled(*this), any_response::answersHead(*this), path, options, reason);
    if (!answered && error != nullptr) *error = std::move(reason);
    return answered;
}

}  // namespace loopwire
