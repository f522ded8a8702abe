#include "Errors.h"

namespace loopwire::addon {

namespace {

v8::Local<v8::String> messageString(v8::Isolate* isolate, const char* message) {
    // The messages are ASCII literals: creating the string cannot fail short of running out of V8 heap, where
    // V8 itself reports a fatal error first.
    return v8::String::NewFromUtf8(isolate, message).ToLocalChecked();
}

}  // namespace

void throwTypeError(v8::Isolate* isolate, const char* message) {
    isolate->ThrowException(v8::Exception::TypeError(messageString(isolate, message)));
}

void throwRangeError(v8::Isolate* isolate, const char* message) {
    isolate->ThrowException(v8::Exception::RangeError(messageString(isolate, message)));
}

void throwError(v8::Isolate* isolate, const char* message) {
    isolate->ThrowException(v8::Exception::Error(messageString(isolate, message)));
}

}  // namespace loopwire::addon
