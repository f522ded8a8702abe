#include "BytesArgument.h"

#include "SequentialStrings.h"
#include "V8Compat.h"

#include <cstdint>
#include <cstring>

namespace loopwire::addon {

namespace {

// The thread's buffer for strings longer than the inline storage (each thread runs its own isolate, so a
// thread_local is a per-isolate buffer). One BytesArgument holds it at a time.
struct ScratchBuffer {
    std::unique_ptr<char[]> bytes;
    std::size_t capacity = 0;
    bool taken = false;
};

thread_local ScratchBuffer scratch;

}  // namespace

// The longest UTF-8 encoding of one UTF-16 code unit: a lone surrogate becomes U+FFFD, and a pair (two units)
// becomes 4 bytes, so 3 bytes per unit always suffice.
constexpr std::size_t kMaxUtf8BytesPerUnit = 3;

// Whether every byte is below 0x80 (ASCII, whose UTF-8 form is itself), eight bytes at a time; the last eight
// overlap the word before them, and 4 to 7 bytes are read as two 4-byte halves that overlap.
bool BytesArgument::isAscii(const char* bytes, std::size_t size) noexcept {
    std::uint64_t seen = 0;
    if (size >= 8) {
        std::uint64_t word;
        for (std::size_t i = 0; i + 8 < size; i += 8) {
            std::memcpy(&word, bytes + i, sizeof word);
            if ((word & kHighBits) != 0) return false;
        }
        std::memcpy(&word, bytes + size - 8, sizeof word);
        seen = word;
    } else if (size >= 4) {
        std::uint32_t first;
        std::uint32_t last;
        std::memcpy(&first, bytes, sizeof first);
        std::memcpy(&last, bytes + size - 4, sizeof last);
        seen = first | last;
    } else {
        for (std::size_t i = 0; i < size; ++i)
            seen |= static_cast<unsigned char>(bytes[i]);
    }
    return (seen & kHighBits) == 0;
}

void BytesArgument::releaseScratch() noexcept {
    scratch.taken = false;
    if (scratch.capacity > kMaxRetainedScratchBytes) {
        scratch.bytes.reset();
        scratch.capacity = 0;
    }
}

char* BytesArgument::storageFor(std::size_t bytes) {
    if (bytes <= kInlineBytes) return inline_;
    if (holdsScratch_ || !scratch.taken) {
        if (scratch.capacity < bytes) {
            // Grown in one step to what is asked (not doubled): the same body size is what comes again.
            scratch.bytes.reset(new char[bytes]);
            scratch.capacity = bytes;
        }
        scratch.taken = holdsScratch_ = true;
        return scratch.bytes.get();
    }
    heap_.reset(new char[bytes]);
    return heap_.get();
}

bool BytesArgument::readSlowly(v8::Isolate* isolate, v8::Local<v8::Value> value) {
    if (value->IsString()) {
        v8::Local<v8::String> string = value.As<v8::String>();
        std::string_view latin1;
        if (SequentialStrings::bytesOf(string, latin1) && latin1.size() > kInlineBytes) {
            // Copied at once: the bytes lie on V8's heap, where reading the next argument may move them. A
            // Latin-1 string that is not ASCII is encoded below, over the copy. (One that fits inline and is
            // ASCII was read by read() itself.)
            char* out = storageFor(latin1.size());
            if (copyAscii(out, latin1.data(), latin1.size())) {
                data_ = out;
                size_ = latin1.size();
                return true;
            }
        }
        std::size_t units = static_cast<std::size_t>(string->Length());
        if (string->IsOneByte()) {
            // The common body or header: Latin-1 and in fact ASCII. Copying its units is much cheaper than V8's
            // UTF-8 encoder (and, for a long one, than its length pass); a unit from 0x80 up needs two UTF-8
            // bytes, so such a string is encoded below, over the copy.
            char* out = storageFor(units);
            compat::writeOneByte(isolate, string, out, units);
            if (isAscii(out, units)) {
                data_ = out;
                size_ = units;
                return true;
            }
        }
        // Skipping the length pass when the worst case fits inline makes short strings one pass over the text.
        std::size_t capacity =
            units * kMaxUtf8BytesPerUnit <= kInlineBytes ? kInlineBytes : compat::utf8Length(isolate, string);
        char* out = storageFor(capacity);
        size_ = compat::writeUtf8(isolate, string, out, capacity);
        data_ = out;
        return true;
    }
    return readOther(value);
}

bool BytesArgument::readForLookup(v8::Isolate* isolate, v8::Local<v8::Value> value) {
    std::string_view latin1;
    if (value->IsString() && SequentialStrings::bytesOf(value.As<v8::String>(), latin1) &&
        isAscii(latin1.data(), latin1.size())) {
        data_ = latin1.data();
        size_ = latin1.size();
        return true;
    }
    return read(isolate, value);
}

bool BytesArgument::readOther(v8::Local<v8::Value> value) {
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
