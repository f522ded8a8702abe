#include "StaticMount.h"

#include "base/Limits.h"
#include "compress/Encoder.h"
#include "loop/Loop.h"
#include "static/HttpDate.h"
#include "static/RequestPath.h"

#include <loopwire/HttpRequest.h>
#include <loopwire/HttpResponse.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loopwire::files {

namespace {

char* appendHex(char* out, std::uint64_t value) noexcept {
    char digits[16];
    char* at = digits + sizeof digits;
    do {
        *--at = "0123456789abcdef"[value & 15];
        value >>= 4;
    } while (value != 0);
    while (at < digits + sizeof digits)
        *out++ = *at++;
    return out;
}

// A strong entity-tag made of what changes when the file does (as h2o's file handler makes it): the inode (a
// file renamed over this one), the modification time to the nanosecond and the size.
std::uint8_t formatEntityTag(char* out, const FileIdentity& identity) noexcept {
    char* at = out;
    *at++ = '"';
    at = appendHex(at, identity.inode);
    *at++ = '-';
    const auto modified = static_cast<std::uint64_t>(identity.modifiedSeconds) * 1'000'000'000u +
                          static_cast<std::uint64_t>(identity.modifiedNanoseconds);
    at = appendHex(at, modified);
    *at++ = '-';
    at = appendHex(at, identity.size);
    *at++ = '"';
    return static_cast<std::uint8_t>(at - out);
}

std::string cacheControlFor(const StaticFileOptions& options) {
    if (options.maxAgeSeconds == 0 && !options.immutable) return {};
    std::string value = "public, max-age=" + std::to_string(options.maxAgeSeconds);
    if (options.immutable) value += ", immutable";
    return value;
}

}  // namespace

StaticMount::StaticMount(Loop& loop, BodyStreamPool& streams, CompressionWorker& compressor, std::string_view boundary,
                         std::string prefix, FileRoot root, const StaticFileOptions& options, MimeTypes types)
    : loop_(loop),
      compressor_(compressor),
      prefix_(std::move(prefix)),
      root_(std::move(root)),
      options_(options),
      types_(std::move(types)),
      cache_(options.cacheBytes),
      responder_(streams, boundary),
      cacheControl_(cacheControlFor(options)) {
    policy_.cacheControl = cacheControl_;
    policy_.entityTag = options.etag;
    policy_.lastModified = options.lastModified;
    policy_.sendfile = options.sendfile;
}

void StaticMount::serveOtherMethod(HttpResponse& response, HttpRequest& request) {
    const std::string_view method = request.getCaseSensitiveMethod();
    if (method == "GET" || method == "HEAD" || options_.fallthrough) {
        request.setYield(true);
        return;
    }
    response.writeStatus("405 Method Not Allowed");
    response.writeHeader("Allow", "GET, HEAD");
    response.end();
}

void StaticMount::serve(HttpResponse& response, HttpRequest& request) {
    const std::string_view url = request.getUrl();
    RequestPath path;
    const Dotfiles dotfiles = options_.dotfiles == DotfilePolicy::Allow ? Dotfiles::Allow : Dotfiles::Deny;
    switch (path.resolve(url.substr(prefix_.size()), dotfiles)) {
        case PathVerdict::BadRequest:
            response.writeStatus("400 Bad Request");
            response.end();
            return;
        case PathVerdict::NotFound:
            miss(response, request);
            return;
        case PathVerdict::Ok:
            break;
    }

    const RequestFields fields = RequestFields::of(request);
    std::string_view key = path.relative();
    char indexPath[RequestPath::kMaxPathBytes + 1];
    if (path.directory()) {
        // The folder's index file: its path is the folder's, a slash (unless the folder is the root) and the name.
        const std::size_t slash = key.empty() ? 0 : 1;
        if (options_.index.empty() || key.size() + slash + options_.index.size() > RequestPath::kMaxPathBytes) {
            miss(response, request);
            return;
        }
        char* at = std::copy(key.begin(), key.end(), indexPath);
        if (slash != 0) *at++ = '/';
        at = std::copy(options_.index.begin(), options_.index.end(), at);
        key = std::string_view(indexPath, static_cast<std::size_t>(at - indexPath));
    }
    int fd = -1;
    std::shared_ptr<CachedFile> entry = lookUp(key, !fields.head, &fd);
    if (!entry) {
        miss(response, request);
        return;
    }
    if (entry->kind == CachedFile::Kind::Directory) {
        if (fd >= 0) ::close(fd);
        if (path.directory()) {
            // index.html is itself a folder: nothing to serve, and never a listing.
            miss(response, request);
        } else {
            redirectToDirectory(response, url, request.getQuery());
        }
        return;
    }
    const std::int64_t now = fields.needClock() ? static_cast<std::int64_t>(std::time(nullptr)) : 0;
    responder_.respond(response, fields, entry, fd, policy_, now, root_);
}

void StaticMount::sendFile(HttpResponse& response, const RequestFields& fields, std::string_view path,
                           std::span<const HeaderField> headers) {
    RequestPath resolved;
    const Dotfiles dotfiles = options_.dotfiles == DotfilePolicy::Allow ? Dotfiles::Allow : Dotfiles::Deny;
    int fd = -1;
    std::shared_ptr<CachedFile> entry;
    if (resolved.resolve(path, dotfiles, PathEncoding::None) == PathVerdict::Ok && !resolved.directory()) {
        entry = lookUp(resolved.relative(), !fields.head, &fd);
    }
    if (!entry || entry->kind != CachedFile::Kind::File) {
        if (fd >= 0) ::close(fd);
        response.writeStatus("404 Not Found");
        response.end();
        return;
    }
    const std::int64_t now = fields.needClock() ? static_cast<std::int64_t>(std::time(nullptr)) : 0;
    ResponsePolicy policy = policy_;
    policy.extraHeaders = headers;
    responder_.respond(response, fields, entry, fd, policy, now, root_);
}

void StaticMount::miss(HttpResponse& response, HttpRequest& request) {
    if (options_.fallthrough) {
        request.setYield(true);
        return;
    }
    response.writeStatus("404 Not Found");
    response.end();
}

void StaticMount::redirectToDirectory(HttpResponse& response, std::string_view url, std::string_view query) {
    char location[3 * (limits::kMaxRequestTargetBytes + 1)];
    const std::string_view target = RequestPath::directoryLocation(url, query, location);
    if (target.empty()) {
        response.writeStatus("404 Not Found");
        response.end();
        return;
    }
    response.writeStatus("301 Moved Permanently");
    response.writeHeader("Location", target);
    response.end();
}

std::shared_ptr<CachedFile> StaticMount::lookUp(std::string_view path, bool wantDescriptor, int* fd) {
    const std::uint64_t now = loop_.nowMs();
    if (const std::shared_ptr<CachedFile>* cached = cache_.find(path)) {
        const std::shared_ptr<CachedFile>& entry = *cached;
        const bool fresh = now - entry->checkedAtMs < kRevalidateIntervalMs;
        const bool needsDescriptor = wantDescriptor && entry->kind == CachedFile::Kind::File && !entry->bodyInMemory;
        if (fresh && !needsDescriptor) return entry;
        // Stale, or the bytes are to be read from the file anyway: compare the file with the entry (its open
        // descriptor then serves the body, so headers and body describe the same file).
        int opened = root_.open(path);
        struct stat status;
        if (opened < 0 || ::fstat(opened, &status) != 0) {
            if (opened >= 0) ::close(opened);
            cache_.erase(path);
            return nullptr;
        }
        // A precompressed sibling that appeared, changed or went counts as a change of the entry (it is checked only
        // once the interval has passed: a response that merely needs the descriptor does not pay for it).
        if (FileIdentity::of(status) == entry->identity &&
            (S_ISDIR(status.st_mode) == (entry->kind == CachedFile::Kind::Directory)) &&
            (fresh || precompressedUnchanged(*entry))) {
            // Only a full check (siblings included) starts a new interval: a request that merely needed the
            // descriptor must not put off the siblings' check, or steady traffic would keep it away for good.
            if (!fresh) entry->checkedAtMs = now;
            if (needsDescriptor) {
                *fd = opened;
            } else {
                ::close(opened);
            }
            return entry;
        }
        std::shared_ptr<CachedFile> reloaded = load(path, opened, status);
        // Whether the response needs the descriptor depends on what the file is now (a file that grew past
        // kMaxCachedFileBytes streams), not on what the stale entry was.
        if (reloaded && wantDescriptor && reloaded->kind == CachedFile::Kind::File && !reloaded->bodyInMemory) {
            *fd = opened;
        } else {
            ::close(opened);
        }
        return reloaded;
    }
    int opened = root_.open(path);
    if (opened < 0) return nullptr;
    struct stat status;
    if (::fstat(opened, &status) != 0) {
        ::close(opened);
        return nullptr;
    }
    std::shared_ptr<CachedFile> loaded = load(path, opened, status);
    if (loaded && wantDescriptor && loaded->kind == CachedFile::Kind::File && !loaded->bodyInMemory) {
        *fd = opened;
    } else {
        ::close(opened);
    }
    return loaded;
}

std::shared_ptr<CachedFile> StaticMount::load(std::string_view path, int fd, const struct stat& status) {
    cache_.erase(path);
    if (!S_ISREG(status.st_mode) && !S_ISDIR(status.st_mode)) return nullptr;  // a FIFO, a device, a socket
    auto entry = std::make_shared<CachedFile>();
    entry->key.assign(path);
    entry->checkedAtMs = loop_.nowMs();
    entry->identity = FileIdentity::of(status);
    if (S_ISDIR(status.st_mode)) {
        entry->kind = CachedFile::Kind::Directory;
        cache_.insert(entry);
        return entry;
    }
    const MediaType type = types_.forPath(path);
    entry->contentType = type.contentType;
    entry->compressible = type.compressible;
    if (entry->identity.size <= kMaxCachedFileBytes && entry->identity.size <= cache_.maxBytes()) {
        entry->bodyInMemory = readStable(fd, entry->identity, entry->body);
        if (entry->identity.size == 0 && !entry->bodyInMemory) return nullptr;  // it stopped being a regular file
    }
    entry->entityTagLength = formatEntityTag(entry->entityTag, entry->identity);
    HttpDate::format(entry->identity.modifiedSeconds, std::span<char, HttpDate::kLength>(entry->lastModified));
    if (options_.precompressed) loadPrecompressed(*entry);
    cache_.insert(entry);
    scheduleCompression(entry, fd);
    return entry;
}

bool StaticMount::readWhole(int fd, std::uint64_t size, std::string& body) {
    body.resize(static_cast<std::size_t>(size));
    std::size_t got = 0;
    while (got < body.size()) {
        ssize_t n = ::pread(fd, body.data() + got, body.size() - got, static_cast<off_t>(got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        got += static_cast<std::size_t>(n);
    }
    char extra;
    return ::pread(fd, &extra, 1, static_cast<off_t>(got)) == 0;
}

bool StaticMount::readStable(int fd, FileIdentity& identity, std::string& body) {
    for (int attempt = 0; attempt < kMaxLoadAttempts; ++attempt) {
        struct stat after;
        if (readWhole(fd, identity.size, body) && ::fstat(fd, &after) == 0 && FileIdentity::of(after) == identity) {
            return true;
        }
        // It changed while being read: take its new identity and read again, while it still fits.
        if (::fstat(fd, &after) != 0 || !S_ISREG(after.st_mode)) {
            identity = {};
            break;
        }
        identity = FileIdentity::of(after);
        if (identity.size > kMaxCachedFileBytes) break;
    }
    body.clear();
    body.shrink_to_fit();
    return false;
}

FileIdentity StaticMount::siblingIdentity(std::string_view path, std::string_view suffix, int* fd) const {
    struct stat status;
    const int opened = root_.openRegular(path, suffix, status);
    if (opened < 0) return {};
    if (fd != nullptr) {
        *fd = opened;
    } else {
        ::close(opened);
    }
    return FileIdentity::of(status);
}

void StaticMount::loadPrecompressed(CachedFile& entry) {
    entry.precompressedChecked = true;
    for (std::size_t i = 0; i < CachedFile::kPrecompressedCodings; ++i) {
        CodedVariant& variant = entry.precompressed[i];
        variant.coding = CachedFile::kPrecompressedOrder[i];
        int fd = -1;
        variant.identity = siblingIdentity(entry.key, CachedFile::kPrecompressedSuffixes[i], &fd);
        if (fd < 0) continue;
        // A variant up to kMaxCachedFileBytes is kept in memory; a larger one (a big bundle's .br) is read from its
        // file per response, as a large plain file is, its identity checked against the one seen here.
        if (variant.identity.size <= kMaxCachedFileBytes) {
            variant.usable = readStable(fd, variant.identity, variant.body);
        } else {
            variant.usable = true;
            variant.onDisk = true;
        }
        ::close(fd);
        if (!variant.usable) continue;
        entry.variesByCoding = true;
        variant.entityTagLength = formatEntityTag(variant.entityTag, variant.identity);
        HttpDate::format(variant.identity.modifiedSeconds, std::span<char, HttpDate::kLength>(variant.lastModified));
    }
}

void StaticMount::scheduleCompression(const std::shared_ptr<CachedFile>& entry, int fd) {
    if (!options_.compress || !entry->compressible || entry->identity.size < kMinCompressedFileBytes ||
        (!entry->bodyInMemory && (entry->identity.size > kMaxCompressedFileBytes || fd < 0))) {
        return;
    }
    // Only for an entry the cache kept: one it could not keep is loaded again for every request.
    const std::shared_ptr<CachedFile>* cached = cache_.find(entry->key);
    if (cached == nullptr || cached->get() != entry.get()) return;
    for (const CodedVariant& variant : entry->precompressed) {
        if (variant.usable || !compress::Encoder::available(variant.coding)) continue;
        // The worker reads a file not in memory through its own descriptor, checked against the entry's identity.
        int source = -1;
        if (!entry->bodyInMemory) {
            source = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
            if (source < 0) continue;
        }
        compressor_.schedule(this, entry, variant.coding, source);
        entry->variesByCoding = true;
    }
}

void StaticMount::addCompressedVariant(CompressionWorker::Result& result) {
    CachedFile& entry = *result.entry;
    if (result.body.empty()) return;
    const std::shared_ptr<CachedFile>* cached = cache_.find(entry.key);
    if (cached == nullptr || cached->get() != &entry) return;  // reloaded or evicted meanwhile
    for (CodedVariant& variant : entry.precompressed) {
        if (variant.coding != result.coding || variant.usable) continue;
        variant.usable = true;
        variant.generated = true;
        variant.body = std::move(result.body);
        // Weak: the bytes are the plain file's, coded by this server at one level; another build or level would code
        // them differently, and a strong tag promises the same bytes.
        const std::string_view plain = entry.entityTagText();
        const std::string_view token = compress::contentCodingToken(variant.coding);
        char* at = variant.entityTag;
        at = std::copy_n("W/", 2, at);
        at = std::copy(plain.begin(), plain.end() - 1, at);
        *at++ = '-';
        at = std::copy(token.begin(), token.end(), at);
        *at++ = '"';
        variant.entityTagLength = static_cast<std::uint8_t>(at - variant.entityTag);
        std::copy_n(entry.lastModified, HttpDate::kLength, variant.lastModified);
        variant.identity = {};
        // Charged anew: the entry grew.
        cache_.insert(result.entry);
        return;
    }
}

bool StaticMount::precompressedUnchanged(const CachedFile& entry) const {
    if (!entry.precompressedChecked) return true;
    for (std::size_t i = 0; i < CachedFile::kPrecompressedCodings; ++i) {
        if (siblingIdentity(entry.key, CachedFile::kPrecompressedSuffixes[i], nullptr) !=
            entry.precompressed[i].identity) {
            return false;
        }
    }
    return true;
}

}  // namespace loopwire::files
