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

#include "SequentialStrings.h"
#include "V8Headers.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

namespace loopwire::addon {

class BytesArgument {
public:
    static constexpr std::size_t kInlineBytes = 512;
    // The scratch buffer is freed when released past this size, so that one huge string does not stay resident.
    static constexpr std::size_t kMaxRetainedScratchBytes = 64 * 1024;

    BytesArgument() noexcept = default;
    ~BytesArgument() {
        if (holdsScratch_) releaseScratch();
    }
    BytesArgument(const BytesArgument&) = delete;
    BytesArgument& operator=(const BytesArgument&) = delete;

    // Reads value. Returns false, throwing nothing, when value is none of the recognized types; the caller throws
    // a TypeError that names the argument.
    [[gnu::always_inline]] bool read(v8::Isolate* isolate, v8::Local<v8::Value> value) {
        // Inline for the common argument, a short ASCII string that V8 keeps in one piece: copied and checked in
        // one pass into the inline storage, without a call. Anything else (or a non-ASCII byte) reads slowly.
        std::string_view latin1;
        if (value->IsString() && SequentialStrings::bytesOf(value.As<v8::String>(), latin1) &&
            latin1.size() <= kInlineBytes && copyAscii(inline_, latin1.data(), latin1.size())) {
            data_ = inline_;
            size_ = latin1.size();
            return true;
        }
        return readSlowly(isolate, value);
    }
    // As read(), except that an ASCII string V8 keeps in one piece is not copied: view() points at its characters
    // on V8's heap and is valid only until V8 next allocates (making a string or any other value, running
    // JavaScript). For a key that is looked up and dropped before the answer is made (getHeader, getQuery).
    bool readForLookup(v8::Isolate* isolate, v8::Local<v8::Value> value);

    std::string_view view() const noexcept { return {data_, size_}; }

private:
    static constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;

    // Copies size bytes from in to out, eight at a time (the last word overlapping the one before it, and 4 to 7
    // bytes as two overlapping halves), and returns whether they are all ASCII.
    static bool copyAscii(char* out, const char* in, std::size_t size) noexcept {
        std::uint64_t seen = 0;
        if (size >= 8) {
            std::uint64_t word;
            for (std::size_t i = 0; i + 8 < size; i += 8) {
                std::memcpy(&word, in + i, sizeof word);
                std::memcpy(out + i, &word, sizeof word);
                seen |= word;
            }
            std::memcpy(&word, in + size - 8, sizeof word);
            std::memcpy(out + size - 8, &word, sizeof word);
            seen |= word;
        } else if (size >= 4) {
            std::uint32_t first;
            std::uint32_t last;
            std::memcpy(&first, in, sizeof first);
            std::memcpy(&last, in + size - 4, sizeof last);
            std::memcpy(out, &first, sizeof first);
            std::memcpy(out + size - 4, &last, sizeof last);
            seen = first | last;
        } else {
            for (std::size_t i = 0; i < size; ++i) {
                out[i] = in[i];
                seen |= static_cast<unsigned char>(in[i]);
            }
        }
        return (seen & kHighBits) == 0;
    }

    // Whether every byte is below 0x80, read as copyAscii() reads.
    static bool isAscii(const char* bytes, std::size_t size) noexcept;
    bool readSlowly(v8::Isolate* isolate, v8::Local<v8::Value> value);
    void releaseScratch() noexcept;
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
