// SequentialStrings: the bytes of a JavaScript string read where V8 keeps them, when it keeps them in one piece as
// one byte per character (a sequential one-byte string: string literals, most strings a program builds, every
// string V8 has flattened).
//
// V8's API copies a string out with String::WriteOneByte (or WriteOneByteV2), a call that looks the string up
// through a handle, checks its shape, flattens it if need be and copies: about 200 instructions for a short
// header name, and a request that writes three headers and a body reads seven strings (plus the IsOneByte and
// Length calls before each). V8's own inline code reads a heap object's instance type without a call
// (Internals::GetInstanceType, which the inline String::GetExternalStringResourceBase uses); bytesOf() reads the
// type that way and, for a sequential one-byte string, its length and characters at the offsets where they lie.
//
// The offsets and the type's tag are learned once per process, not copied from V8's headers (which do not name
// them): learn() makes strings of known text with V8's API (short and long, normal and internalized), reads their
// type, finds the text and its length in their memory, and checks that every probe agrees with what V8's API
// copies out. Only then does bytesOf() read directly; on any V8 where the probes disagree (another layout, pointer
// compression's 4-byte tagged words, a sandbox), it answers false and the caller takes V8's API, as before.
//
// The bytes are valid until V8 next allocates on its heap (a collection may move the string): copy them before
// calling anything that may (another string's flattening, making a value, running JavaScript). Loop thread.
#pragma once

#include "V8Headers.h"

#include <atomic>
#include <cstdint>
#include <string_view>

namespace loopwire::addon {

class SequentialStrings {
public:
    // Learns where a sequential one-byte string keeps its length and characters; does nothing once learned.
    // Returns whether bytesOf() reads directly.
    static bool learn(v8::Isolate* isolate);

    // Whether bytesOf() reads directly (for the counting build's tests).
    static bool isDirect() noexcept { return charsOffset_.load(std::memory_order_relaxed) != kUnknown; }

    // When string is a sequential one-byte string (and the layout is learned): sets bytes to its characters, as
    // Latin-1 bytes, and returns true. Otherwise returns false and leaves bytes alone.
    static bool bytesOf(v8::Local<v8::String> string, std::string_view& bytes) noexcept {
        // Acquire: a worker may read what another thread learned (on x86-64, a plain load).
        const int charsOffset = charsOffset_.load(std::memory_order_acquire);
        if (charsOffset == kUnknown) return false;
        const v8::internal::Address tagged = v8::internal::ValueHelper::ValueAsAddress(*string);
        using Internals = v8::internal::Internals;
        if ((Internals::GetInstanceType(tagged) & Internals::kStringRepresentationAndEncodingMask) != tag_) {
            return false;
        }
        const char* object = reinterpret_cast<const char*>(tagged - v8::internal::kHeapObjectTag);
        std::int32_t length;
        __builtin_memcpy(&length, object + lengthOffset_, sizeof length);
        bytes = std::string_view(object + charsOffset, static_cast<std::size_t>(length));
        return true;
    }

private:
    static constexpr int kUnknown = -1;

    static bool learnLayout(v8::Isolate* isolate);

    static inline std::atomic<int> charsOffset_{kUnknown};
    static inline int lengthOffset_ = 0;
    static inline int tag_ = -1;  // the instance type's representation and encoding bits of such a string
    static inline std::atomic<bool> learned_{false};
};

}  // namespace loopwire::addon
