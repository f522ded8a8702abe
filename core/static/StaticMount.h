// StaticMount: one App::serveStatic(urlPrefix, rootDirectory, options): the route handler that maps
// urlPrefix/relPath to rootDirectory/relPath, and what it keeps: the root, its media types, its cache.
//
// serve() runs in the core for every GET and HEAD under the prefix, with no call into JavaScript: the path is
// decoded and checked once (RequestPath), looked up in the cache, checked against the file at most once per
// kRevalidateIntervalMs, loaded on a miss, and answered by FileResponder. A path that is not safe gets 400 or 404;
// one with no file 404, or, with options.fallthrough, goes on to the next route. Other methods get 405 with Allow
// (or go on, with fallthrough). Allocates only when it loads or reloads an entry. Loop thread only.
#pragma once

#include "CompressionWorker.h"
#include "FileCache.h"
#include "FileResponder.h"
#include "FileRoot.h"
#include "static/MimeTypes.h"

#include <loopwire/StaticFileOptions.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace loopwire {
class HttpRequest;
class HttpResponse;
class Loop;
}  // namespace loopwire

namespace loopwire::files {

class StaticMount {
public:
    // A cached entry is compared with its file again once it is this old: a change to a file is served within
    // this long (docs/static-files.md). 1 s, as h2o's file cache and nginx's open_file_cache_valid set short.
    static constexpr std::uint64_t kRevalidateIntervalMs = 1000;
    // Files up to this size are kept in memory (within the cache's bound); larger ones are read per response.
    static constexpr std::uint64_t kMaxCachedFileBytes = 256 * 1024;
    // Times a file that changed while it was being read into memory is read again before it is streamed instead.
    static constexpr int kMaxLoadAttempts = 3;
    // Smaller files are not compressed (options.compress): the coding's framing would eat most of the gain.
    static constexpr std::uint64_t kMinCompressedFileBytes = 256;
    // Larger files are not compressed either (they stream plain unless a precompressed sibling is there): past it
    // even brotli 9 and zstd 19 take seconds of the worker's time per file (docs/decisions/compression.md). A file
    // between the cache's limit and this one is read by the worker, and only its variants are kept in memory.
    static constexpr std::uint64_t kMaxCompressedFileBytes = 4 * 1024 * 1024;

    StaticMount(Loop& loop, BodyStreamPool& streams, CompressionWorker& compressor, std::string_view boundary,
                std::string prefix, FileRoot root, const StaticFileOptions& options, MimeTypes types);

    // The GET route's handler (HEAD requests come to it too).
    void serve(HttpResponse& response, HttpRequest& request);
    // The handler of the other methods: 405 with Allow, or, with fallthrough, the next route. GET and HEAD, which
    // reach it only after serve() yielded them, are yielded again.
    void serveOtherMethod(HttpResponse& response, HttpRequest& request);
    // HttpResponse::sendFile: answers with the file at path (beneath the root, not percent-encoded; a leading '/'
    // reads the same), by the same rules as serve(); a path that names no file (a folder, a dotfile under
    // Dotfiles::Deny, a ".." segment) gets 404, never a redirect or a fallthrough.
    // headers: fields a 200, 206 or 304 carries besides the file's own.
    void sendFile(HttpResponse& response, const RequestFields& fields, std::string_view path,
                  std::span<const HeaderField> headers);

    // A variant the compression worker made (on the loop thread): added to its entry, and charged to the cache, when
    // the entry is still the one cached for its path and no sibling file provides that coding meanwhile.
    void addCompressedVariant(CompressionWorker::Result& result);

    // Reads the whole file fd (size bytes) into body; false when it could not, or it is not that size (any thread).
    static bool readWhole(int fd, std::uint64_t size, std::string& body);

    const std::string& prefix() const noexcept { return prefix_; }
    FileCache& cache() noexcept { return cache_; }

private:
    enum class Found : std::uint8_t { Nothing, File, Directory };
    // The fresh entry for path (decoded, relative), loaded or revalidated as needed; sets *fd to an open descriptor
    // of the file when one was opened for the check (the caller owns it) and wantDescriptor is set.
    std::shared_ptr<CachedFile> lookUp(std::string_view path, bool wantDescriptor, int* fd);
    std::shared_ptr<CachedFile> load(std::string_view path, int fd, const struct stat& status);
    // Reads the whole file fd (identity.size bytes) into body, again while it changes under the read (identity then
    // follows it), at most kMaxLoadAttempts times and while it fits kMaxCachedFileBytes. False (body empty) when it
    // could not be read whole and stable.
    static bool readStable(int fd, FileIdentity& identity, std::string& body);
    // The identity of path + suffix beneath the root when it is a regular file (all zero otherwise); with fd, its
    // open descriptor too (the caller's).
    FileIdentity siblingIdentity(std::string_view path, std::string_view suffix, int* fd) const;
    // Looks for entry's precompressed siblings and keeps those that fit in memory.
    void loadPrecompressed(CachedFile& entry);
    // Schedules the codings entry lacks with the compression worker (options.compress); fd: the file, open, for
    // an entry whose bytes are not in memory (the worker reads a duplicate of it).
    void scheduleCompression(const std::shared_ptr<CachedFile>& entry, int fd);
    // Whether every sibling looked for is as it was (none appeared, changed or went).
    bool precompressedUnchanged(const CachedFile& entry) const;
    void miss(HttpResponse& response, HttpRequest& request);
    void redirectToDirectory(HttpResponse& response, std::string_view url, std::string_view query);

    Loop& loop_;
    CompressionWorker& compressor_;
    std::string prefix_;
    FileRoot root_;
    StaticFileOptions options_;
    MimeTypes types_;
    FileCache cache_;
    FileResponder responder_;
    std::string cacheControl_;
    ResponsePolicy policy_;
};

}  // namespace loopwire::files
