#include "CompressionWorker.h"

#include "StaticMount.h"
#include "compress/Encoder.h"
#include "loop/Loop.h"

#include <sys/stat.h>
#include <unistd.h>

namespace loopwire::files {

int CompressionWorker::levelOf(compress::ContentCoding coding, std::uint64_t size) noexcept {
    switch (coding) {
        case compress::ContentCoding::Brotli:
            return size <= kMaxTopLevelBytes ? kBrotliLevel : kLargeFileBrotliLevel;
        case compress::ContentCoding::Zstd:
            return kZstdLevel;
        case compress::ContentCoding::Gzip:
            return kGzipLevel;
        case compress::ContentCoding::Identity:
            return 0;
    }
    return 0;
}

CompressionWorker::CompressionWorker(Loop& loop) : loop_(loop) {}

CompressionWorker::~CompressionWorker() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        for (const auto& job : jobs_) {
            if (job->fd >= 0) ::close(job->fd);
        }
        jobs_.clear();
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void CompressionWorker::schedule(StaticMount* mount, std::shared_ptr<CachedFile> entry, compress::ContentCoding coding,
                                 int fd) {
    auto job = std::make_unique<Result>();
    job->mount = mount;
    job->entry = std::move(entry);
    job->coding = coding;
    job->fd = fd;
    {
        std::lock_guard lock(mutex_);
        jobs_.push_back(std::move(job));
        if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    }
    wake_.notify_one();
}

std::string CompressionWorker::readSource(const Result& job) {
    const FileIdentity& identity = job.entry->identity;
    std::string bytes;
    if (!StaticMount::readWhole(job.fd, identity.size, bytes)) return {};
    // Changed while read (or since the entry was made): no variant, rather than one of another version's bytes.
    struct stat status;
    if (::fstat(job.fd, &status) != 0 || FileIdentity::of(status) != identity) return {};
    return bytes;
}

std::size_t CompressionWorker::pending() const {
    std::lock_guard lock(mutex_);
    return jobs_.size() + running_;
}

void CompressionWorker::run() {
    std::unique_lock lock(mutex_);
    while (true) {
        wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (stopping_) return;
        std::unique_ptr<Result> job = std::move(jobs_.front());
        jobs_.pop_front();
        ++running_;
        lock.unlock();
        std::string coded;
        // An entry's identity and in-memory body never change once it is cached (a changed file gets a new entry),
        // so reading them here does not race with the loop.
        std::string read;
        if (job->fd >= 0) {
            read = readSource(*job);
            ::close(job->fd);
            job->fd = -1;
        }
        const std::string& plain = job->entry->bodyInMemory ? job->entry->body : read;
        if (!plain.empty() && compress::compressWhole(job->coding, levelOf(job->coding, plain.size()), plain, coded) &&
            coded.size() < plain.size()) {
            job->body = std::move(coded);
        }
        // Back to the loop, which alone touches entries and mounts; dropped there if the worker is gone by then.
        std::weak_ptr<Alive> alive = alive_;
        loop_.defer([alive = std::move(alive), result = std::move(job)]() mutable {
            if (!alive.expired()) result->mount->addCompressedVariant(*result);
        });
        lock.lock();
        --running_;
    }
}

}  // namespace loopwire::files
