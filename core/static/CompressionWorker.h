// CompressionWorker: compresses the cached files of an App's static mounts on a thread of its own, so that no request
// waits for brotli at quality 11; each variant comes back to the loop (Loop::defer), where the mount adds it to its
// entry, and is served from then on.
//
// Who calls it: StaticMount::load() schedules a job for each coding a compressible file lacks; the worker reads the
// entry's bytes (which never change once loaded: a changed file gets a new entry) and nothing else of it. The loop
// thread alone touches the entry otherwise. Jobs and results allocate (once per file and coding, not per request).
// The destructor stops the thread after the job in hand (at most one file's compression) and drops the others;
// results still on their way to the loop find the worker gone and are dropped there.
#pragma once

#include "CachedFile.h"
#include "compress/AcceptEncoding.h"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace loopwire {
class Loop;
}

namespace loopwire::files {

class StaticMount;

class CompressionWorker {
public:
    // The levels of variants made once and served many times (docs/decisions/compression.md: brotli 11 costs about
    // 1.5 µs of CPU per byte, affordable up to kMaxTopLevelBytes; larger files take brotli 9, a fifth of its time for
    // some 11 % more bytes).
    static constexpr int kBrotliLevel = 11;
    static constexpr int kLargeFileBrotliLevel = 9;
    static constexpr std::uint64_t kMaxTopLevelBytes = 1024 * 1024;
    static constexpr int kZstdLevel = 19;
    static constexpr int kGzipLevel = 9;
    static int levelOf(compress::ContentCoding coding, std::uint64_t size) noexcept;

    struct Result {
        StaticMount* mount = nullptr;
        std::shared_ptr<CachedFile> entry;
        compress::ContentCoding coding = compress::ContentCoding::Identity;
        int fd = -1;       // the file to read, when the entry's bytes are not in memory (the job's, closed by it)
        std::string body;  // empty when the coding failed or did not make the file smaller
    };

    explicit CompressionWorker(Loop& loop);
    ~CompressionWorker();
    CompressionWorker(const CompressionWorker&) = delete;
    CompressionWorker& operator=(const CompressionWorker&) = delete;

    // Queues entry's body for coding: from memory, or read from fd (taken) when it is not there, and coded only when
    // the file read is still the one entry->identity describes. mount->addCompressedVariant(result) runs on the
    // loop when it is done. Starts the thread on first use.
    void schedule(StaticMount* mount, std::shared_ptr<CachedFile> entry, compress::ContentCoding coding, int fd = -1);

    // Jobs queued or running, for tests and stats (any thread).
    std::size_t pending() const;

private:
    struct Alive {};
    void run();
    // The whole file of job->fd, when it is still the file of job->entry's identity; empty otherwise.
    static std::string readSource(const Result& job);

    Loop& loop_;
    // What results check, on the loop, before they touch a mount: gone once the worker (and the mounts) are.
    std::shared_ptr<Alive> alive_ = std::make_shared<Alive>();
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::unique_ptr<Result>> jobs_;
    std::size_t running_ = 0;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace loopwire::files
