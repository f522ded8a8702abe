#include "NumberArgument.h"

#include "Errors.h"

#include <cmath>
#include <string>

namespace loopwire::addon {

std::optional<double> numberValue(v8::Isolate* isolate, v8::Local<v8::Value> value) {
    if (value->IsNumber()) return value.As<v8::Number>()->Value();
    if (!value->IsString()) return std::nullopt;
    // JavaScript's own conversion of a string to a number (never throws for a string).
    v8::Local<v8::Number> number;
    if (!value->ToNumber(isolate->GetCurrentContext()).ToLocal(&number)) return std::nullopt;
    double converted = number->Value();
    if (std::isnan(converted)) return std::nullopt;
    return converted;
}

namespace {

std::optional<double> readNumber(v8::Isolate* isolate, v8::Local<v8::Value> value, const char* what) {
    std::optional<double> number = numberValue(isolate, value);
    if (!number) {
        std::string message = std::string(what) + " must be a number (or a string holding one)";
        throwTypeError(isolate, message.c_str());
    }
    return number;
}

}  // namespace

std::optional<std::uint64_t> readSize(v8::Isolate* isolate, v8::Local<v8::Value> value, const char* what) {
    std::optional<double> number = readNumber(isolate, value, what);
    if (!number) return std::nullopt;
    if (!(*number >= 0 && *number <= kMaxSafeInteger) || std::floor(*number) != *number) {
        std::string message = std::string(what) + " must be an integer from 0 to 2^53 - 1";
        throwRangeError(isolate, message.c_str());
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(*number);
}

std::optional<std::uint32_t> readInteger(v8::Isolate* isolate, v8::Local<v8::Value> value, std::uint32_t max,
                                         const char* what) {
    std::optional<double> number = readNumber(isolate, value, what);
    if (!number) return std::nullopt;
    if (!(*number >= 0 && *number <= max) || std::floor(*number) != *number) {
        std::string message = std::string(what) + " must be an integer from 0 to " + std::to_string(max);
        throwRangeError(isolate, message.c_str());
        return std::nullopt;
    }
    return static_cast<std::uint32_t>(*number);
}

}  // namespace loopwire::addon
