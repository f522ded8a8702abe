// CachedFile: what the file handler knows of one path beneath a root: whether it is a file or a directory, the
// identity it had when last checked, the validators and Content-Type made from it, for a file small enough its
// bytes, and its precompressed siblings (file.br, file.zst, file.gz) when the mount serves them.
//
// FileCache creates and owns these (through shared_ptr: a response streaming a file's bytes keeps the entry alive
// after the cache dropped it, so a body never changes under a response). Everything is made when the entry is
// loaded (set-up cost, allocating); serving one reads it only. Loop thread only.
#pragma once

#include "HttpDate.h"
#include "compress/AcceptEncoding.h"

#include <array>

#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <sys/stat.h>

namespace loopwire::files {

// What a change to a file changes: the same path holding another file (a rename over it, a delete and create)
// gets another inode; a file rewritten in place gets another size or modification time.
struct FileIdentity {
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::uint64_t size = 0;
    std::int64_t modifiedSeconds = 0;
    std::int64_t modifiedNanoseconds = 0;

    static FileIdentity of(const struct stat& status) noexcept {
        return {static_cast<std::uint64_t>(status.st_dev), static_cast<std::uint64_t>(status.st_ino),
                static_cast<std::uint64_t>(status.st_size), static_cast<std::int64_t>(status.st_mtim.tv_sec),
                static_cast<std::int64_t>(status.st_mtim.tv_nsec)};
    }
    bool operator==(const FileIdentity&) const noexcept = default;
};

// An entity-tag is at most 3 × 16 hex digits, two dashes and the quotes; a compressed variant's adds "W/", a dash and
// the coding's token.
inline constexpr std::size_t kMaxEntityTagBytes = 3 * 16 + 2 + 2 + 2 + 1 + 8;

// A file's content coded: beforehand, in a file beside it (app.js.br, app.js.zst, app.js.gz: precompressed), or by the
// server in the background (compress); kept in memory with its own validators: a coded body never carries the plain
// file's strong entity-tag.
struct CodedVariant {
    compress::ContentCoding coding = compress::ContentCoding::Identity;
    // The sibling file as last seen; size 0 and inode 0 when there was none (also for a variant the server made).
    FileIdentity identity;
    bool usable = false;     // to be served: from body, or from the sibling file (onDisk)
    bool onDisk = false;     // too large for the cache: read from the sibling file per response, as a large file is
    bool generated = false;  // made by the server from the plain body (its entity-tag is weak)
    std::string body;
    char entityTag[kMaxEntityTagBytes] = {};
    std::uint8_t entityTagLength = 0;
    char lastModified[HttpDate::kLength] = {};

    std::string_view entityTagText() const noexcept { return {entityTag, entityTagLength}; }
    std::string_view lastModifiedText() const noexcept { return {lastModified, HttpDate::kLength}; }
};

// What a response sends: the bytes of one representation (in memory, or in the file fd of a response: the plain file,
// or a precompressed sibling too large for the cache), its length, type and validators. A view into a CachedFile,
// valid while the entry is held.
struct Representation {
    compress::ContentCoding coding = compress::ContentCoding::Identity;
    std::string_view contentType;
    std::uint64_t length = 0;
    const FileIdentity* identity = nullptr;  // of the file the bytes come from
    bool inMemory = false;
    std::string_view body;  // when inMemory
    std::string_view entityTag;
    std::string_view lastModified;
    std::int64_t lastModifiedSeconds = 0;
};

struct CachedFile {
    enum class Kind : std::uint8_t { File, Directory };

    // The precompressed siblings looked for, in the server's order of preference when the client weighs them alike
    // (brotli, then zstd, then gzip, as h2o prefers brotli), with their file name suffixes.
    static constexpr std::size_t kPrecompressedCodings = 3;
    static constexpr std::array<compress::ContentCoding, kPrecompressedCodings> kPrecompressedOrder{
        compress::ContentCoding::Brotli, compress::ContentCoding::Zstd, compress::ContentCoding::Gzip};
    static constexpr std::array<std::string_view, kPrecompressedCodings> kPrecompressedSuffixes{".br", ".zst", ".gz"};

    std::string key;  // the decoded relative path it was requested by
    Kind kind = Kind::File;
    FileIdentity identity;
    std::string_view contentType;  // from the mount's MimeTypes, which outlive the cache
    bool compressible = false;
    bool bodyInMemory = false;  // body holds the file's bytes; otherwise they are read from the file per response
    std::string body;
    char entityTag[kMaxEntityTagBytes] = {};
    std::uint8_t entityTagLength = 0;
    char lastModified[HttpDate::kLength] = {};
    // Loop::nowMs() when the identity was last compared with the file's.
    std::uint64_t checkedAtMs = 0;
    // In kPrecompressedOrder; siblings looked for only when the mount serves precompressed files
    // (precompressedChecked), and made by the server when it compresses.
    std::array<CodedVariant, kPrecompressedCodings> precompressed;
    bool precompressedChecked = false;
    // The answer depends on Accept-Encoding (Vary): a variant exists, or is being made.
    bool variesByCoding = false;

    std::string_view entityTagText() const noexcept { return {entityTag, entityTagLength}; }
    std::string_view lastModifiedText() const noexcept { return {lastModified, HttpDate::kLength}; }
    // The codings a usable precompressed variant exists for.
    compress::CodingSet precompressedCodings() const noexcept {
        compress::CodingSet codings;
        for (const CodedVariant& variant : precompressed) {
            if (variant.usable) codings.add(variant.coding);
        }
        return codings;
    }
    // The plain file, or the variant of coding (which must be usable).
    Representation representation(compress::ContentCoding coding = compress::ContentCoding::Identity) const noexcept {
        for (const CodedVariant& variant : precompressed) {
            if (variant.usable && variant.coding == coding && coding != compress::ContentCoding::Identity) {
                return {.coding = coding,
                        .contentType = contentType,
                        .length = variant.onDisk ? variant.identity.size : variant.body.size(),
                        .identity = &variant.identity,
                        .inMemory = !variant.onDisk,
                        .body = variant.body,
                        .entityTag = variant.entityTagText(),
                        .lastModified = variant.lastModifiedText(),
                        .lastModifiedSeconds = variant.identity.modifiedSeconds};
            }
        }
        return {.coding = compress::ContentCoding::Identity,
                .contentType = contentType,
                .length = identity.size,
                .identity = &identity,
                .inMemory = bodyInMemory,
                .body = body,
                .entityTag = entityTagText(),
                .lastModified = lastModifiedText(),
                .lastModifiedSeconds = identity.modifiedSeconds};
    }
    // What this entry costs the cache's bound.
    std::size_t chargedBytes() const noexcept {
        std::size_t bytes = sizeof(CachedFile) + key.size() + body.size();
        for (const CodedVariant& variant : precompressed)
            bytes += variant.body.size();
        return bytes;
    }
};

}  // namespace loopwire::files
