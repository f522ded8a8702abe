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

StaticFileServer& StaticFileServer::of(HttpServer& http) { return http.installedExtension<StaticFileServer>(http); }

StaticMount* StaticFileServer::addMount(std::string prefix, std::string_view rootDirectory,
                                        const StaticFileOptions& options, std::string& error) {
    FileRoot root;
    if (!root.openDirectory(rootDirectory)) {
        error = "static: cannot open the folder \"" + std::string(rootDirectory) + "\": " + std::strerror(errno);
        return nullptr;
    }
    if (options.index.find('/') != std::string::npos || options.index == "." || options.index == "..") {
        error = "static: index must be a file name, without '/'";
        return nullptr;
    }
    StaticMount* mount = makeMount(std::move(prefix), std::move(root), options, error);
    if (mount == nullptr) error.insert(0, "static: ");
    return mount;
}

StaticMount* StaticFileServer::makeMount(std::string prefix, FileRoot root, const StaticFileOptions& options,
                                         std::string& error) {
    MimeTypes types;
    for (const auto& [extension, type] : options.mimeTypes) {
        if (!types.add(extension, type)) {
            // The type is not repeated: it may hold the line breaks it is refused for.
            error = "mimeTypes: \"" + extension +
                    "\" and its type must be an extension and a media type (type/subtype; parameters), without "
                    "control characters";
            return nullptr;
        }
    }
    mounts_.push_back(std::make_unique<StaticMount>(http_.loop(), streams_, compressor_, boundary(), std::move(prefix),
                                                    std::move(root), options, std::move(types)));
    return mounts_.back().get();
}

StaticMount* StaticFileServer::sendFileMount(const SendFileOptions& options, std::string& error) {
    // Alike when the root and the serving options are (requestHeaders are per call).
    const auto& serving = static_cast<const FileServingOptions&>(options);
    for (const SendFileSetup& setup : sendFileSetups_) {
        if (setup.root == options.root && setup.serving == serving) return setup.mount;
    }
    if (sendFileSetups_.size() == kMaxSendFileSetups) {
        error = "sendFile: more than " + std::to_string(kMaxSendFileSetups) +
                " different roots and options in one App: reuse one options object per kind of file";
        return nullptr;
    }
    FileRoot root;
    const bool rooted = !options.root.empty();
    // Without a root, paths are absolute and the application's own: opened beneath "/" as open(2) would.
    if (!root.openDirectory(rooted ? std::string_view(options.root) : std::string_view("/"),
                            rooted ? FileRoot::Resolution::Automatic : FileRoot::Resolution::FollowLinks)) {
        error = "sendFile: cannot open the root folder \"" + options.root + "\": " + std::strerror(errno);
        return nullptr;
    }
    StaticFileOptions mountOptions;
    static_cast<FileServingOptions&>(mountOptions) = serving;
    mountOptions.index.clear();
    StaticMount* mount = makeMount({}, std::move(root), mountOptions, error);
    if (mount == nullptr) {
        error.insert(0, "sendFile: ");
        return nullptr;
    }
    sendFileSetups_.push_back(SendFileSetup{options.root, serving, mount});
    return mount;
}

bool StaticFileServer::sendFile(HttpResponse& response, HttpRequest* request, bool head, std::string_view path,
                                const SendFileOptions& options, std::string& error) {
    if (options.root.empty() && (path.empty() || path.front() != '/')) {
        error = "sendFile: path must be absolute unless options.root is given";
        return false;
    }
    StaticMount* mount = sendFileMount(options, error);
    if (mount == nullptr) return false;
    const RequestFields fields = request != nullptr && options.requestHeaders.empty()
                                     ? RequestFields::of(*request)
                                     : RequestFields::of(options.requestHeaders, head);
    mount->sendFile(response, fields, path, options.headers);
    return true;
}

}  // namespace loopwire::files
