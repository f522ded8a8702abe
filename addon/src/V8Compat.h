// V8Compat: every V8 API difference between the Node versions loopwire builds against (Node 20, V8 11.3, to
// Node 26, V8 14.6), in one place. The rest of the addon calls these and never tests a version itself.
//
// Each difference is detected by asking the compiler whether the newer API exists (a requires-expression on a
// dependent type), not by comparing version numbers, so a Node in between picks whichever it has. The question is
// asked with arguments of the very types the real call passes (variables, never literals): a literal 0 is also a
// null pointer, so `Get...(0, tag)` would be answered yes by an overload taking (Isolate*, int), as V8 12.4 and
// 13.6 have, and the real call with an int index would then fail to compile (Node 24 did). tests/unit/addon/
// compiles this header against fake V8 headers that carry such decoys, one per V8 generation.
#pragma once

#include "V8Headers.h"

#include <cstddef>
#include <cstdint>

namespace loopwire::addon::compat {

// The isolate a context belongs to. V8 14 removed Context::GetIsolate; the addon only touches contexts of the
// isolate running on the current thread, which Isolate::GetCurrent returns in every version.
inline v8::Isolate* isolateOf(v8::Local<v8::Context>) { return v8::Isolate::GetCurrent(); }

// V8 14 tags every aligned pointer stored in an internal field with a type tag; older V8 has no tag.
inline constexpr std::uint16_t kPointerTag = 0;

// The native pointer stored in internal field `index` of object (set with setPointer), or null.
template <typename O = v8::Object>
inline void* getPointer(v8::Local<O> object, int index) {
    if constexpr (requires(O * o, int i, std::uint16_t tag) { o->GetAlignedPointerFromInternalField(i, tag); }) {
        return object->GetAlignedPointerFromInternalField(index, kPointerTag);
    } else {
        return object->GetAlignedPointerFromInternalField(index);
    }
}

// Stores an (at least 2-byte aligned) native pointer, or null, in internal field `index` of object.
template <typename O = v8::Object>
inline void setPointer(v8::Local<O> object, int index, void* pointer) {
    if constexpr (requires(O * o, int i, void* p, std::uint16_t tag) {
                      o->SetAlignedPointerInInternalField(i, p, tag);
                  }) {
        object->SetAlignedPointerInInternalField(index, pointer, kPointerTag);
    } else {
        object->SetAlignedPointerInInternalField(index, pointer);
    }
}

// A shallow copy of object: same map, same internal fields (V8 14 takes the isolate).
template <typename O = v8::Object>
inline v8::Local<v8::Object> clone(v8::Isolate* isolate, v8::Local<O> object) {
    if constexpr (requires(O * o, v8::Isolate * i) { o->Clone(i); }) {
        return object->Clone(isolate);
    } else {
        return object->Clone();
    }
}

// The JavaScript value in internal field `index` (V8 14 returns it as v8::Data).
inline v8::Local<v8::Value> getField(v8::Local<v8::Object> object, int index) {
    return object->GetInternalField(index).As<v8::Value>();
}

inline void setField(v8::Local<v8::Object> object, int index, v8::Local<v8::Value> value) {
    object->SetInternalField(index, value);
}

// Bytes the UTF-8 form of string takes (lone surrogates count as the 3 bytes of U+FFFD).
template <typename S = v8::String>
inline std::size_t utf8Length(v8::Isolate* isolate, v8::Local<S> string) {
    if constexpr (requires(const S* s, v8::Isolate* i) { s->Utf8LengthV2(i); }) {
        return string->Utf8LengthV2(isolate);
    } else {
        return static_cast<std::size_t>(string->Utf8Length(isolate));
    }
}

// Writes the UTF-8 form of string into buffer (no terminating NUL, lone surrogates as U+FFFD); returns the bytes
// written. capacity must be at least utf8Length(), or 3 * Length(), which always suffices.
template <typename S = v8::String>
inline std::size_t writeUtf8(v8::Isolate* isolate, v8::Local<S> string, char* buffer, std::size_t capacity) {
    if constexpr (requires(const S* s, v8::Isolate* i, char* b, std::size_t c) {
                      s->WriteUtf8V2(i, b, c, S::WriteFlags::kReplaceInvalidUtf8);
                  }) {
        return string->WriteUtf8V2(isolate, buffer, capacity, S::WriteFlags::kReplaceInvalidUtf8);
    } else {
        return static_cast<std::size_t>(string->WriteUtf8(isolate, buffer, static_cast<int>(capacity), nullptr,
                                                          S::NO_NULL_TERMINATION | S::REPLACE_INVALID_UTF8));
    }
}

// Copies the Latin-1 code units of a string whose IsOneByte() is true into buffer (no terminating NUL);
// capacity must be at least Length().
template <typename S = v8::String>
inline void writeOneByte(v8::Isolate* isolate, v8::Local<S> string, char* buffer, std::size_t length) {
    auto* out = reinterpret_cast<std::uint8_t*>(buffer);
    if constexpr (requires(const S* s, v8::Isolate* i, std::uint32_t from, std::uint32_t count, std::uint8_t* b) {
                      s->WriteOneByteV2(i, from, count, b);
                  }) {
        string->WriteOneByteV2(isolate, 0, static_cast<std::uint32_t>(length), out);
    } else {
        string->WriteOneByte(isolate, out, 0, static_cast<int>(length), S::NO_NULL_TERMINATION);
    }
}

}  // namespace loopwire::addon::compat
