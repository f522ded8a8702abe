#include "ListenSocketWrap.h"

#include "AddonState.h"
#include "ClassBuilder.h"
#include "Errors.h"
#include "V8Compat.h"

#include <loopwire/App.h>

#include <string>

namespace loopwire::addon {

v8::Local<v8::FunctionTemplate> ListenSocketWrap::createClass(v8::Isolate* isolate, v8::Local<v8::External> data) {
    return ClassBuilder(isolate, data, "uWS.ListenSocket", kFieldCount).build();
}

v8::Local<v8::Object> ListenSocketWrap::wrap(AddonState& state, v8::Local<v8::Context> context, ListenRecord* record,
                                             v8::Local<v8::Object> app) {
    v8::Local<v8::Object> token = state.listenSocketTemplate()->NewInstance(context).ToLocalChecked();
    compat::setPointer(token, kRecord, record);
    compat::setField(token, kApp, app);
    return token;
}

ListenRecord* ListenSocketWrap::unwrap(const v8::FunctionCallbackInfo<v8::Value>& args, const char* function) {
    AddonState& state = AddonState::from(args);
    if (args[0]->IsObject() && state.listenSocketClass()->HasInstance(args[0])) {
        return static_cast<ListenRecord*>(compat::getPointer(args[0].As<v8::Object>(), kRecord));
    }
    std::string message = std::string(function) + ": the argument must be a listen socket given by app.listen";
    throwTypeError(args.GetIsolate(), message.c_str());
    return nullptr;
}

// Takes (listenSocket); stops listening on it (connections already accepted stay open); returns undefined.
void ListenSocketWrap::closeListenSocket(const v8::FunctionCallbackInfo<v8::Value>& args) {
    ListenRecord* record = unwrap(args, "us_listen_socket_close");
    if (record == nullptr || !record->open) return;
    record->open = false;
    App::closeListenSocket(record->socket);
}

// Takes (listenSocket); returns the port it listens on (for a Unix socket 0), or -1 once it is closed.
void ListenSocketWrap::localPort(const v8::FunctionCallbackInfo<v8::Value>& args) {
    ListenRecord* record = unwrap(args, "us_socket_local_port");
    if (record == nullptr) return;
    args.GetReturnValue().Set(record->open ? record->port : -1);
}

}  // namespace loopwire::addon
