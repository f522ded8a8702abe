#include <loopwire/SharedBlock.h>

namespace loopwire {

SharedBlock* SharedBlock::create(std::size_t size) { return new SharedBlock(new char[size], size); }

SharedBlock::~SharedBlock() { delete[] data_; }

// The decrement releases what this thread did with the bytes; the thread that frees acquires all of it.
void SharedBlock::release() noexcept {
    if (references_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

}  // namespace loopwire
