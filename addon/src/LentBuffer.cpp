#include "LentBuffer.h"

#include "AddonState.h"
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
        data = holder->data();
    }
    holder->retain();
    buffer_ = v8::ArrayBuffer::New(
        isolate, store_owner_pool::share(v8::ArrayBuffer::NewBackingStore(data, bytes.size(), &releaseBlock, holder)));
}

LentBuffer::~LentBuffer() {
    // Without a detach key, detaching cannot fail (FromMaybe only reads the result); a buffer that is detached
    // already (transferred) stays so, and its copy keeps the block.
    buffer_->Detach(v8::Local<v8::Value>()).FromMaybe(false);
}

}  // namespace loopwire::addon
