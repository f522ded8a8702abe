#include "OptionFields.h"

#include "BytesArgument.h"
#include "Errors.h"
#include "NumberArgument.h"

#include <optional>

namespace loopwire::addon {

std::string OptionFields::nameOf(const char* name) const { return std::string(prefix_) + "." + name; }

void OptionFields::throwTypeError(const char* name, const char* expected) {
    addon::throwTypeError(isolate_, (nameOf(name) + " must be " + expected).c_str());
}

bool OptionFields::get(const char* name, v8::Local<v8::Value>& value) {
    v8::Local<v8::String> key = v8::String::NewFromUtf8(isolate_, name).ToLocalChecked();
    return object_->Get(isolate_->GetCurrentContext(), key).ToLocal(&value);
}

bool OptionFields::readBoolean(const char* name, bool& target) {
    v8::Local<v8::Value> value;
    if (!get(name, value)) return false;
    if (value->IsUndefined()) return true;
    if (!value->IsBoolean()) {
        throwTypeError(name, "a boolean");
        return false;
    }
    target = value->BooleanValue(isolate_);
    return true;
}

bool OptionFields::readString(const char* name, std::string& target) {
    v8::Local<v8::Value> value;
    if (!get(name, value)) return false;
    if (value->IsUndefined()) return true;
    BytesArgument bytes;
    if (!value->IsString() || !bytes.read(isolate_, value)) {
        throwTypeError(name, "a string");
        return false;
    }
    target.assign(bytes.view());
    return true;
}

bool OptionFields::readInteger(const char* name, std::uint32_t min, std::uint32_t max, std::uint32_t& target) {
    v8::Local<v8::Value> value;
    if (!get(name, value)) return false;
    if (value->IsUndefined()) return true;
    if (value->IsUint32()) {
        // The common case, checked without the name the messages need.
        const std::uint32_t number = value.As<v8::Uint32>()->Value();
        if (number >= min && number <= max) {
            target = number;
            return true;
        }
    }
    const std::string what = nameOf(name);
    std::optional<std::uint32_t> read = addon::readInteger(isolate_, value, max, what.c_str());
    if (!read) return false;
    if (*read < min) {
        throwRangeError(isolate_, (what + " must be at least " + std::to_string(min)).c_str());
        return false;
    }
    target = *read;
    return true;
}

bool OptionFields::readSize(const char* name, std::uint64_t& target) {
    v8::Local<v8::Value> value;
    if (!get(name, value)) return false;
    if (value->IsUndefined()) return true;
    if (value->IsUint32()) {
        target = value.As<v8::Uint32>()->Value();
        return true;
    }
    const std::string what = nameOf(name);
    std::optional<std::uint64_t> read = addon::readSize(isolate_, value, what.c_str());
    if (!read) return false;
    target = *read;
    return true;
}

bool OptionFields::readCallback(const char* name, Handle<v8::Function>& target) {
    v8::Local<v8::Value> value;
    if (!get(name, value)) return false;
    if (value->IsUndefined() || value->IsNull()) {
        target = {};
        return true;
    }
    if (!value->IsFunction()) {
        throwTypeError(name, "a function");
        return false;
    }
    target = Handle<v8::Function>(isolate_, value.As<v8::Function>());
    return true;
}

}  // namespace loopwire::addon
