// StaticFileOptions: how App::serveStatic serves a folder (app.static in JavaScript). docs/static-files.md has the
// whole behaviour; each default below is the safe and usual one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loopwire {

// Files and folders whose name starts with '.' (.env, .git/): what a request for one gets. A first segment
// ".well-known" (certificate challenges, RFC 8615) is always served.
enum class DotfilePolicy : std::uint8_t {
    Deny,   // 404, as if they did not exist (the default)
    Allow,  // served like any other file
};

// How files are served: what a static mount (StaticFileOptions) and HttpResponse::sendFile (SendFileOptions) share.
struct FileServingOptions {
    DotfilePolicy dotfiles = DotfilePolicy::Deny;
    // Cache-Control: public, max-age=<maxAgeSeconds>[, immutable] when either is set; none otherwise.
    std::uint32_t maxAgeSeconds = 0;
    bool immutable = false;
    // Serve file.br, file.zst or file.gz beside a file, when there is one and the request accepts its coding
    // (Content-Encoding, Vary: Accept-Encoding, the variant's own ETag). Variants up to 256 KiB are kept in memory;
    // larger ones are streamed from their file, as large files are. A Range request always gets the plain file.
    bool precompressed = true;
    // Compress files of compressible types (text, JSON, JavaScript, SVG...; see docs/static-files.md) of 256 bytes to
    // 4 MiB, once, in the background, with brotli, zstd and gzip at their highest levels, for the codings no
    // precompressed variant provides; until a variant is ready the plain file is served. Variants are kept in memory
    // (within cacheBytes), also for files too large to be cached themselves.
    bool compress = true;
    // Files larger than the cache go from the page cache to the socket with sendfile(2) on plain TCP (no copy). The
    // kernel reads those pages as it transmits them, so a file rewritten in place (not replaced by a rename) while a
    // client downloads it can reach that client with bytes of both versions. false reads and copies them instead, as
    // over TLS, and such a rewrite then cuts the download short.
    bool sendfile = true;
    // Send the ETag and Last-Modified validators (and answer the conditional requests that use them).
    bool etag = true;
    bool lastModified = true;
    // Bytes of files (and their compressed variants) kept in memory; 0 keeps none.
    std::size_t cacheBytes = 64 * 1024 * 1024;
    // Media types by extension ("md", "text/markdown; charset=utf-8") added to, or replacing, the built-in ones.
    std::vector<std::pair<std::string, std::string>> mimeTypes;

    bool operator==(const FileServingOptions&) const = default;
};

// How App::serveStatic serves a folder.
struct StaticFileOptions : FileServingOptions {
    // Serves a folder's index file for a request that names the folder with a trailing slash (and answers 301 to
    // the slashed URL without it); empty: folders are never served. Never a listing.
    std::string index = "index.html";
    // A request this mount has no file for goes on to the next matching route (a single-page app's fallback, a
    // custom 404) instead of getting 404 here.
    bool fallthrough = false;
};

// A header field by name and value, for SendFileOptions' requestHeaders and headers.
using HeaderField = std::pair<std::string_view, std::string_view>;

// How HttpResponse::sendFile answers with one file (res.sendFile in JavaScript). Calls with the same root and serving
// options share one cache (and its compressed variants); at most StaticFileServer::kMaxSendFileSetups different ones
// per App. dotfiles applies to the segments of the path (beneath root when there is one).
struct SendFileOptions : FileServingOptions {
    // The folder path is relative to, never left (as a static mount's root: links out of it are refused). Empty:
    // path must be absolute, and is opened as given (links followed).
    std::string root;
    // The fields the answer depends on (If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since, If-Range,
    // Range, Accept-Encoding), copied by a caller that sends the file after its handler returned, when the request
    // is gone. Read instead of the request's own when not empty; other names are ignored. Views: valid for the call.
    std::span<const HeaderField> requestHeaders;
    // Fields the answer carries besides its own (Content-Disposition, a Cache-Control of its own): written after the
    // status of a 200, 206 or 304, not of an error. The way to add fields: one written before sendFile (writeHeader)
    // would fix the status at 200, so sendFile refuses to run after one. Views: valid for the call.
    std::span<const HeaderField> headers;
};

}  // namespace loopwire
