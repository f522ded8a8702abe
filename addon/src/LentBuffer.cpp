#include "LentBuffer.h"

namespace loopwire::addon {

LentBuffer::LentBuffer(v8::Isolate* isolate, std::string_view bytes) {
    if (bytes.empty()) {
        buffer_ = v8::ArrayBuffer::New(isolate, 0);
        return;
    }
    // The memory belongs to the loop: V8 gets a backing store that frees nothing.
    std::shared_ptr<v8::BackingStore> store = v8::ArrayBuffer::NewBackingStore(
        const_cast<char*>(bytes.data()), bytes.size(), v8::BackingStore::EmptyDeleter, nullptr);
    buffer_ = v8::ArrayBuffer::New(isolate, std::move(store));
}

LentBuffer::~LentBuffer() {
    // Without a detach key, detaching cannot fail (FromMaybe only reads the result); a buffer that is detached
    // already stays so.
    buffer_->Detach(v8::Local<v8::Value>()).FromMaybe(false);
}

}  // namespace loopwire::addon
