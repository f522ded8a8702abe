// GuardedBytes: a copy of some bytes that ends right before an unreadable page, so that a parser reading one
// byte past its input crashes at once instead of passing by luck. (picohttpparser's PROT_NONE page.)
#pragma once

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include <sys/mman.h>
#include <unistd.h>

namespace loopwire::lwload::test {

class GuardedBytes {
public:
    explicit GuardedBytes(std::string_view bytes) {
        const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        const std::size_t dataPages = bytes.size() / page + 1;
        length_ = (dataPages + 1) * page;
        void* base = mmap(nullptr, length_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base == MAP_FAILED) throw std::runtime_error("mmap failed");
        base_ = static_cast<char*>(base);
        if (mprotect(base_ + dataPages * page, page, PROT_NONE) != 0) throw std::runtime_error("mprotect failed");
        char* start = base_ + dataPages * page - bytes.size();
        if (!bytes.empty()) std::memcpy(start, bytes.data(), bytes.size());
        view_ = std::string_view(start, bytes.size());
    }
    ~GuardedBytes() { munmap(base_, length_); }
    GuardedBytes(const GuardedBytes&) = delete;
    GuardedBytes& operator=(const GuardedBytes&) = delete;

    std::string_view view() const noexcept { return view_; }

private:
    char* base_ = nullptr;
    std::size_t length_ = 0;
    std::string_view view_;
};

}  // namespace loopwire::lwload::test
