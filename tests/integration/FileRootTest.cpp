// FileRoot (core/static/FileRoot.h): what a path beneath a served folder may open, with openat2's RESOLVE_BENEATH
// and with the O_NOFOLLOW walk used where the kernel has no openat2. Every case runs both ways; where they differ
// (a link that stays beneath the root, which only openat2 follows), the test says how, and each refusal is checked
// for the errno that way gives. No server: the real file system of a temporary folder.
#include "TemporaryFolder.h"
#include "static/FileRoot.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <future>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <utility>

namespace loopwire::test {
namespace {

using files::FileRoot;
using Resolution = FileRoot::Resolution;

// A descriptor that is closed when the test lets go of it, however the test ends.
class Descriptor {
public:
    explicit Descriptor(int fd = -1) noexcept : fd_(fd) {}
    Descriptor(Descriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    Descriptor& operator=(Descriptor&&) = delete;
    ~Descriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const noexcept { return fd_; }

private:
    int fd_;
};

// One open() through a root: the descriptor, or errno when it failed.
struct Opened {
    Descriptor fd;
    int error = 0;
    bool ok() const noexcept { return fd.get() >= 0; }
};

Opened openBeneath(const FileRoot& root, std::string_view path) {
    errno = 0;
    const int fd = root.open(path);
    const int error = fd < 0 ? errno : 0;
    return {Descriptor(fd), error};
}

std::string readAll(int fd) {
    std::string bytes;
    char chunk[4096];
    for (off_t offset = 0;;) {
        const ssize_t n = ::pread(fd, chunk, sizeof chunk, offset);
        if (n <= 0) return bytes;
        bytes.append(chunk, static_cast<std::size_t>(n));
        offset += n;
    }
}

struct stat statusOf(int fd) {
    struct stat status {};
    EXPECT_EQ(::fstat(fd, &status), 0);
    return status;
}

std::size_t openDescriptors() {
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd"))
        ++count;
    return count;
}

// The start of what a descriptor that should not have opened reads, for a failure message.
std::string preview(int fd) { return fd < 0 ? std::string() : readAll(fd).substr(0, 40); }

std::string errorName(int error) { return error == 0 ? "no error" : std::strerror(error); }

class FileRootOpen : public ::testing::TestWithParam<Resolution> {
protected:
    FileRootOpen() {
        folder_.write("hello.txt", "hello");
        folder_.write("sub/nested/deep.txt", "deep");
        // Beside the root, never to be opened through it.
        folder_.write("../outside/secret.txt", "secret");
    }
    void SetUp() override {
        ASSERT_TRUE(root_.openDirectory(folder_.path(), GetParam())) << std::strerror(errno);
        ASSERT_EQ(root_.resolution(), GetParam());
    }

    // Only openat2 follows links (those that stay beneath the root); the walk refuses every one.
    bool followsLinks() const { return GetParam() == Resolution::Openat2; }
    std::string inRoot(std::string_view relative) const { return folder_.path() + "/" + std::string(relative); }
    std::string outside() const { return folder_.path() + "/../outside"; }
    void link(const std::string& target, std::string_view name) const {
        ASSERT_EQ(::symlink(target.c_str(), inRoot(name).c_str()), 0) << name << ": " << std::strerror(errno);
    }
    // The errno each way refuses a path with: openat2 says EXDEV for whatever leads out of the root (and for an
    // absolute link, wherever it points); the walk says ELOOP for a link as the last component (O_NOFOLLOW) and
    // ENOTDIR for a link as a directory component (O_DIRECTORY | O_NOFOLLOW opens no link as a directory).
    void expectRefused(std::string_view path, int openat2Error, int walkError) const {
        const Opened opened = openBeneath(root_, path);
        EXPECT_FALSE(opened.ok()) << path << " was opened: " << preview(opened.fd.get());
        const int expected = followsLinks() ? openat2Error : walkError;
        EXPECT_EQ(opened.error, expected) << path << ": " << errorName(opened.error) << ", not " << errorName(expected);
    }
    void expectContent(std::string_view path, std::string_view content) const {
        const Opened opened = openBeneath(root_, path);
        ASSERT_TRUE(opened.ok()) << path << ": " << errorName(opened.error);
        EXPECT_EQ(readAll(opened.fd.get()), content) << path;
    }

    TemporaryFolder folder_;
    FileRoot root_;
};

std::string resolutionName(const ::testing::TestParamInfo<Resolution>& info) {
    return info.param == Resolution::Openat2 ? "openat2" : "noFollowWalk";
}

INSTANTIATE_TEST_SUITE_P(Ways, FileRootOpen, ::testing::Values(Resolution::Openat2, Resolution::NoFollowWalk),
                         resolutionName);

TEST_P(FileRootOpen, OpensAFileANestedFileAndADirectory) {
    expectContent("hello.txt", "hello");
    expectContent("sub/nested/deep.txt", "deep");

    const Opened file = openBeneath(root_, "hello.txt");
    ASSERT_TRUE(file.ok());
    const int flags = ::fcntl(file.fd.get(), F_GETFL);
    EXPECT_EQ(flags & O_ACCMODE, O_RDONLY);
    EXPECT_NE(flags & O_NONBLOCK, 0);
    EXPECT_NE(::fcntl(file.fd.get(), F_GETFD) & FD_CLOEXEC, 0);

    for (const char* directory : {"sub", "sub/nested"}) {
        const Opened opened = openBeneath(root_, directory);
        ASSERT_TRUE(opened.ok()) << directory << ": " << errorName(opened.error);
        EXPECT_TRUE(S_ISDIR(statusOf(opened.fd.get()).st_mode)) << directory;
    }
    // The empty path is the root itself.
    const Opened self = openBeneath(root_, "");
    ASSERT_TRUE(self.ok()) << errorName(self.error);
    struct stat root {};
    ASSERT_EQ(::stat(folder_.path().c_str(), &root), 0);
    EXPECT_EQ(statusOf(self.fd.get()).st_ino, root.st_ino);
}

TEST_P(FileRootOpen, WhatIsNotThereIsENOENT) {
    for (const char* path : {"nothing.txt", "sub/nothing.txt", "nothing/deep.txt", "sub/nested/nothing/"}) {
        const Opened opened = openBeneath(root_, path);
        EXPECT_FALSE(opened.ok()) << path;
        EXPECT_EQ(opened.error, ENOENT) << path << ": " << errorName(opened.error);
    }
    // A file taken for a folder.
    for (const char* path : {"hello.txt/x", "sub/nested/deep.txt/"}) {
        const Opened opened = openBeneath(root_, path);
        EXPECT_FALSE(opened.ok()) << path;
        EXPECT_EQ(opened.error, ENOTDIR) << path << ": " << errorName(opened.error);
    }
}

TEST_P(FileRootOpen, ALinkThatStaysBeneathIsFollowedByOpenat2AndRefusedByTheWalk) {
    link("hello.txt", "alias.txt");
    link("../hello.txt", "sub/up.txt");
    link("sub/nested", "linked-folder");
    if (followsLinks()) {
        expectContent("alias.txt", "hello");
        expectContent("sub/up.txt", "hello");
        expectContent("linked-folder/deep.txt", "deep");
    } else {
        expectRefused("alias.txt", 0, ELOOP);
        expectRefused("sub/up.txt", 0, ELOOP);
        expectRefused("linked-folder/deep.txt", 0, ENOTDIR);
    }
}

TEST_P(FileRootOpen, ARelativeLinkOutOfTheRootIsRefused) {
    link("../outside/secret.txt", "escape.txt");
    link("../../outside/secret.txt", "sub/escape.txt");
    // Out and back in again: a path that leaves the root on the way is refused, wherever it ends.
    link("../root/hello.txt", "round-trip.txt");
    expectRefused("escape.txt", EXDEV, ELOOP);
    expectRefused("sub/escape.txt", EXDEV, ELOOP);
    expectRefused("round-trip.txt", EXDEV, ELOOP);
}

TEST_P(FileRootOpen, AnAbsoluteLinkIsRefusedWhereverItPoints) {
    link(inRoot("hello.txt"), "absolute-inside.txt");
    link(outside() + "/secret.txt", "absolute-outside.txt");
    // RESOLVE_BENEATH refuses an absolute link even to a file beneath the root (openat2(2): "absolute symbolic
    // links ... will be rejected").
    expectRefused("absolute-inside.txt", EXDEV, ELOOP);
    expectRefused("absolute-outside.txt", EXDEV, ELOOP);
}

TEST_P(FileRootOpen, ALinkedFolderLeadingOutIsRefused) {
    link("../outside", "out");
    link(outside(), "absolute-out");
    link("/etc", "etc");
    expectRefused("out/secret.txt", EXDEV, ENOTDIR);
    expectRefused("absolute-out/secret.txt", EXDEV, ENOTDIR);
    expectRefused("etc/passwd", EXDEV, ENOTDIR);
    // The link itself, as the last component, is refused too (it names a folder outside).
    expectRefused("out", EXDEV, ELOOP);
}

TEST_P(FileRootOpen, AMagicLinkIsNeverFollowed) {
    // In the tree: a link to /proc/self/root, the process's view of "/" (absolute, so EXDEV with openat2).
    link("/proc/self/root", "proc-root");
    expectRefused("proc-root/etc/passwd", EXDEV, ENOTDIR);

    // A root whose own entries are magic links: /proc/self/root and /proc/self/fd/<n> jump anywhere without a path
    // (RESOLVE_NO_MAGICLINKS: ELOOP).
    FileRoot proc;
    ASSERT_TRUE(proc.openDirectory("/proc/self", GetParam())) << std::strerror(errno);
    const Descriptor secret(::open((outside() + "/secret.txt").c_str(), O_RDONLY | O_CLOEXEC));
    ASSERT_GE(secret.get(), 0);
    const std::string secretLink = "fd/" + std::to_string(secret.get());
    struct Case {
        std::string path;
        int openat2Error;
        int walkError;
    };
    for (const Case& refused : {Case{"root/etc/passwd", ELOOP, ENOTDIR}, Case{secretLink, ELOOP, ELOOP},
                                Case{"cwd", ELOOP, ELOOP}, Case{"exe", ELOOP, ELOOP}}) {
        const Opened opened = openBeneath(proc, refused.path);
        EXPECT_FALSE(opened.ok()) << refused.path << " was opened: " << preview(opened.fd.get());
        const int expected = followsLinks() ? refused.openat2Error : refused.walkError;
        EXPECT_EQ(opened.error, expected)
            << refused.path << ": " << errorName(opened.error) << ", not " << errorName(expected);
    }
    // An ordinary file of the same root opens: the refusals above are the links', not /proc's.
    const Opened status = openBeneath(proc, "status");
    ASSERT_TRUE(status.ok()) << errorName(status.error);
    EXPECT_NE(readAll(status.fd.get()).find("Name:"), std::string::npos);
}

TEST_P(FileRootOpen, AFifoOpensWithoutBlocking) {
    ASSERT_EQ(::mkfifo(inRoot("pipe").c_str(), 0600), 0);
    // Without O_NONBLOCK, opening a FIFO for reading waits for a writer: open() runs on another thread so that
    // the test fails instead of hanging, and a writer is opened to release it if it blocked.
    auto opening = std::async(std::launch::async, [this] { return openBeneath(root_, "pipe"); });
    if (opening.wait_for(std::chrono::seconds(2)) != std::future_status::ready) {
        const Descriptor writer(::open(inRoot("pipe").c_str(), O_RDWR | O_CLOEXEC));
        ADD_FAILURE() << "opening a FIFO blocked";
    }
    const Opened pipe = opening.get();
    ASSERT_TRUE(pipe.ok()) << errorName(pipe.error);
    EXPECT_TRUE(S_ISFIFO(statusOf(pipe.fd.get()).st_mode));
    EXPECT_NE(::fcntl(pipe.fd.get(), F_GETFL) & O_NONBLOCK, 0);
}

TEST_P(FileRootOpen, APathOfTheStackLimitOrLongerIsENAMETOOLONG) {
    // One byte short of the limit reaches the kernel (and the file system, which has no "a"): ENOENT.
    std::string path;
    while (path.size() < FileRoot::kMaxStackPathBytes - 1)
        path += path.size() + 2 < FileRoot::kMaxStackPathBytes - 1 ? "a/" : "a";
    ASSERT_EQ(path.size(), FileRoot::kMaxStackPathBytes - 1);
    const Opened shortEnough = openBeneath(root_, path);
    EXPECT_FALSE(shortEnough.ok());
    EXPECT_EQ(shortEnough.error, ENOENT) << errorName(shortEnough.error);

    for (const std::size_t length :
         {FileRoot::kMaxStackPathBytes, FileRoot::kMaxStackPathBytes + 1, std::size_t{1024 * 1024}}) {
        std::string tooLong(length, 'a');
        const Opened opened = openBeneath(root_, tooLong);
        EXPECT_FALSE(opened.ok()) << length;
        EXPECT_EQ(opened.error, ENAMETOOLONG) << length << ": " << errorName(opened.error);
    }
}

TEST_P(FileRootOpen, DotDotAndALeadingSlashAreRefused) {
    for (const std::string& path :
         {std::string(".."), std::string("../outside/secret.txt"), std::string("sub/../../outside/secret.txt"),
          std::string("sub/nested/../../../outside/secret.txt"), std::string("/etc/passwd"), inRoot("hello.txt")}) {
        expectRefused(path, EXDEV, EXDEV);
    }
    // ".." that stays beneath the root: openat2 allows it, the walk refuses every ".." (RequestPath passes none).
    if (followsLinks()) {
        expectContent("sub/../hello.txt", "hello");
    } else {
        expectRefused("sub/../hello.txt", 0, EXDEV);
        expectRefused("sub/..", 0, EXDEV);
    }
}

TEST_P(FileRootOpen, TheRootRenamedAfterOpeningIsStillTheOneOpened) {
    const std::string original = folder_.path();
    ASSERT_EQ(::rename(original.c_str(), (original + "-moved").c_str()), 0) << std::strerror(errno);
    // Another folder takes the old name, with another file of the same name: the root holds a descriptor of the
    // folder it opened, not its path.
    folder_.write("hello.txt", "impostor");
    expectContent("hello.txt", "hello");
    expectContent("sub/nested/deep.txt", "deep");
    EXPECT_EQ(root_.path(), original);
}

TEST(FileRootDirectory, AutomaticPicksOpenat2WhereTheKernelHasIt) {
    utsname system{};
    ASSERT_EQ(::uname(&system), 0);
    int major = 0;
    int minor = 0;
    ASSERT_EQ(std::sscanf(system.release, "%d.%d", &major, &minor), 2) << system.release;
    if (major < 5 || (major == 5 && minor < 6)) GTEST_SKIP() << "no openat2 before Linux 5.6: " << system.release;
    TemporaryFolder folder;
    folder.write("hello.txt", "hello");
    ASSERT_EQ(::symlink("hello.txt", (folder.path() + "/alias.txt").c_str()), 0);
    FileRoot root;
    EXPECT_EQ(root.resolution(), Resolution::Automatic);
    ASSERT_TRUE(root.openDirectory(folder.path()));
    EXPECT_EQ(root.resolution(), Resolution::Openat2);
    // And it is what open() uses: a link beneath the root is followed.
    const Opened alias = openBeneath(root, "alias.txt");
    ASSERT_TRUE(alias.ok()) << errorName(alias.error);
    EXPECT_EQ(readAll(alias.fd.get()), "hello");
}

TEST(FileRootDirectory, OpeningAFileOrAMissingFolderFailsWithErrno) {
    TemporaryFolder folder;
    folder.write("file.txt", "x");
    struct Case {
        std::string directory;
        int error;
    };
    for (const Case& refused : {Case{folder.path() + "/file.txt", ENOTDIR}, Case{folder.path() + "/missing", ENOENT},
                                Case{folder.path() + "/missing/deeper", ENOENT}, Case{"", ENOENT}}) {
        FileRoot root;
        errno = 0;
        EXPECT_FALSE(root.openDirectory(refused.directory)) << refused.directory;
        EXPECT_EQ(errno, refused.error) << refused.directory << ": " << errorName(errno);
        EXPECT_FALSE(root.isOpen()) << refused.directory;
        errno = 0;
        EXPECT_EQ(root.open("file.txt"), -1);
        EXPECT_EQ(errno, EBADF);
    }
}

TEST(FileRootDirectory, AMoveLeavesTheSourceClosed) {
    TemporaryFolder folder;
    folder.write("hello.txt", "hello");
    FileRoot first;
    ASSERT_TRUE(first.openDirectory(folder.path(), Resolution::NoFollowWalk));

    FileRoot second(std::move(first));
    EXPECT_FALSE(first.isOpen());  // NOLINT(bugprone-use-after-move): the moved-from state is what is tested
    errno = 0;
    EXPECT_EQ(first.open("hello.txt"), -1);
    EXPECT_EQ(errno, EBADF);
    ASSERT_TRUE(second.isOpen());
    EXPECT_EQ(second.path(), folder.path());
    EXPECT_EQ(second.resolution(), Resolution::NoFollowWalk);
    const Opened fromSecond = openBeneath(second, "hello.txt");
    ASSERT_TRUE(fromSecond.ok()) << errorName(fromSecond.error);
    EXPECT_EQ(readAll(fromSecond.fd.get()), "hello");

    // Assigning over an open root closes the descriptor it held.
    TemporaryFolder other;
    other.write("other.txt", "other");
    FileRoot third;
    ASSERT_TRUE(third.openDirectory(other.path(), Resolution::Openat2));
    const std::size_t descriptorsBefore = openDescriptors();
    third = std::move(second);
    EXPECT_EQ(openDescriptors(), descriptorsBefore - 1);
    EXPECT_FALSE(second.isOpen());  // NOLINT(bugprone-use-after-move)
    errno = 0;
    EXPECT_EQ(second.open("hello.txt"), -1);
    EXPECT_EQ(errno, EBADF);
    ASSERT_TRUE(third.isOpen());
    EXPECT_EQ(third.resolution(), Resolution::NoFollowWalk);
    EXPECT_EQ(third.path(), folder.path());
    const Opened fromThird = openBeneath(third, "hello.txt");
    ASSERT_TRUE(fromThird.ok()) << errorName(fromThird.error);
    EXPECT_EQ(readAll(fromThird.fd.get()), "hello");
    EXPECT_FALSE(openBeneath(third, "other.txt").ok());

    // The source's destructor closes nothing more, and a moved-from root may be opened again.
    ASSERT_TRUE(first.openDirectory(other.path()));  // NOLINT(bugprone-use-after-move)
    const Opened again = openBeneath(first, "other.txt");
    ASSERT_TRUE(again.ok()) << errorName(again.error);
    EXPECT_EQ(readAll(again.fd.get()), "other");
}

// A root of "/" with FollowLinks (HttpResponse::sendFile without a root) opens what open(2) would, links included.
TEST(FileRootFollowLinks, FollowsLinksWhereverTheyLead) {
    TemporaryFolder folder;
    folder.write("../outside/secret.txt", "secret");
    const std::string link = folder.path() + "/link.txt";
    ASSERT_EQ(::symlink((folder.path() + "/../outside/secret.txt").c_str(), link.c_str()), 0);
    FileRoot root;
    ASSERT_TRUE(root.openDirectory("/", Resolution::FollowLinks));
    EXPECT_EQ(root.resolution(), Resolution::FollowLinks);
    const int fd = root.open(std::string_view(link).substr(1));
    ASSERT_GE(fd, 0) << std::strerror(errno);
    char bytes[16] = {};
    EXPECT_EQ(::pread(fd, bytes, sizeof bytes, 0), 6);
    EXPECT_STREQ(bytes, "secret");
    ::close(fd);
}

}  // namespace
}  // namespace loopwire::test
