// ByteBuffer: a growable byte queue: append at the back, consume from the front.
//
// Used for a socket's backpressure and a connection's partial request head. It keeps its capacity when
// drained, so a connection that needed it once does not allocate again; release() gives the memory back.
// Allocates (operator new) only when an append exceeds the capacity. Not thread-safe.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace loopwire {

class ByteBuffer {
public:
    ByteBuffer() noexcept = default;
    ~ByteBuffer();
    ByteBuffer(ByteBuffer&& other) noexcept;
    ByteBuffer& operator=(ByteBuffer&& other) noexcept;
    ByteBuffer(const ByteBuffer&) = delete;
    ByteBuffer& operator=(const ByteBuffer&) = delete;

    bool empty() const noexcept { return begin_ == end_; }
    std::size_t size() const noexcept { return end_ - begin_; }
    std::size_t capacity() const noexcept { return capacity_; }
    char* data() noexcept { return storage_ + begin_; }
    const char* data() const noexcept { return storage_ + begin_; }
    std::string_view view() const noexcept { return {storage_ + begin_, size()}; }

    void append(std::string_view bytes);
    // Makes room for `bytes` more at the back and returns where they go; commit(n) then adds n of them.
    char* prepare(std::size_t bytes);
    // Makes room for at least `minimum` more bytes as prepare() does, and returns all the room there is behind the
    // live bytes: a reader that fills what it gets grows the buffer only when less than `minimum` is left.
    std::span<char> prepareAtLeast(std::size_t minimum);
    void commit(std::size_t bytes) noexcept { end_ += bytes; }
    // Drops `bytes` from the front.
    void consume(std::size_t bytes) noexcept;
    // Keeps the first `size` bytes (at most size()), dropping the rest from the back.
    void truncate(std::size_t size) noexcept {
        if (size < this->size()) end_ = begin_ + size;
    }
    void clear() noexcept { begin_ = end_ = 0; }
    // Frees the storage.
    void release() noexcept;

private:
    char* storage_ = nullptr;
    std::size_t begin_ = 0;
    std::size_t end_ = 0;
    std::size_t capacity_ = 0;
};

}  // namespace loopwire
