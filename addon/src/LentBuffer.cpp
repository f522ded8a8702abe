#include "LentBuffer.h"

#include "AddonState.h"
#include "Counters.h"
#include "StoreOwnerPool.h"

#include <loopwire/SharedBlock.h>

#include <cstring>

namespace loopwire::addon {

namespace {

// V8 calls it when the last ArrayBuffer over the bytes is gone (possibly on a garbage collector thread).
void releaseBlock(void*, std::size_t, void* block) { static_cast<SharedBlock*>(block)->release(); }

}  // namespace

LentBuffer::LentBuffer(AddonState& state, std::string_view bytes, SharedBlock* holder) {
    v8::Isolate* isolate = state.isolate();
    if (bytes.empty()) {
        buffer_ = v8::ArrayBuffer::New(isolate, 0);
        return;
    }
    char* data = const_cast<char*>(bytes.data());
    if (holder == nullptr) {
        holder = &state.lendingBlock(bytes.size());
        std::memcpy(holder->data(), bytes.data(), bytes.size());
        holder->retain();
        countLentStoreMade();
        buffer_ = v8::ArrayBuffer::New(isolate, store_owner_pool::share(v8::ArrayBuffer::NewBackingStore(
                                                    holder->data(), bytes.size(), &releaseBlock, holder)));
        return;
    }
    // A backing store cannot be resized or moved, but it can back one ArrayBuffer after another: when these bytes
    // are where the last zero-copy ones were, with the same length (a protocol of fixed-size messages, a client
    // repeating a request), and nothing but this state holds that store any more (its buffer was detached, not
    // transferred), it serves again. That saves V8's BackingStore allocation, its release and the block's reference
    // counting: some 350 instructions and one of the two native allocations per chunk or message. The kept store's
    // reference keeps its block allocated, as a transferred buffer's would. Only for bytes in a block of the loop's:
    // the lending block is reused when nothing references it, which a kept store would prevent. use_count() is
    // exact when it is 1: only this thread can hand the store out again.
    std::shared_ptr<v8::BackingStore>& last = state.lastLentStore();
    if (last != nullptr && last->Data() == data && last->ByteLength() == bytes.size() && last.use_count() == 1) {
        buffer_ = v8::ArrayBuffer::New(isolate, last);
        return;
    }
    holder->retain();
    countLentStoreMade();
    last = store_owner_pool::share(v8::ArrayBuffer::NewBackingStore(data, bytes.size(), &releaseBlock, holder));
    buffer_ = v8::ArrayBuffer::New(isolate, last);
}

LentBuffer::~LentBuffer() {
    // Without a detach key, detaching cannot fail (FromMaybe only reads the result); a buffer that is detached
    // already (transferred) stays so, and its copy keeps the block.
    buffer_->Detach(v8::Local<v8::Value>()).FromMaybe(false);
}

}  // namespace loopwire::addon
