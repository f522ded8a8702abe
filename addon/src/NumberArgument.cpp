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

// An integer from 0 to max. The message names the bound as maxText when given, else as max's digits; it is
// only formatted when the argument is refused.
std::optional<std::uint64_t> readUnsigned(v8::Isolate* isolate, v8::Local<v8::Value> value, double max,
                                          const char* maxText, const char* what) {
    std::optional<double> number = readNumber(isolate, value, what);
    if (!number) return std::nullopt;
    if (!(*number >= 0 && *number <= max) || std::floor(*number) != *number) {
        std::string bound = maxText != nullptr ? std::string(maxText) : std::to_string(static_cast<std::uint64_t>(max));
        std::string message = std::string(what) + " must be an integer from 0 to " + bound;
        throwRangeError(isolate, message.c_str());
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(*number);
}

}  // namespace

std::optional<std::uint64_t> readSize(v8::Isolate* isolate, v8::Local<v8::Value> value, const char* what) {
    return readUnsigned(isolate, value, kMaxSafeInteger, "2^53 - 1", what);
}

std::optional<std::uint32_t> readLimit(v8::Isolate* isolate, v8::Local<v8::Value> value, std::uint32_t max,
                                       const char* what) {
    std::optional<double> number = readNumber(isolate, value, what);
    if (!number) return std::nullopt;
    if (*number >= max) return max;
    return readInteger(isolate, value, max, what);
}

std::optional<std::uint32_t> readInteger(v8::Isolate* isolate, v8::Local<v8::Value> value, std::uint32_t max,
                                         const char* what) {
    std::optional<std::uint64_t> number = readUnsigned(isolate, value, max, nullptr, what);
    if (!number) return std::nullopt;
    return static_cast<std::uint32_t>(*number);
}

}  // namespace loopwire::addon
