// OptionFields: the fields of an options object a binding function takes (app.static's, app.connectPubSub's), each
// read with the error that names it: "app.static: options.maxAge must be a number".
//
// Every reader leaves its target unchanged when the field is absent or undefined, and returns false after throwing
// (a getter that threw, a value of the wrong type: TypeError; out of range: RangeError), so that calls chain with
// &&. Reading a boolean, a number in range or a string into a std::string with room for it allocates nothing (only an
// error's message does), so that options read per call (res.sendFile's) cost no allocation.
#pragma once

#include "Handle.h"
#include "V8Headers.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace loopwire::addon {

class OptionFields {
public:
    // prefix names the object in messages, e.g. "app.static: options" (fields follow after a dot); it must outlive
    // the reader.
    OptionFields(v8::Isolate* isolate, v8::Local<v8::Object> object, std::string_view prefix)
        : isolate_(isolate), object_(object), prefix_(prefix) {}

    // The field's value (undefined when absent); false when its getter threw.
    bool get(const char* name, v8::Local<v8::Value>& value);
    bool readBoolean(const char* name, bool& target);
    bool readString(const char* name, std::string& target);
    // An integer from min to max, as NumberArgument's readInteger reads one (a numeric string too).
    bool readInteger(const char* name, std::uint32_t min, std::uint32_t max, std::uint32_t& target);
    // A byte count (0 to 2^53 - 1).
    bool readSize(const char* name, std::uint64_t& target);
    // A function, or null/undefined for none (target emptied).
    bool readCallback(const char* name, Handle<v8::Function>& target);

    // "<prefix>.<name>", for messages of the caller's own checks.
    std::string nameOf(const char* name) const;
    v8::Isolate* isolate() const noexcept { return isolate_; }

private:
    void throwTypeError(const char* name, const char* expected);

    v8::Isolate* isolate_;
    v8::Local<v8::Object> object_;
    std::string_view prefix_;
};

}  // namespace loopwire::addon
