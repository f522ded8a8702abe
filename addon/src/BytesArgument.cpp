#include "BytesArgument.h"

#include "V8Compat.h"

namespace loopwire::addon {

// The longest UTF-8 encoding of one UTF-16 code unit: a lone surrogate becomes U+FFFD, and a pair (two units)
// becomes 4 bytes, so 3 bytes per unit always suffice.
constexpr std::size_t kMaxUtf8BytesPerUnit = 3;

char* BytesArgument::storageFor(std::size_t bytes) {
    if (bytes <= kInlineBytes) return inline_;
    heap_.reset(new char[bytes]);
    return heap_.get();
}

bool BytesArgument::read(v8::Isolate* isolate, v8::Local<v8::Value> value) {
    if (value->IsString()) {
        v8::Local<v8::String> string = value.As<v8::String>();
        std::size_t units = static_cast<std::size_t>(string->Length());
        // Skipping the length pass when the worst case fits inline makes short strings one pass over the text.
        std::size_t capacity =
            units * kMaxUtf8BytesPerUnit <= kInlineBytes ? kInlineBytes : compat::utf8Length(isolate, string);
        char* out = storageFor(capacity);
        size_ = compat::writeUtf8(isolate, string, out, capacity);
        data_ = out;
        return true;
    }
    if (value->IsArrayBufferView()) {
        v8::Local<v8::ArrayBufferView> view = value.As<v8::ArrayBufferView>();
        size_ = view->ByteLength();
        if (size_ == 0) {
            data_ = "";
        } else if (view->HasBuffer()) {
            // Asking a view without a buffer for one would move its bytes off the V8 heap (an allocation).
            data_ = static_cast<const char*>(view->Buffer()->Data()) + view->ByteOffset();
        } else {
            char* out = storageFor(size_);
            size_ = view->CopyContents(out, size_);
            data_ = out;
        }
        return true;
    }
    if (value->IsArrayBuffer()) {
        v8::Local<v8::ArrayBuffer> buffer = value.As<v8::ArrayBuffer>();
        size_ = buffer->ByteLength();
        data_ = size_ == 0 ? "" : static_cast<const char*>(buffer->Data());
        return true;
    }
    if (value->IsSharedArrayBuffer()) {
        v8::Local<v8::SharedArrayBuffer> buffer = value.As<v8::SharedArrayBuffer>();
        size_ = buffer->ByteLength();
        data_ = size_ == 0 ? "" : static_cast<const char*>(buffer->Data());
        return true;
    }
    if (value->IsUndefined()) {
        data_ = "";
        size_ = 0;
        return true;
    }
    return false;
}

}  // namespace loopwire::addon
