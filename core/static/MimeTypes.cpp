#include "static/MimeTypes.h"

#include <algorithm>
#include <array>
#include <utility>

namespace loopwire::files {

namespace {

constexpr char toLower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

constexpr bool equalsIgnoringCase(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (toLower(a[i]) != toLower(b[i])) return false;
    }
    return true;
}

constexpr bool endsWithIgnoringCase(std::string_view text, std::string_view suffix) noexcept {
    return text.size() >= suffix.size() && equalsIgnoringCase(text.substr(text.size() - suffix.size()), suffix);
}

// The rule the header states. constexpr, so that the built-in table's flags come from it at compile time and cannot
// disagree with what add() derives.
constexpr bool compressibleType(std::string_view contentType) noexcept {
    std::string_view essence = contentType.substr(0, contentType.find(';'));
    while (!essence.empty() && (essence.back() == ' ' || essence.back() == '\t'))
        essence.remove_suffix(1);
    const std::size_t slash = essence.find('/');
    if (slash == std::string_view::npos) return false;
    if (equalsIgnoringCase(essence.substr(0, slash), "text")) return true;
    if (endsWithIgnoringCase(essence, "+json") || endsWithIgnoringCase(essence, "+xml")) return true;
    constexpr std::string_view kListed[] = {
        "application/json",
        "application/javascript",
        "application/ecmascript",
        "application/x-javascript",
        "application/xml",
        "application/yaml",
        "application/wasm",
        "application/vnd.ms-fontobject",
        "font/ttf",
        "font/otf",
        "image/bmp",
        "image/x-icon",
        "image/vnd.microsoft.icon",
    };
    for (const std::string_view listed : kListed) {
        if (equalsIgnoringCase(essence, listed)) return true;
    }
    return false;
}

struct BuiltIn {
    std::string_view extension;
    std::string_view contentType;
    bool compressible;
};

constexpr BuiltIn entry(std::string_view extension, std::string_view contentType) noexcept {
    return {extension, contentType, compressibleType(contentType)};
}

constexpr std::string_view kHtml = "text/html; charset=utf-8";
constexpr std::string_view kJavaScript = "text/javascript; charset=utf-8";

// Sorted by extension (checked below), lower case. Types as IANA registers them, or as browsers expect them where
// IANA has none (image/x-icon, application/x-7z-compressed...); JavaScript as text/javascript (RFC 9239).
constexpr auto kBuiltIn = std::to_array<BuiltIn>({
    entry("3gp", "video/3gpp"),
    entry("7z", "application/x-7z-compressed"),
    entry("aac", "audio/aac"),
    entry("apng", "image/apng"),
    entry("atom", "application/atom+xml"),
    entry("avi", "video/x-msvideo"),
    entry("avif", "image/avif"),
    entry("bmp", "image/bmp"),
    entry("br", "application/x-brotli"),
    entry("bz2", "application/x-bzip2"),
    entry("css", "text/css; charset=utf-8"),
    entry("csv", "text/csv; charset=utf-8"),
    entry("eot", "application/vnd.ms-fontobject"),
    entry("epub", "application/epub+zip"),
    entry("flac", "audio/flac"),
    entry("geojson", "application/geo+json"),
    entry("gif", "image/gif"),
    entry("glb", "model/gltf-binary"),
    entry("gltf", "model/gltf+json"),
    entry("gz", "application/gzip"),
    entry("htm", kHtml),
    entry("html", kHtml),
    entry("ico", "image/x-icon"),
    entry("ics", "text/calendar; charset=utf-8"),
    entry("jpeg", "image/jpeg"),
    entry("jpg", "image/jpeg"),
    entry("js", kJavaScript),
    entry("json", "application/json"),
    entry("jsonld", "application/ld+json"),
    entry("jxl", "image/jxl"),
    entry("m4a", "audio/mp4"),
    entry("m4v", "video/mp4"),
    entry("map", "application/json"),
    entry("md", "text/markdown; charset=utf-8"),
    entry("mjs", kJavaScript),
    entry("mkv", "video/x-matroska"),
    entry("mov", "video/quicktime"),
    entry("mp3", "audio/mpeg"),
    entry("mp4", "video/mp4"),
    entry("mpeg", "video/mpeg"),
    entry("mpg", "video/mpeg"),
    entry("oga", "audio/ogg"),
    entry("ogg", "audio/ogg"),
    entry("ogv", "video/ogg"),
    entry("opus", "audio/ogg"),
    entry("otf", "font/otf"),
    entry("pdf", "application/pdf"),
    entry("png", "image/png"),
    entry("rar", "application/vnd.rar"),
    entry("rss", "application/rss+xml"),
    entry("svg", "image/svg+xml"),
    entry("tar", "application/x-tar"),
    entry("tgz", "application/gzip"),
    entry("tif", "image/tiff"),
    entry("tiff", "image/tiff"),
    entry("ttf", "font/ttf"),
    entry("txt", "text/plain; charset=utf-8"),
    entry("vtt", "text/vtt; charset=utf-8"),
    entry("wasm", "application/wasm"),
    entry("wav", "audio/wav"),
    entry("weba", "audio/webm"),
    entry("webm", "video/webm"),
    entry("webmanifest", "application/manifest+json"),
    entry("webp", "image/webp"),
    entry("woff", "font/woff"),
    entry("woff2", "font/woff2"),
    entry("xhtml", "application/xhtml+xml"),
    entry("xml", "application/xml"),
    entry("xz", "application/x-xz"),
    entry("yaml", "application/yaml"),
    entry("yml", "application/yaml"),
    entry("zip", "application/zip"),
    entry("zst", "application/zstd"),
});

constexpr bool isSortedLowerCaseAndShort(const auto& table) noexcept {
    for (std::size_t i = 0; i < table.size(); ++i) {
        const std::string_view extension = table[i].extension;
        if (extension.empty() || extension.size() > MimeTypes::kMaxExtensionBytes) return false;
        for (const char c : extension) {
            if (toLower(c) != c) return false;
        }
        if (i > 0 && !(table[i - 1].extension < extension)) return false;
    }
    return true;
}
static_assert(isSortedLowerCaseAndShort(kBuiltIn), "the binary search needs the table sorted, without duplicates");
static_assert(std::all_of(kBuiltIn.begin(), kBuiltIn.end(),
                          [](const BuiltIn& entry) { return entry.contentType.size() <= MimeTypes::kMaxTypeBytes; }));

constexpr MediaType kDefault{MimeTypes::kDefaultType, false};

// tchar (RFC 9110 §5.6.2).
bool isTokenByte(char c) noexcept {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// A run of one or more token bytes at `at`.
bool readToken(std::string_view text, std::size_t& at) noexcept {
    const std::size_t start = at;
    while (at < text.size() && isTokenByte(text[at]))
        ++at;
    return at > start;
}

// A quoted-string at `at` (RFC 9110 §5.6.4): its bytes are HTAB, SP, visible ASCII or obs-text, a backslash quoting
// one of them.
bool readQuotedString(std::string_view text, std::size_t& at) noexcept {
    const auto isQuotable = [](unsigned char byte) { return byte == '\t' || (byte >= 0x20 && byte != 0x7f); };
    if (at == text.size() || text[at] != '"') return false;
    for (++at; at < text.size(); ++at) {
        const auto byte = static_cast<unsigned char>(text[at]);
        if (byte == '"') {
            ++at;
            return true;
        }
        if (byte == '\\') {
            if (++at == text.size() || !isQuotable(static_cast<unsigned char>(text[at]))) return false;
        } else if (!isQuotable(byte)) {
            return false;
        }
    }
    return false;
}

void skipOws(std::string_view text, std::size_t& at) noexcept {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t'))
        ++at;
}

// media-type = type "/" subtype parameters; parameters = *( OWS ";" OWS [ parameter ] ), parameter = token "="
// ( token / quoted-string ) (RFC 9110 §8.3.1 and §5.6.6). Nothing else, so no byte that could end the field.
bool isMediaType(std::string_view text) noexcept {
    std::size_t at = 0;
    if (!readToken(text, at) || at == text.size() || text[at] != '/') return false;
    ++at;
    if (!readToken(text, at)) return false;
    while (true) {
        skipOws(text, at);
        if (at == text.size()) return text.back() != ' ' && text.back() != '\t';
        if (text[at] != ';') return false;
        ++at;
        skipOws(text, at);
        if (at == text.size() || text[at] == ';') continue;
        if (!readToken(text, at) || at == text.size() || text[at] != '=') return false;
        ++at;
        if (at < text.size() && text[at] == '"') {
            if (!readQuotedString(text, at)) return false;
        } else if (!readToken(text, at)) {
            return false;
        }
    }
}

bool isExtensionByte(char c) noexcept { return c > 0x20 && c < 0x7f && c != '.' && c != '/' && c != '\\'; }

}  // namespace

std::string_view MimeTypes::extensionOf(std::string_view path) noexcept {
    const std::size_t slash = path.rfind('/');
    const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    const std::size_t dot = name.rfind('.');
    if (dot == std::string_view::npos || dot == 0) return {};
    return name.substr(dot + 1);
}

MediaType MimeTypes::forPath(std::string_view path) const noexcept { return forExtension(extensionOf(path)); }

MediaType MimeTypes::forExtension(std::string_view extension) const noexcept {
    if (extension.empty() || extension.size() > kMaxExtensionBytes) return kDefault;
    // Lowered once into a small array, so that both searches compare plain bytes.
    std::array<char, kMaxExtensionBytes> lowered{};
    std::transform(extension.begin(), extension.end(), lowered.begin(), toLower);
    const std::string_view key(lowered.data(), extension.size());
    const auto added = std::lower_bound(added_.begin(), added_.end(), key,
                                        [](const Added& entry, std::string_view k) { return entry.extension < k; });
    if (added != added_.end() && added->extension == key) return {added->contentType, added->compressible};
    const auto builtIn = std::lower_bound(kBuiltIn.begin(), kBuiltIn.end(), key,
                                          [](const BuiltIn& entry, std::string_view k) { return entry.extension < k; });
    if (builtIn != kBuiltIn.end() && builtIn->extension == key) return {builtIn->contentType, builtIn->compressible};
    return kDefault;
}

bool MimeTypes::add(std::string_view extension, std::string_view contentType) {
    if (!extension.empty() && extension.front() == '.') extension.remove_prefix(1);
    if (extension.empty() || extension.size() > kMaxExtensionBytes) return false;
    if (!std::all_of(extension.begin(), extension.end(), isExtensionByte)) return false;
    if (contentType.size() > kMaxTypeBytes || !isMediaType(contentType)) return false;
    std::string lowered(extension);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(), toLower);
    const auto at = std::lower_bound(added_.begin(), added_.end(), lowered,
                                     [](const Added& entry, const std::string& k) { return entry.extension < k; });
    Added replacement{lowered, std::string(contentType), compressibleType(contentType)};
    if (at != added_.end() && at->extension == lowered) {
        *at = std::move(replacement);
    } else {
        added_.insert(at, std::move(replacement));
    }
    return true;
}

bool MimeTypes::isCompressible(std::string_view contentType) noexcept { return compressibleType(contentType); }

}  // namespace loopwire::files
