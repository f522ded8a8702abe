#include "FileRoot.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <utility>

namespace loopwire::files {

namespace {

constexpr int kFileFlags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;

int callOpenat2(int directoryFd, const char* path, std::uint64_t flags, std::uint64_t resolve) noexcept {
    open_how how{};
    how.flags = flags;
    how.resolve = resolve;
    return static_cast<int>(syscall(SYS_openat2, directoryFd, path, &how, sizeof how));
}

// Whether this kernel has openat2 (Linux 5.6): glibc may know the number while the kernel, or a seccomp filter
// (some container runtimes), refuses it with ENOSYS.
bool kernelHasOpenat2(int rootFd) noexcept {
    int fd = callOpenat2(rootFd, ".", O_PATH | O_CLOEXEC, RESOLVE_BENEATH);
    if (fd < 0) return errno != ENOSYS && errno != EPERM;
    ::close(fd);
    return true;
}

}  // namespace

FileRoot::FileRoot(FileRoot&& other) noexcept
    : rootFd_(std::exchange(other.rootFd_, -1)), resolution_(other.resolution_), path_(std::move(other.path_)) {}

FileRoot& FileRoot::operator=(FileRoot&& other) noexcept {
    if (this != &other) {
        if (rootFd_ >= 0) ::close(rootFd_);
        rootFd_ = std::exchange(other.rootFd_, -1);
        resolution_ = other.resolution_;
        path_ = std::move(other.path_);
    }
    return *this;
}

FileRoot::~FileRoot() {
    if (rootFd_ >= 0) ::close(rootFd_);
}

bool FileRoot::openDirectory(std::string_view directory, Resolution resolution) {
    std::string path(directory);
    if (path.empty() || path.find('\0') != std::string::npos) {
        errno = ENOENT;
        return false;
    }
    // O_PATH: the root is only ever a starting point for openat, never read, so no read permission is needed on it.
    int fd = ::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return false;
    if (rootFd_ >= 0) ::close(rootFd_);
    rootFd_ = fd;
    path_ = std::move(path);
    if (resolution == Resolution::Automatic) {
        resolution = kernelHasOpenat2(rootFd_) ? Resolution::Openat2 : Resolution::NoFollowWalk;
    }
    resolution_ = resolution;
    return true;
}

int FileRoot::open(std::string_view relativePath) const noexcept {
    if (rootFd_ < 0) {
        errno = EBADF;
        return -1;
    }
    if (relativePath.size() >= kMaxStackPathBytes) {
        errno = ENAMETOOLONG;
        return -1;
    }
    char path[kMaxStackPathBytes];
    if (relativePath.empty()) {
        path[0] = '.';
        path[1] = '\0';
    } else {
        std::memcpy(path, relativePath.data(), relativePath.size());
        path[relativePath.size()] = '\0';
    }
    switch (resolution_) {
        case Resolution::Openat2:
            return openWithOpenat2(path);
        case Resolution::FollowLinks:
            return ::openat(rootFd_, path, kFileFlags);
        case Resolution::Automatic:
        case Resolution::NoFollowWalk:
            break;
    }
    return openByWalking(path);
}

int FileRoot::openRegular(std::string_view relativePath, std::string_view suffix, struct stat& status) const noexcept {
    char path[kMaxStackPathBytes];
    if (relativePath.size() + suffix.size() >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    std::memcpy(path, relativePath.data(), relativePath.size());
    std::memcpy(path + relativePath.size(), suffix.data(), suffix.size());
    const int fd = open(std::string_view(path, relativePath.size() + suffix.size()));
    if (fd < 0) return -1;
    if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
        ::close(fd);
        return -1;
    }
    return fd;
}

int FileRoot::openWithOpenat2(const char* relativePath) const noexcept {
    // RESOLVE_BENEATH refuses "..", absolute paths and links that lead above the root (EXDEV), and an absolute
    // link (ELOOP is not promised: EXDEV is); RESOLVE_NO_MAGICLINKS refuses /proc/self/fd-style links.
    int fd;
    do {
        fd = callOpenat2(rootFd_, relativePath, kFileFlags, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
    } while (fd < 0 && errno == EAGAIN);
    return fd;
}

int FileRoot::openByWalking(const char* relativePath) const noexcept {
    // Without openat2, following a link safely would mean resolving it by hand; refusing every link is the safe
    // subset (nginx's disable_symlinks on does the same). Each directory is opened O_PATH | O_NOFOLLOW from the
    // previous one, so a component swapped for a link between two steps is refused too.
    if (relativePath[0] == '/') {
        errno = EXDEV;
        return -1;
    }
    int directoryFd = rootFd_;
    const char* segment = relativePath;
    while (true) {
        const char* slash = std::strchr(segment, '/');
        if (slash == nullptr) break;
        char name[kMaxStackPathBytes];
        const std::size_t length = static_cast<std::size_t>(slash - segment);
        std::memcpy(name, segment, length);
        name[length] = '\0';
        if (length == 0 || std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) {
            if (directoryFd != rootFd_) ::close(directoryFd);
            errno = EXDEV;
            return -1;
        }
        int next = ::openat(directoryFd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        const int savedErrno = errno;
        if (directoryFd != rootFd_) ::close(directoryFd);
        if (next < 0) {
            errno = savedErrno;
            return -1;
        }
        directoryFd = next;
        segment = slash + 1;
    }
    if (std::strcmp(segment, "..") == 0) {
        if (directoryFd != rootFd_) ::close(directoryFd);
        errno = EXDEV;
        return -1;
    }
    int fd = ::openat(directoryFd, segment, kFileFlags | O_NOFOLLOW);
    const int savedErrno = errno;
    if (directoryFd != rootFd_) ::close(directoryFd);
    errno = savedErrno;
    return fd;
}

}  // namespace loopwire::files
