// A fake of the few V8 declarations addon/src/V8Compat.h uses, one V8 generation at a time (LW_FAKE_V8, the V8
// major version: 11, 12, 13 or 14), each with the overloads that generation's real headers have, the decoys
// included: V8 12.4 and 13.6 add GetAlignedPointerFromInternalField(Isolate*, int), which a literal 0 matches, and
// V8 14 adds the (Isolate*, int, tag) one beside the tagged (int, tag). Every function records its name in
// fake::called, so that V8CompatTest can check which one the compatibility layer reached.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#ifndef LW_FAKE_V8
#error "define LW_FAKE_V8 to the V8 major version to imitate (11, 12, 13 or 14)"
#endif

namespace fake {
inline std::string called;
}

namespace v8 {

class Isolate {
public:
    static Isolate* GetCurrent() {
        static Isolate isolate;
        return &isolate;
    }
};

template <typename T>
class Local {
public:
    Local() = default;
    explicit Local(T* value) : value_(value) {}
    T* operator->() const { return value_; }
    template <typename S>
    Local<S> As() const {
        return Local<S>(reinterpret_cast<S*>(value_));
    }

private:
    T* value_ = nullptr;
};

class Data {};
class Value : public Data {};
class Context {};

#if LW_FAKE_V8 >= 14
using EmbedderDataTypeTag = std::uint16_t;
#endif

class Object : public Value {
public:
#if LW_FAKE_V8 >= 14
    void* GetAlignedPointerFromInternalField(int, EmbedderDataTypeTag) {
        fake::called = "Get(int, tag)";
        return nullptr;
    }
    void* GetAlignedPointerFromInternalField(Isolate*, int, EmbedderDataTypeTag) {
        fake::called = "Get(Isolate*, int, tag)";
        return nullptr;
    }
    void SetAlignedPointerInInternalField(int, void*, EmbedderDataTypeTag) { fake::called = "Set(int, void*, tag)"; }
    Local<Object> Clone(Isolate*) {
        fake::called = "Clone(Isolate*)";
        return Local<Object>(this);
    }
    Local<Data> GetInternalField(int) {
        fake::called = "GetInternalField -> Data";
        return Local<Data>(this);
    }
#else
    void* GetAlignedPointerFromInternalField(int) {
        fake::called = "Get(int)";
        return nullptr;
    }
#if LW_FAKE_V8 >= 12
    void* GetAlignedPointerFromInternalField(Isolate*, int) {
        fake::called = "Get(Isolate*, int)";
        return nullptr;
    }
#endif
    void SetAlignedPointerInInternalField(int, void*) { fake::called = "Set(int, void*)"; }
    Local<Object> Clone() {
        fake::called = "Clone()";
        return Local<Object>(this);
    }
    Local<Value> GetInternalField(int) {
        fake::called = "GetInternalField -> Value";
        return Local<Value>(this);
    }
#endif
    void SetInternalField(int, Local<Value>) { fake::called = "SetInternalField"; }
};

class String : public Value {
public:
#if LW_FAKE_V8 <= 13
    enum WriteOptions{NO_OPTIONS = 0, NO_NULL_TERMINATION = 2, REPLACE_INVALID_UTF8 = 8};
    int Utf8Length(Isolate*) const {
        fake::called = "Utf8Length";
        return 0;
    }
    int WriteUtf8(Isolate*, char*, int, int*, int) const {
        fake::called = "WriteUtf8";
        return 0;
    }
    int WriteOneByte(Isolate*, std::uint8_t*, int, int, int) const {
        fake::called = "WriteOneByte";
        return 0;
    }
#endif
#if LW_FAKE_V8 >= 13
    struct WriteFlags {
        enum {kNone = 0, kNullTerminate = 1, kReplaceInvalidUtf8 = 2};
    };
    std::size_t Utf8LengthV2(Isolate*) const {
        fake::called = "Utf8LengthV2";
        return 0;
    }
    std::size_t WriteUtf8V2(Isolate*, char*, std::size_t, int = WriteFlags::kNone, std::size_t* = nullptr) const {
        fake::called = "WriteUtf8V2";
        return 0;
    }
    void WriteOneByteV2(Isolate*, std::uint32_t, std::uint32_t, std::uint8_t*, int = WriteFlags::kNone) const {
        fake::called = "WriteOneByteV2";
    }
#endif
};

}  // namespace v8
