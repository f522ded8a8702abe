// SharedBlock: a block of bytes whose lifetime is shared by reference counting, for memory the server lends out.
//
// The loop's receive buffer is one: an onData chunk points into it, and a binding that lends such a chunk to a
// garbage-collected runtime (the Node addon lends it to JavaScript as an ArrayBuffer) takes a reference for as
// long as the runtime may hold it, so the bytes stay allocated even when the runtime keeps them past the
// callback (a transferred ArrayBuffer) or past the loop itself. They may be overwritten by later reads meanwhile:
// what is kept is memory, not content.
//
// create() allocates (set-up time); retain() and release() do not, and may be called from any thread (a garbage
// collector may release on its own thread); the last release() frees the block. Not copyable: hold a pointer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire {

class SharedBlock {
public:
    // A block of size bytes with one reference, the caller's.
    static SharedBlock* create(std::size_t size);

    SharedBlock(const SharedBlock&) = delete;
    SharedBlock& operator=(const SharedBlock&) = delete;

    char* data() noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    // Whether bytes lies wholly inside this block.
    bool contains(std::string_view bytes) const noexcept {
        auto begin = reinterpret_cast<std::uintptr_t>(data_);
        auto at = reinterpret_cast<std::uintptr_t>(bytes.data());
        return at >= begin && at - begin <= size_ && bytes.size() <= size_ - (at - begin);
    }

    void retain() noexcept { references_.fetch_add(1, std::memory_order_relaxed); }
    void release() noexcept;
    // True while someone besides the caller (who holds one reference) holds one.
    bool isShared() const noexcept { return references_.load(std::memory_order_acquire) > 1; }

private:
    SharedBlock(char* data, std::size_t size) noexcept : data_(data), size_(size) {}
    ~SharedBlock();

    char* data_;
    std::size_t size_;
    std::atomic<std::uint32_t> references_{1};
};

}  // namespace loopwire
