#include "ByteBuffer.h"

#include <cstring>
#include <utility>

namespace loopwire {

ByteBuffer::~ByteBuffer() { delete[] storage_; }

ByteBuffer::ByteBuffer(ByteBuffer&& other) noexcept
    : storage_(std::exchange(other.storage_, nullptr)),
      begin_(std::exchange(other.begin_, 0)),
      end_(std::exchange(other.end_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

ByteBuffer& ByteBuffer::operator=(ByteBuffer&& other) noexcept {
    if (this != &other) {
        delete[] storage_;
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
    // operator new rather than realloc, so the allocation-counting tests see every allocation.
    auto* grownStorage = new char[newCapacity];
    if (used > 0) std::memcpy(grownStorage, storage_ + begin_, used);
    delete[] storage_;
    storage_ = grownStorage;
    begin_ = 0;
    end_ = used;
    capacity_ = newCapacity;
    return storage_ + end_;
}

std::span<char> ByteBuffer::prepareAtLeast(std::size_t minimum) {
    char* at = prepare(minimum);
    return {at, capacity_ - end_};
}

void ByteBuffer::consume(std::size_t bytes) noexcept {
    begin_ += bytes;
    if (begin_ >= end_) begin_ = end_ = 0;
}

void ByteBuffer::release() noexcept {
    delete[] storage_;
    storage_ = nullptr;
    begin_ = end_ = capacity_ = 0;
}

}  // namespace loopwire
