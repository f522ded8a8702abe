// ResponseWrap: the JavaScript HttpResponse (`res`), with the API of uWebSockets.js v20.
//
// One res object per request (created by AppWrap when it calls a route handler). Its internal fields:
//   kResponse   the core HttpResponse*, or null once res is no longer usable;
//   kEntry      its PendingResponses::Entry* once a callback is registered, else null;
//   kOnAborted, kOnData, kOnDataV2 (also collectBody), kOnWritable: the JavaScript callbacks themselves, so
//   that the native side holds one global handle per pending request (to res, in the Entry), not one per
//   callback.
// (V8 11's marker reads the first two bytes kResponse points to when kResponse and kEntry are both set, taking
// res for a wrapper of Node's C++ heap if they are Node's embedder id, 0x90de. They are the low bytes of the
// connection's vtable pointer, 8-byte aligned, which 0x90de is not.)
//
// Lifetime (each rule has a test in tests/js/lifetime.test.js): res stops being usable, and every method throws
// an Error, after end(), endWithoutBody(), close(), a tryEnd() that completed, or an abort (the peer left, the
// App closed, a timeout); also when the handler returned without completing it and without onAborted (the core
// then answers 500). Its pointer is cleared before the core can free the connection: by the method that
// completes the response, by the abort callback, or by afterHandler().
//
// Misuse throws (TypeError for a wrong argument type, RangeError for a value out of range); it never reaches the
// core. Loop thread only, like everything in the addon.
#pragma once

#include "V8Compat.h"
#include "V8Headers.h"

#include <loopwire/HttpResponse.h>

namespace loopwire::addon {

class AddonState;

class ResponseWrap {
public:
    enum Field : int {
        kResponse,
        kEntry,
        kOnAborted,
        kOnData,
        kOnDataV2,
        kOnWritable,
        kFieldCount,
    };

    // The class uWS.HttpResponse, with its methods; once per environment.
    static v8::Local<v8::FunctionTemplate> createClass(v8::Isolate* isolate, v8::Local<v8::External> data);

    // The object every res is cloned from: an instance with null pointers; once per environment.
    static v8::Local<v8::Object> createBoilerplate(v8::Local<v8::Context> context, v8::Local<v8::FunctionTemplate> cls);

    // A new res object for response; the caller holds a HandleScope. Allocates nothing natively.
    static v8::Local<v8::Object> wrap(AddonState& state, HttpResponse* response);

    // After the route handler returned: invalidates res when its response is complete, or when the core is about
    // to answer it with 500 because no onAborted callback was registered. Inline for the common case, a handler
    // that ended its response (res is unusable already).
    static void afterHandler(v8::Local<v8::Object> res) {
        if (isUsable(res)) afterOpenHandler(res);
    }

    // Makes res unusable from now on (every method throws).
    static void invalidate(v8::Local<v8::Object> res);
    // Whether res can still be used: its response is neither complete nor aborted.
    static bool isUsable(v8::Local<v8::Object> res) { return compat::getPointer(res, kResponse) != nullptr; }

private:
    static void afterOpenHandler(v8::Local<v8::Object> res);
    static void writeStatus(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void writeHeader(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void write(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void end(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void endWithoutBody(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void tryEnd(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void sendFile(const v8::FunctionCallbackInfo<v8::Value>& args);  // ResponseSendFile.cpp
    static void getWriteOffset(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void close(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void onAborted(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void onData(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void onDataV2(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void collectBody(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void onWritable(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void cork(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void upgrade(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void pause(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void resume(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getRemoteAddress(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getRemoteAddressAsText(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getRemotePort(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getX509Certificate(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getProxiedRemoteAddress(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getProxiedRemoteAddressAsText(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getProxiedRemotePort(const v8::FunctionCallbackInfo<v8::Value>& args);

    // The response of a usable res; otherwise throws an Error naming `method` and returns null. Inline in every
    // method, with the message built out of line: a call with a string's frame cost every method call some twenty
    // instructions.
    static HttpResponse* unwrap(const v8::FunctionCallbackInfo<v8::Value>& args, const char* method) {
        auto* response = static_cast<HttpResponse*>(compat::getPointer(args.This(), kResponse));
        if (response == nullptr) [[unlikely]]
            throwUnusable(args, method);
        return response;
    }
    [[gnu::noinline, gnu::cold]] static void throwUnusable(const v8::FunctionCallbackInfo<v8::Value>& args,
                                                           const char* method);
};

}  // namespace loopwire::addon
