// CachedFile: what the file handler knows of one path beneath a root: whether it is a file or a directory, the
// identity it had when last checked, the validators and Content-Type made from it, and, for a file small enough,
// its bytes.
//
// FileCache creates and owns these (through shared_ptr: a response streaming a file's bytes keeps the entry alive
// after the cache dropped it, so a body never changes under a response). Everything is made when the entry is
// loaded (set-up cost, allocating); serving one reads it only. Loop thread only.
#pragma once

#include "HttpDate.h"

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

struct CachedFile {
    enum class Kind : std::uint8_t { File, Directory };

    // An entity-tag is at most 3 × 16 hex digits, two dashes and the quotes.
    static constexpr std::size_t kMaxEntityTagBytes = 3 * 16 + 2 + 2;

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

    std::string_view entityTagText() const noexcept { return {entityTag, entityTagLength}; }
    std::string_view lastModifiedText() const noexcept { return {lastModified, HttpDate::kLength}; }
    // What this entry costs the cache's bound.
    std::size_t chargedBytes() const noexcept { return sizeof(CachedFile) + key.size() + body.size(); }
};

}  // namespace loopwire::files
