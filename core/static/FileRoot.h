// FileRoot: a directory files are served from, and the one way to open a file beneath it.
//
// open() takes a relative path that RequestPath has made safe (no "..", no empty or "." segments, no leading '/')
// and never opens anything outside the root, whatever the tree holds: a symbolic link that leads out of the root,
// or an absolute one, fails the open (ELOOP/EXDEV) rather than being followed. On kernels with openat2(2) that is
// RESOLVE_BENEATH (links that stay beneath the root are followed); elsewhere every component is opened with
// O_NOFOLLOW, one at a time from the root (no link is followed at all). "/proc"-style magic links are never
// followed. Both ways are tested (tests/integration/FileRootTest.cpp).
//
// The root directory is opened once (O_PATH) by openDirectory(); renaming or replacing the directory afterwards
// does not move it. Descriptors returned are O_RDONLY | O_CLOEXEC | O_NONBLOCK (a FIFO planted in the tree cannot
// block the loop); the caller owns them. After openDirectory(), open() changes nothing and may run on any thread.
#pragma once

#include <string>
#include <string_view>
#include <sys/stat.h>

namespace loopwire::files {

class FileRoot {
public:
    // How open() resolves paths; Automatic picks openat2 when the kernel has it. FollowLinks is not a confinement:
    // links are followed wherever they lead, as open(2) does; it is for a root of "/" that opens the absolute paths
    // an application names itself (HttpResponse::sendFile without a root), never for a folder served to clients.
    enum class Resolution : unsigned char { Automatic, Openat2, NoFollowWalk, FollowLinks };

    FileRoot() = default;
    FileRoot(FileRoot&& other) noexcept;
    FileRoot& operator=(FileRoot&& other) noexcept;
    FileRoot(const FileRoot&) = delete;
    FileRoot& operator=(const FileRoot&) = delete;
    ~FileRoot();

    // Opens directory as the root. Returns false (errno set) when it is not an openable directory. Set-up time.
    bool openDirectory(std::string_view directory, Resolution resolution = Resolution::Automatic);
    bool isOpen() const noexcept { return rootFd_ >= 0; }
    const std::string& path() const noexcept { return path_; }
    // What open() actually uses (Automatic resolved).
    Resolution resolution() const noexcept { return resolution_; }

    // Opens relativePath (as described above; the empty path is the root itself) for reading. Returns the
    // descriptor, or -1 with errno set (ENOENT; a link refused: EXDEV with openat2, ELOOP with the walk, or ENOTDIR
    // where the link stands for a folder; EACCES, ...).
    // relativePath must hold no NUL. Does not allocate for paths up to kMaxStackPathBytes.
    int open(std::string_view relativePath) const noexcept;
    // open() of relativePath followed by suffix (a precompressed sibling: "app.js" + ".br"), kept only when it is a
    // regular file, whose status goes into status; -1 otherwise.
    int openRegular(std::string_view relativePath, std::string_view suffix, struct stat& status) const noexcept;

    static constexpr std::size_t kMaxStackPathBytes = 4096;

private:
    int openWithOpenat2(const char* relativePath) const noexcept;
    int openByWalking(const char* relativePath) const noexcept;

    int rootFd_ = -1;
    Resolution resolution_ = Resolution::Automatic;
    std::string path_;
};

}  // namespace loopwire::files
