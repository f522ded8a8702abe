// BytesArgument: the bytes of an argument that uWebSockets.js calls a "RecognizedString": a string (sent as
// UTF-8), an ArrayBuffer, a SharedArrayBuffer, or any ArrayBufferView (Buffer, every TypedArray, DataView).
// undefined reads as empty, as in uWebSockets.js.
//
// Binary arguments are not copied: view() points into their backing store, valid until JavaScript runs again
// (so use it before calling anything that may run JavaScript). An ASCII string that V8 keeps in one piece is
// copied from where it lies (SequentialStrings), without a call into V8; any other string is copied or encoded
// through V8's API. A string is encoded into inline storage when it
// fits (kInlineBytes), else into the thread's scratch buffer, which is kept between calls up to
// kMaxRetainedScratchBytes: short strings, the common case for headers and bodies, and longer bodies sent again
// and again (a cached page) cost no allocation. Only a second long string read while the scratch buffer is taken
// (writeHeader's name and value both long), or a string past the retained size, gets a heap buffer of its own.
// A small TypedArray whose bytes still live on the V8 heap is copied inline rather than made to allocate a
// backing store. Not copyable (view() may point into the object itself).
#pragma once

#include "V8Headers.h"

#include <cstddef>
#include <memory>
#include <string_view>

namespace loopwire::addon {

class BytesArgument {
public:
    static constexpr std::size_t kInlineBytes = 512;
    // The scratch buffer is freed when released past this size, so that one huge string does not stay resident.
    static constexpr std::size_t kMaxRetainedScratchBytes = 64 * 1024;

    BytesArgument() noexcept = default;
    ~BytesArgument();
    BytesArgument(const BytesArgument&) = delete;
    BytesArgument& operator=(const BytesArgument&) = delete;

    // Reads value. Returns false, throwing nothing, when value is none of the recognized types; the caller throws
    // a TypeError that names the argument.
    bool read(v8::Isolate* isolate, v8::Local<v8::Value> value);
    // As read(), except that an ASCII string V8 keeps in one piece is not copied: view() points at its characters
    // on V8's heap and is valid only until V8 next allocates (making a string or any other value, running
    // JavaScript). For a key that is looked up and dropped before the answer is made (getHeader, getQuery).
    bool readForLookup(v8::Isolate* isolate, v8::Local<v8::Value> value);

    std::string_view view() const noexcept { return {data_, size_}; }

private:
    char* storageFor(std::size_t bytes);
    // read() for every value that is not a string.
    bool readOther(v8::Local<v8::Value> value);

    const char* data_ = "";
    std::size_t size_ = 0;
    std::unique_ptr<char[]> heap_;
    bool holdsScratch_ = false;
    char inline_[kInlineBytes];
};

}  // namespace loopwire::addon
