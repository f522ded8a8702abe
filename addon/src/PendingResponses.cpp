#include "PendingResponses.h"

#include <utility>

namespace loopwire::addon {

PendingResponses::Ref& PendingResponses::Ref::operator=(Ref&& other) noexcept {
    if (this != &other) {
        release();
        entry_ = other.entry_;
        other.entry_ = nullptr;
    }
    return *this;
}

void PendingResponses::Ref::release() noexcept {
    if (entry_ == nullptr) return;
    Entry* entry = entry_;
    entry_ = nullptr;
    if (--entry->references == 0) entry->owner->recycle(entry);
}

PendingResponses::PendingResponses(AddonState& state) : state_(state) {
    // The first block up front, so that the first pending response of the process allocates nothing either.
    addBlock();
}

PendingResponses::~PendingResponses() = default;

void PendingResponses::addBlock() {
    blocks_.push_back(std::make_unique<Entry[]>(kBlockEntries));
    Entry* block = blocks_.back().get();
    for (std::size_t i = kBlockEntries; i-- > 0;) {
        block[i].owner = this;
        block[i].nextFree = free_;
        free_ = &block[i];
    }
}

PendingResponses::Entry* PendingResponses::acquire(v8::Isolate* isolate, v8::Local<v8::Object> response) {
    if (free_ == nullptr) addBlock();
    Entry* entry = free_;
    free_ = entry->nextFree;
    entry->nextFree = nullptr;
    entry->response = Handle<v8::Object>(isolate, response);
    ++inUse_;
    return entry;
}

void PendingResponses::recycle(Entry* entry) noexcept {
    entry->response.reset();
    entry->registered = 0;
    entry->collecting = false;
    entry->collectOverflowed = false;
    entry->collectLimit = 0;
    entry->collected.reset();
    entry->collectedSize = 0;
    entry->collectedCapacity = 0;
    entry->nextFree = free_;
    free_ = entry;
    --inUse_;
}

}  // namespace loopwire::addon
