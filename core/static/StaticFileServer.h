// StaticFileServer: the static-file side of one App: its mounts (App::serveStatic), the pool of body streams they
// share and the multipart boundary of its responses.
//
// Created by the first serveStatic() and owned by the HttpServer as its StaticFiles extension, so that it lives as
// long as the routes that point at its mounts. It owns no connection: a stream belongs to the response it sends,
// and closing the App aborts those responses, which ends their streams. Loop thread only.
#pragma once

#include "BodyStream.h"
#include "CompressionWorker.h"
#include "StaticMount.h"
#include "http/HttpServer.h"

#include <loopwire/StaticFileOptions.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace loopwire::files {

class StaticFileServer final : public ServerExtension {
public:
    static constexpr ServerExtensionKind kKind = ServerExtensionKind::StaticFiles;

    explicit StaticFileServer(HttpServer& http);
    ~StaticFileServer() override;

    // The server of http, created on first use.
    static StaticFileServer& of(HttpServer& http);

    // Different SendFileOptions (root and serving options; requestHeaders aside) one App keeps a mount for: a bound,
    // so that options made per call (a root per user) cannot grow the server without end.
    static constexpr std::size_t kMaxSendFileSetups = 16;

    // Adds a mount (its routes are the caller's to add); returns it. Allocates (set-up time). Returns null, with
    // error saying why, when the root cannot be opened or options are not usable.
    StaticMount* addMount(std::string prefix, std::string_view rootDirectory, const StaticFileOptions& options,
                          std::string& error);

    // HttpResponse::sendFile: answers response (request: its request while its handler runs, else null) with the
    // file at path, through the mount kept for options (made on first use). False, with error saying why and
    // nothing written, when path is relative without options.root or the options are not usable.
    bool sendFile(HttpResponse& response, HttpRequest* request, bool head, std::string_view path,
                  const SendFileOptions& options, std::string& error);

    void close() noexcept override {}
    std::size_t connectionCount() const noexcept override { return 0; }

    BodyStreamPool& streams() noexcept { return streams_; }
    std::string_view boundary() const noexcept { return {boundary_, BodyStream::kBoundaryBytes}; }

private:
    // A mount of sendFile() and the options it was made for.
    struct SendFileSetup {
        std::string root;
        FileServingOptions serving;
        StaticMount* mount = nullptr;
    };
    StaticMount* sendFileMount(const SendFileOptions& options, std::string& error);
    StaticMount* makeMount(std::string prefix, FileRoot root, const StaticFileOptions& options, std::string& error);

    HttpServer& http_;
    BodyStreamPool streams_;
    std::vector<std::unique_ptr<StaticMount>> mounts_;
    std::vector<SendFileSetup> sendFileSetups_;
    // Declared after the mounts: destroyed first, so that no result reaches a mount that is gone.
    CompressionWorker compressor_;
    char boundary_[BodyStream::kBoundaryBytes];
};

}  // namespace loopwire::files
