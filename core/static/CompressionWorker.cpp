#include "CompressionWorker.h"

#include "StaticMount.h"
#include "compress/Encoder.h"
#include "loop/Loop.h"

namespace loopwire::files {

int CompressionWorker::levelOf(compress::ContentCoding coding) noexcept {
    switch (coding) {
        case compress::ContentCoding::Brotli:
            return kBrotliLevel;
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
        jobs_.clear();
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void CompressionWorker::schedule(StaticMount* mount, std::shared_ptr<CachedFile> entry,
                                 compress::ContentCoding coding) {
    auto job = std::make_unique<Result>();
    job->mount = mount;
    job->entry = std::move(entry);
    job->coding = coding;
    {
        std::lock_guard lock(mutex_);
        jobs_.push_back(std::move(job));
        if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    }
    wake_.notify_one();
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
        const std::string& plain = job->entry->body;
        if (compress::compressWhole(job->coding, levelOf(job->coding), plain, coded) && coded.size() < plain.size()) {
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
