#include "StaticFileServer.h"

#include <cerrno>
#include <cstring>
#include <random>

namespace loopwire::files {

StaticFileServer::StaticFileServer(HttpServer& http) : http_(http), compressor_(http.loop()) {
    // A boundary must not occur in the parts it separates (RFC 2046 §5.1.1). Random per server, so that no file can
    // be made to hold the delimiter of responses it will be part of, short of reading one first.
    std::random_device source;
    std::uniform_int_distribution<int> digit(0, 35);
    for (char& c : boundary_) {
        const int value = digit(source);
        c = static_cast<char>(value < 10 ? '0' + value : 'a' + (value - 10));
    }
}

StaticFileServer::~StaticFileServer() = default;

StaticFileServer& StaticFileServer::of(HttpServer& http) {
    if (http.extension(ServerExtensionKind::StaticFiles) == nullptr) {
        http.setExtension(ServerExtensionKind::StaticFiles, std::make_unique<StaticFileServer>(http));
    }
    return static_cast<StaticFileServer&>(*http.extension(ServerExtensionKind::StaticFiles));
}

StaticMount* StaticFileServer::addMount(std::string prefix, std::string_view rootDirectory,
                                        const StaticFileOptions& options, std::string& error) {
    FileRoot root;
    if (!root.openDirectory(rootDirectory)) {
        error = "static: cannot open the folder \"" + std::string(rootDirectory) + "\": " + std::strerror(errno);
        return nullptr;
    }
    MimeTypes types;
    for (const auto& [extension, type] : options.mimeTypes) {
        if (!types.add(extension, type)) {
            // The type is not repeated: it may hold the line breaks it is refused for.
            error = "static: mimeTypes: \"" + extension +
                    "\" and its type must be an extension and a media type (type/subtype; parameters), without "
                    "control characters";
            return nullptr;
        }
    }
    if (options.index.find('/') != std::string::npos || options.index == "." || options.index == "..") {
        error = "static: index must be a file name, without '/'";
        return nullptr;
    }
    mounts_.push_back(std::make_unique<StaticMount>(http_.loop(), streams_, compressor_, boundary(), std::move(prefix),
                                                    std::move(root), options, std::move(types)));
    return mounts_.back().get();
}

}  // namespace loopwire::files
