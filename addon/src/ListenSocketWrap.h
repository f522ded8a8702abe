// ListenSocketWrap: the listen token handed to app.listen's callback (uWS.ListenSocket), which
// us_listen_socket_close() and us_socket_local_port() take.
//
// In uWebSockets.js the token is a raw native pointer and a wrong or stale one crashes the process; here it is an
// object of its own class pointing to a ListenRecord that its App owns for the App's whole life, so a token
// used after it was closed, after app.close(), or a value that is not a token at all, is harmless: closing
// again does nothing, the port reads -1, and a non-token is a TypeError. The token also holds its App object,
// which keeps the App's JavaScript object alive as long as a token is.
#pragma once

#include "V8Headers.h"

namespace loopwire {
class ListenSocket;
}

namespace loopwire::addon {

class AddonState;

// One listening socket of an App, as the App's token objects see it.
struct ListenRecord {
    ListenSocket* socket = nullptr;
    int port = 0;
    bool open = true;
};

class ListenSocketWrap {
public:
    enum Field : int {
        kRecord,
        kApp,
        kFieldCount,
    };

    // The class uWS.ListenSocket (no methods); once per environment.
    static v8::Local<v8::FunctionTemplate> createClass(v8::Isolate* isolate, v8::Local<v8::External> data);

    // A new token for record, owned by the App whose JavaScript object is app.
    static v8::Local<v8::Object> wrap(AddonState& state, v8::Local<v8::Context> context, ListenRecord* record,
                                      v8::Local<v8::Object> app);

    // Module functions.
    static void closeListenSocket(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void localPort(const v8::FunctionCallbackInfo<v8::Value>& args);

private:
    // The record of a token; otherwise throws a TypeError naming `function` and returns null.
    static ListenRecord* unwrap(const v8::FunctionCallbackInfo<v8::Value>& args, const char* function);
};

}  // namespace loopwire::addon
