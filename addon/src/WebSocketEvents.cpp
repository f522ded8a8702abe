#include "WebSocketEvents.h"

#include "AddonState.h"
#include "LentBuffer.h"
#include "RequestWrap.h"
#include "ResponseWrap.h"
#include "V8Compat.h"
#include "WebSocketWrap.h"

#include <new>
#include <optional>

namespace loopwire::addon {

void JsWebSocketEvents::call(HandlerIndex index, int argc, v8::Local<v8::Value>* argv) {
    if (handlers_[index].empty() || !state_.canCallJavaScript()) return;
    state_.callFromLoop(handlers_[index].get(state_.isolate()), argc, argv, nullptr, AddonState::Drain::AfterCall);
    // Every event is a task of its own, as in uWebSockets.js: what the handler queued runs before the next event,
    // and before the bytes lent to it are taken back.
    state_.endHandlerScope();
}

v8::Local<v8::Object> JsWebSocketEvents::wsOf(AnyWebSocket* socket) const {
    return static_cast<SocketObject*>(socket->userData())->ws.get(state_.isolate());
}

v8::Local<v8::Object> JsWebSocketEvents::contextObject(WebSocketContext* context) {
    v8::Isolate* isolate = state_.isolate();
    if (contextObject_.empty()) {
        v8::Local<v8::Object> object =
            state_.upgradeContextClass()->InstanceTemplate()->NewInstance(state_.context()).ToLocalChecked();
        compat::setPointer(object, 0, context);
        contextObject_ = Handle<v8::Object>(isolate, object);
    }
    return contextObject_.get(isolate);
}

WebSocketContext* JsWebSocketEvents::contextOf(AddonState& state, v8::Local<v8::Value> value) {
    if (!state.upgradeContextClass()->HasInstance(value)) return nullptr;
    return static_cast<WebSocketContext*>(compat::getPointer(value.As<v8::Object>(), 0));
}

bool JsWebSocketEvents::upgrade(HttpResponse* response, HttpRequest* request, WebSocketContext* context) {
    if (handlers_[kUpgrade].empty()) return false;
    if (!state_.canCallJavaScript()) return true;
    v8::HandleScope handles(state_.isolate());
    v8::Local<v8::Object> res = ResponseWrap::wrap(state_, response);
    v8::Local<v8::Object> req = RequestWrap::wrap(state_, request);
    v8::Local<v8::Value> argv[] = {res, req, contextObject(context)};
    // call() ends the handler's scope once the microtasks it queued have run (an upgrade after an already-resolved
    // await still belongs to it); then req is over, and res too unless it waits for an asynchronous upgrade.
    call(kUpgrade, 3, argv);
    RequestWrap::invalidate(req);
    ResponseWrap::afterHandler(res);
    return true;
}

void JsWebSocketEvents::constructSocketObject(void* storage, void* ws) {
    auto* object = static_cast<v8::Local<v8::Object>*>(ws);
    new (storage) SocketObject{Handle<v8::Object>(v8::Isolate::GetCurrent(), *object)};
}

void JsWebSocketEvents::constructDefaultUserData(void* storage) {
    v8::HandleScope handles(state_.isolate());
    v8::Local<v8::Object> ws;
    if (!WebSocketWrap::create(state_, v8::Undefined(state_.isolate())).ToLocal(&ws)) {
        ws = v8::Object::New(state_.isolate());
    }
    constructSocketObject(storage, &ws);
}

void JsWebSocketEvents::open(AnyWebSocket* socket) {
    v8::HandleScope handles(state_.isolate());
    v8::Local<v8::Object> ws = wsOf(socket);
    WebSocketWrap::open(ws, socket);
    v8::Local<v8::Value> argv[] = {ws};
    call(kOpen, 1, argv);
}

void JsWebSocketEvents::callWithBytes(HandlerIndex index, AnyWebSocket* socket, std::string_view bytes,
                                      std::optional<bool> isBinary) {
    if (handlers_[index].empty()) return;
    v8::Isolate* isolate = state_.isolate();
    v8::HandleScope handles(isolate);
    LentBuffer lent(state_, bytes, socket->blockHolding(bytes));
    v8::Local<v8::Value> argv[] = {wsOf(socket), lent.get(), v8::Boolean::New(isolate, isBinary.value_or(false))};
    call(index, isBinary ? 3 : 2, argv);
}

void JsWebSocketEvents::message(AnyWebSocket* socket, std::string_view message, OpCode opCode) {
    callWithBytes(kMessage, socket, message, opCode == OpCode::Binary);
}

void JsWebSocketEvents::dropped(AnyWebSocket* socket, std::string_view message, OpCode opCode) {
    callWithBytes(kDropped, socket, message, opCode == OpCode::Binary);
}

void JsWebSocketEvents::drain(AnyWebSocket* socket) {
    if (handlers_[kDrain].empty()) return;
    v8::HandleScope handles(state_.isolate());
    v8::Local<v8::Value> argv[] = {wsOf(socket)};
    call(kDrain, 1, argv);
}

void JsWebSocketEvents::ping(AnyWebSocket* socket, std::string_view message) {
    callWithBytes(kPing, socket, message, std::nullopt);
}

void JsWebSocketEvents::pong(AnyWebSocket* socket, std::string_view message) {
    callWithBytes(kPong, socket, message, std::nullopt);
}

void JsWebSocketEvents::close(AnyWebSocket* socket, int code, std::string_view reason) {
    v8::Isolate* isolate = state_.isolate();
    v8::HandleScope handles(isolate);
    v8::Local<v8::Object> ws = wsOf(socket);
    // Closed before the handler runs: the handler may read the ws's properties, not use it.
    WebSocketWrap::invalidate(ws);
    if (handlers_[kClose].empty()) return;
    LentBuffer lent(state_, reason, socket->blockHolding(reason));
    v8::Local<v8::Value> argv[] = {ws, v8::Integer::New(isolate, code), lent.get()};
    call(kClose, 3, argv);
}

void JsWebSocketEvents::subscription(AnyWebSocket* socket, std::string_view topic, int newCount, int oldCount) {
    v8::Isolate* isolate = state_.isolate();
    v8::HandleScope handles(isolate);
    LentBuffer lent(state_, topic, nullptr);
    v8::Local<v8::Value> argv[] = {wsOf(socket), lent.get(), v8::Integer::New(isolate, newCount),
                                   v8::Integer::New(isolate, oldCount)};
    call(kSubscription, 4, argv);
}

}  // namespace loopwire::addon
