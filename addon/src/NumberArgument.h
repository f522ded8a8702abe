// NumberArgument: numbers given to the binding the way uWebSockets.js reads them, which frameworks rely on.
//
// uWebSockets.js converts a number argument with V8's ToNumber (NumberValue, Uint32Value), so a numeric string
// works where a number is expected: ultimate-express passes `contentLength.toString()` to endWithoutBody, and
// ports often come from the environment as strings. loopwire accepts the same: a number, or a string that
// JavaScript's Number() turns into one ("100", " 100 ", "1e3", "0x10"; "" is 0, as there). Everything else
// (undefined, null, a boolean, an object, a BigInt, a string that is not a number) is not a number at all: a
// TypeError, where uWebSockets.js would quietly read NaN, 0 or garbage. Ranges stay checked (RangeError): a
// fractional or negative byte count, or a port past 65535, would put a wrong value on the wire.
//
// Each reader throws (naming `what`, e.g. "res.tryEnd: totalSize") and returns nullopt when the value is refused.
// Nothing here allocates natively on success.
#pragma once

#include "V8Headers.h"

#include <cstdint>
#include <optional>

namespace loopwire::addon {

// The largest integer a JavaScript number holds exactly: the bound for sizes given as numbers.
inline constexpr double kMaxSafeInteger = 9007199254740991.0;

// The number value is, or holds as text; nullopt (throwing nothing) when it is neither.
std::optional<double> numberValue(v8::Isolate* isolate, v8::Local<v8::Value> value);

// A byte count or offset: an integer from 0 to 2^53 - 1.
std::optional<std::uint64_t> readSize(v8::Isolate* isolate, v8::Local<v8::Value> value, const char* what);

// A byte limit (a WebSocket behaviour's maxPayloadLength, maxBackpressure): an integer of 0 or more (Infinity
// included); one above max is taken as max, as uWebSockets.js accepts any such number (maxPayloadLength: 1e10).
std::optional<std::uint32_t> readLimit(v8::Isolate* isolate, v8::Local<v8::Value> value, std::uint32_t max,
                                       const char* what);

// An integer from 0 to max (a port, listen options).
std::optional<std::uint32_t> readInteger(v8::Isolate* isolate, v8::Local<v8::Value> value, std::uint32_t max,
                                         const char* what);

}  // namespace loopwire::addon
