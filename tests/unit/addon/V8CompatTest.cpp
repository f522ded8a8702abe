// addon/src/V8Compat.h compiled against fake V8 headers (fake_v8/v8.h), once per V8 generation the addon builds
// against (LW_FAKE_V8 = 11 for Node 20, 12 for Node 22, 13 for Node 24, 14 for Node 26): each detection must pick
// the API that generation has, and must not be fooled by an overload that only matches a literal (issue 19: V8
// 13.6's GetAlignedPointerFromInternalField(Isolate*, int) answered a question asked with 0, and Node 24 failed
// to build).
#include "V8Compat.h"

#include <gtest/gtest.h>

namespace loopwire::addon {
namespace {

constexpr int kGeneration = LW_FAKE_V8;

TEST(V8Compat, InternalFieldPointersUseTheTaggedCallsFromV8Fourteen) {
    v8::Object object;
    v8::Local<v8::Object> local(&object);
    int target = 0;
    compat::setPointer(local, 2, &target);
    EXPECT_EQ(fake::called, kGeneration >= 14 ? "Set(int, void*, tag)" : "Set(int, void*)");
    compat::getPointer(local, 2);
    EXPECT_EQ(fake::called, kGeneration >= 14 ? "Get(int, tag)" : "Get(int)");
}

TEST(V8Compat, CloneTakesTheIsolateFromV8Fourteen) {
    v8::Object object;
    compat::clone(v8::Isolate::GetCurrent(), v8::Local<v8::Object>(&object));
    EXPECT_EQ(fake::called, kGeneration >= 14 ? "Clone(Isolate*)" : "Clone()");
}

TEST(V8Compat, InternalFieldsAreReadAsValues) {
    v8::Object object;
    compat::getField(v8::Local<v8::Object>(&object), 1);
    EXPECT_EQ(fake::called, kGeneration >= 14 ? "GetInternalField -> Data" : "GetInternalField -> Value");
    compat::setField(v8::Local<v8::Object>(&object), 1, v8::Local<v8::Value>(&object));
    EXPECT_EQ(fake::called, "SetInternalField");
}

TEST(V8Compat, StringsUseTheVersionTwoCallsFromV8Thirteen) {
    v8::String string;
    v8::Local<v8::String> local(&string);
    v8::Isolate* isolate = v8::Isolate::GetCurrent();
    char buffer[8];
    compat::utf8Length(isolate, local);
    EXPECT_EQ(fake::called, kGeneration >= 13 ? "Utf8LengthV2" : "Utf8Length");
    compat::writeUtf8(isolate, local, buffer, sizeof buffer);
    EXPECT_EQ(fake::called, kGeneration >= 13 ? "WriteUtf8V2" : "WriteUtf8");
    compat::writeOneByte(isolate, local, buffer, 0);
    EXPECT_EQ(fake::called, kGeneration >= 13 ? "WriteOneByteV2" : "WriteOneByte");
}

}  // namespace
}  // namespace loopwire::addon
