// Errors: how a binding function reports misuse to JavaScript.
//
// Every check in a binding function that fails throws one of these and returns at once: a TypeError for an
// argument of the wrong type, a RangeError for a value out of its range, an Error for an object used outside its
// lifetime. Messages name the method and the argument ("res.tryEnd: totalSize must be ..."). The process never
// aborts on a JavaScript mistake. Each takes a NUL-terminated UTF-8 message; nothing here allocates natively.
#pragma once

#include "V8Headers.h"

namespace loopwire::addon {

void throwTypeError(v8::Isolate* isolate, const char* message);
void throwRangeError(v8::Isolate* isolate, const char* message);
void throwError(v8::Isolate* isolate, const char* message);

}  // namespace loopwire::addon
