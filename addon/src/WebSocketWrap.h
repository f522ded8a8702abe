// WebSocketWrap: the JavaScript WebSocket (`ws`), with the API of uWebSockets.js v20.
//
// One ws object per connection, made at the upgrade (res.upgrade copies the user data's own properties onto it, as
// uWebSockets.js does; getUserData() returns the ws object itself) and held by the connection through one global
// handle, its user data in the core (WebSocketEvents.h). Internal field kSocket holds the core AnyWebSocket*, set
// when the connection opens and cleared just before the close handler runs: from then on every method but
// getUserData throws an Error, as in uWebSockets.js. Misuse throws a TypeError or RangeError naming the argument.
// Loop thread only.
#pragma once

#include "V8Compat.h"
#include "V8Headers.h"

#include <loopwire/WebSocket.h>

namespace loopwire::addon {

class AddonState;

class WebSocketWrap {
public:
    enum Field : int {
        kSocket,
        kFieldCount,
    };

    // The class uWS.WebSocket, with its methods; once per environment.
    static v8::Local<v8::FunctionTemplate> createClass(v8::Isolate* isolate, v8::Local<v8::External> data);
    // The object every ws is cloned from (a null socket); once per environment.
    static v8::Local<v8::Object> createBoilerplate(v8::Local<v8::Context> context, v8::Local<v8::FunctionTemplate> cls);

    // A new ws object, not yet open, with userData's own enumerable properties copied onto it (userData may be
    // undefined). Returns an empty handle when a getter of userData threw (the exception is pending).
    static v8::MaybeLocal<v8::Object> create(AddonState& state, v8::Local<v8::Value> userData);
    static void open(v8::Local<v8::Object> ws, AnyWebSocket* socket) { compat::setPointer(ws, kSocket, socket); }
    static void invalidate(v8::Local<v8::Object> ws) { compat::setPointer(ws, kSocket, nullptr); }

private:
    static void send(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void sendFirstFragment(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void sendFragment(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void sendLastFragment(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void end(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void close(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void ping(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void subscribe(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void unsubscribe(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void isSubscribed(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getTopics(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void publish(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void cork(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getBufferedAmount(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getRemoteAddress(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getRemoteAddressAsText(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getRemotePort(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getProxiedRemoteAddress(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getProxiedRemoteAddressAsText(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getProxiedRemotePort(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getUserData(const v8::FunctionCallbackInfo<v8::Value>& args);

    // The socket of a usable ws; otherwise throws an Error naming `method` and returns null.
    static AnyWebSocket* unwrap(const v8::FunctionCallbackInfo<v8::Value>& args, const char* method);
};

}  // namespace loopwire::addon
