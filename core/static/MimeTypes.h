// MimeTypes: the Content-Type of a file from its name's extension, and whether it is worth compressing.
//
// Pure: it reads names, never a file's content. The built-in table holds the common web types (html, css, js, json,
// svg, png, jpg, webp, avif, woff2, wasm, pdf, zip, mp4...); the text ones (text/*) carry "; charset=utf-8", as
// nginx's charset_types and express do.
//
// Set-up, then lookups: add() is called while the server is set up (it allocates) and never after the first lookup.
// forPath() and forExtension() allocate nothing, run in a bounded time (a binary search of the additions, then of
// the built-in table, which is sorted at compile time), and, being const, may run on several threads at once. What
// they return points into this object or the built-in table: valid while the object lives and no add() runs.
//
// The extension of a path is what follows the last '.' of its last segment, compared case-insensitively (ASCII). A
// name with no '.', whose only '.' is its first byte (".bashrc", as Node's path.extname reads it) or which ends
// with '.', has none; a name with none, an extension longer than kMaxExtensionBytes or one not in the table is
// kDefaultType.
//
// Compressible: text/*; any type whose subtype ends in "+json" or "+xml" (image/svg+xml, application/ld+json,
// application/manifest+json...); application/json, javascript, ecmascript, x-javascript, xml, yaml and wasm; the
// fonts that are not compressed already (font/ttf, font/otf, application/vnd.ms-fontobject); and the image formats
// that are not (image/bmp, image/x-icon, image/vnd.microsoft.icon). Not: other images, font/woff and woff2,
// archives, audio, video, pdf and kDefaultType, whose bytes are compressed already or unknown. The rule reads the
// type's essence (before any ';') in any case; the built-in table and add() both apply it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace loopwire::files {

struct MediaType {
    std::string_view contentType;  // a Content-Type field value, parameters included
    bool compressible = false;
};

class MimeTypes {
public:
    // The type of a file without an extension or with one the table lacks: opaque bytes, which browsers download.
    static constexpr std::string_view kDefaultType = "application/octet-stream";
    // Bytes of an extension that is looked up or added; longer ones are never in the table. The longest built-in
    // one, "webmanifest", has 11.
    static constexpr std::size_t kMaxExtensionBytes = 16;
    // Bytes of a Content-Type that add() takes, so that what a lookup returns fits a fixed header buffer (a
    // multipart/byteranges part's header holds one). The longest built-in one has 29.
    static constexpr std::size_t kMaxTypeBytes = 256;

    // The type of the file at path (any path: only its last segment is read).
    MediaType forPath(std::string_view path) const noexcept;
    // The type of an extension given without its dot, in any case.
    MediaType forExtension(std::string_view extension) const noexcept;

    // Serves files with this extension (one leading '.' allowed, any case) as contentType, replacing a built-in or
    // an earlier entry; compressible follows the rule above. Returns false, changing nothing, when the extension is
    // empty, longer than kMaxExtensionBytes or holds a byte other than visible ASCII, a '.', '/' or '\', or when
    // contentType is longer than kMaxTypeBytes or is not a media type as RFC 9110 §8.3.1 writes one: type "/"
    // subtype, then parameters "; name=value" (value a token or a quoted string), so no CR, LF, NUL or other
    // control byte. Allocates.
    bool add(std::string_view extension, std::string_view contentType);

    // The extension of path, without its dot, as the class comment defines it; empty when there is none.
    static std::string_view extensionOf(std::string_view path) noexcept;
    // The compressible rule above, for any Content-Type value.
    static bool isCompressible(std::string_view contentType) noexcept;

private:
    struct Added {
        std::string extension;  // lower case, without its dot
        std::string contentType;
        bool compressible = false;
    };

    std::vector<Added> added_;  // sorted by extension
};

}  // namespace loopwire::files
