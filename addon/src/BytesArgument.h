// BytesArgument: the bytes of an argument that uWebSockets.js calls a "RecognizedString": a string (sent as
// UTF-8), an ArrayBuffer, a SharedArrayBuffer, or any ArrayBufferView (Buffer, every TypedArray, DataView).
// undefined reads as empty, as in uWebSockets.js.
//
// Binary arguments are not copied: view() points into their backing store, valid until JavaScript runs again
// (so use it before calling anything that may run JavaScript). A string is encoded into inline storage when it
// fits (kInlineBytes), else into one heap buffer sized for it: short strings, the common case for headers and
// bodies, cost no allocation. A small TypedArray whose bytes still live on the V8 heap is copied inline rather
// than made to allocate a backing store. Not copyable (view() may point into the object itself).
#pragma once

#include "V8Headers.h"

#include <cstddef>
#include <memory>
#include <string_view>

namespace loopwire::addon {

class BytesArgument {
public:
    static constexpr std::size_t kInlineBytes = 512;

    BytesArgument() noexcept = default;
    BytesArgument(const BytesArgument&) = delete;
    BytesArgument& operator=(const BytesArgument&) = delete;

    // Reads value. Returns false, throwing nothing, when value is none of the recognized types; the caller throws
    // a TypeError that names the argument.
    bool read(v8::Isolate* isolate, v8::Local<v8::Value> value);

    std::string_view view() const noexcept { return {data_, size_}; }

private:
    char* storageFor(std::size_t bytes);

    const char* data_ = "";
    std::size_t size_ = 0;
    std::unique_ptr<char[]> heap_;
    char inline_[kInlineBytes];
};

}  // namespace loopwire::addon
