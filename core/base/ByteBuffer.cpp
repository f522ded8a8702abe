#include "ByteBuffer.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace loopwire {

ByteBuffer::~ByteBuffer() { std::free(storage_); }

ByteBuffer::ByteBuffer(ByteBuffer&& other) noexcept
    : storage_(std::exchange(other.storage_, nullptr)),
      begin_(std::exchange(other.begin_, 0)),
      end_(std::exchange(other.end_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

ByteBuffer& ByteBuffer::operator=(ByteBuffer&& other) noexcept {
    if (this != &other) {
        std::free(storage_);
        storage_ = std::exchange(other.storage_, nullptr);
        begin_ = std::exchange(other.begin_, 0);
        end_ = std::exchange(other.end_, 0);
        capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
}

void ByteBuffer::append(std::string_view bytes) {
    if (bytes.empty()) return;
    std::memcpy(prepare(bytes.size()), bytes.data(), bytes.size());
    commit(bytes.size());
}

char* ByteBuffer::prepare(std::size_t bytes) {
    if (capacity_ - end_ >= bytes) return storage_ + end_;
    std::size_t used = size();
    // Slide the live bytes to the front before growing: a queue drained from the front would otherwise creep.
    if (begin_ > 0) {
        std::memmove(storage_, storage_ + begin_, used);
        begin_ = 0;
        end_ = used;
        if (capacity_ - end_ >= bytes) return storage_ + end_;
    }
    std::size_t wanted = used + bytes;
    std::size_t grown = capacity_ < 256 ? 256 : capacity_ * 2;
    std::size_t newCapacity = grown > wanted ? grown : wanted;
    auto* grownStorage = static_cast<char*>(std::realloc(storage_, newCapacity));
    if (grownStorage == nullptr) throw std::bad_alloc();
    storage_ = grownStorage;
    capacity_ = newCapacity;
    return storage_ + end_;
}

void ByteBuffer::consume(std::size_t bytes) noexcept {
    begin_ += bytes;
    if (begin_ >= end_) begin_ = end_ = 0;
}

void ByteBuffer::release() noexcept {
    std::free(storage_);
    storage_ = nullptr;
    begin_ = end_ = capacity_ = 0;
}

}  // namespace loopwire
