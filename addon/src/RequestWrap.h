// RequestWrap: the JavaScript HttpRequest (`req`), with the API of uWebSockets.js v20.
//
// One req object per route handler call. Its one internal field (kRequest) points to the core HttpRequest,
// whose views point into the connection's receive buffer, so the field is cleared as soon as the handler
// returns (invalidate()); after that, and after an await in the handler, every method throws an Error.
// Strings are made by copying: getHeader gives Latin-1 (as uWebSockets.js does), getQuery(key) UTF-8; the URL,
// method and parameters are ASCII by the parser's rules. Loop thread only.
#pragma once

#include "V8Headers.h"

#include <loopwire/HttpRequest.h>

namespace loopwire::addon {

class AddonState;

class RequestWrap {
public:
    enum Field : int {
        kRequest,
        kFieldCount,
    };

    // The class uWS.HttpRequest, with its methods; once per environment.
    static v8::Local<v8::FunctionTemplate> createClass(v8::Isolate* isolate, v8::Local<v8::External> data);

    // The object every req is cloned from: an instance with null pointers; once per environment.
    static v8::Local<v8::Object> createBoilerplate(v8::Local<v8::Context> context, v8::Local<v8::FunctionTemplate> cls);

    // A new req object for request; the caller holds a HandleScope. Allocates nothing natively.
    static v8::Local<v8::Object> wrap(AddonState& state, HttpRequest* request);

    // Makes req unusable (its handler returned).
    static void invalidate(v8::Local<v8::Object> req);

private:
    static void getHeader(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getParameter(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getUrl(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getMethod(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getCaseSensitiveMethod(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getQuery(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void forEach(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void setYield(const v8::FunctionCallbackInfo<v8::Value>& args);

    // The request of a usable req; otherwise throws an Error naming `method` and returns null.
    static HttpRequest* unwrap(const v8::FunctionCallbackInfo<v8::Value>& args, const char* method);
};

}  // namespace loopwire::addon
