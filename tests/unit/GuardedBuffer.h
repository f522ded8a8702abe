// GuardedBuffer: bytes placed so that the last one sits right before an inaccessible (PROT_NONE) page, so that a
// parser reading even one byte past its input crashes at once (picohttpparser's and Beast's technique). Shared by
// the parsers' grinds (http/Grind.h, proxy/ProxyHeaderTest.cpp).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace loopwire::test {

// A buffer whose usable bytes end right before an inaccessible page.
class GuardedBuffer {
public:
    explicit GuardedBuffer(std::size_t capacity) {
        const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        const std::size_t usable = (capacity + page - 1) / page * page + page;  // at least one page to spare
        mapped_ = usable + page;
        void* base = ::mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base == MAP_FAILED) std::abort();
        base_ = static_cast<char*>(base);
        guard_ = base_ + usable;
        if (::mprotect(guard_, page, PROT_NONE) != 0) std::abort();
        capacity_ = usable;
    }
    ~GuardedBuffer() { ::munmap(base_, mapped_); }
    GuardedBuffer(const GuardedBuffer&) = delete;
    GuardedBuffer& operator=(const GuardedBuffer&) = delete;

    // Copies bytes so that the last one sits right before the guard page; returns where the first one went.
    char* place(std::string_view bytes) {
        if (bytes.size() > capacity_) std::abort();
        char* at = guard_ - bytes.size();
        if (!bytes.empty()) std::memcpy(at, bytes.data(), bytes.size());
        return at;
    }

private:
    char* base_ = nullptr;
    char* guard_ = nullptr;
    std::size_t mapped_ = 0;
    std::size_t capacity_ = 0;
};

}  // namespace loopwire::test
