// BooleanArgument: a flag given to the binding (closeConnection, isBinary, compress), read as uWebSockets.js reads
// it: JavaScript's truthiness (V8's BooleanValue), so 1, "yes" and an object are true and 0, "" and null false.
//
// The flags a call is given are nearly always true, false or left out (undefined); those three are told apart
// inline, by the identity of V8's oddballs, and only any other value asks V8. The call into V8 cost some 25
// instructions per flag, on every res.end and ws.send.
#pragma once

#include "V8Headers.h"

namespace loopwire::addon {

inline bool booleanArgument(v8::Isolate* isolate, v8::Local<v8::Value> value) {
    if (value->IsUndefined()) return false;
    if (value == v8::True(isolate)) return true;
    if (value == v8::False(isolate)) return false;
    return value->BooleanValue(isolate);
}

}  // namespace loopwire::addon
