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
    // The levels of variants made once and served many times (docs/decisions/compression.md: at most about 1.5 µs
    // per byte of CPU for brotli at 11 on the files kept, up to StaticMount::kMaxCachedFileBytes).
    static constexpr int kBrotliLevel = 11;
    static constexpr int kZstdLevel = 19;
    static constexpr int kGzipLevel = 9;
    static int levelOf(compress::ContentCoding coding) noexcept;

    struct Result {
        StaticMount* mount = nullptr;
        std::shared_ptr<CachedFile> entry;
        compress::ContentCoding coding = compress::ContentCoding::Identity;
        std::string body;  // empty when the coding failed or did not make the file smaller
    };

    explicit CompressionWorker(Loop& loop);
    ~CompressionWorker();
    CompressionWorker(const CompressionWorker&) = delete;
    CompressionWorker& operator=(const CompressionWorker&) = delete;

    // Queues entry's body for coding; mount->addCompressedVariant(result) runs on the loop when it is done. Starts
    // the thread on first use.
    void schedule(StaticMount* mount, std::shared_ptr<CachedFile> entry, compress::ContentCoding coding);

    // Jobs queued or running, for tests and stats (any thread).
    std::size_t pending() const;

private:
    struct Alive {};
    void run();

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
