// BodyBuffers: a free list of request-body buffers for servers that collect bodies arriving in pieces. A request
// takes a buffer when its handler starts and gives it back when it ends or is aborted; buffers keep their
// capacity, so in the steady state collecting a body allocates nothing. Loop thread only; the pool must outlive
// every request holding one of its buffers.
#pragma once

#include <memory>
#include <string>
#include <vector>

class BodyBuffers {
public:
    std::string* acquire() {
        if (free_.empty()) {
            owned_.push_back(std::make_unique<std::string>());
            return owned_.back().get();
        }
        std::string* buffer = free_.back();
        free_.pop_back();
        return buffer;
    }

    void release(std::string* buffer) {
        buffer->clear();
        free_.push_back(buffer);
    }

private:
    std::vector<std::unique_ptr<std::string>> owned_;
    std::vector<std::string*> free_;
};
