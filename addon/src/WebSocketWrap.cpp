#include "WebSocketWrap.h"

#include "AddonState.h"
#include "BooleanArgument.h"
#include "BytesArgument.h"
#include "ClassBuilder.h"
#include "Errors.h"
#include "NumberArgument.h"

#include <cstring>
#include <string>

namespace loopwire::addon {

namespace {

using Args = v8::FunctionCallbackInfo<v8::Value>;

constexpr char kBytesTypes[] = "a string, ArrayBuffer, SharedArrayBuffer or ArrayBufferView";

v8::Local<v8::ArrayBuffer> copyToArrayBuffer(v8::Isolate* isolate, std::string_view bytes) {
    v8::Local<v8::ArrayBuffer> buffer = v8::ArrayBuffer::New(isolate, bytes.size());
    if (!bytes.empty()) std::memcpy(buffer->Data(), bytes.data(), bytes.size());
    return buffer;
}

// Reads args[index] as bytes; throws a TypeError naming `what` and returns false when it is not.
bool readBytes(const Args& args, int index, BytesArgument& bytes, const char* what) {
    if (bytes.read(args.GetIsolate(), args[index])) return true;
    std::string message = std::string(what) + " must be " + kBytesTypes;
    throwTypeError(args.GetIsolate(), message.c_str());
    return false;
}

void returnStatus(const Args& args, SendStatus status) {
    args.GetReturnValue().Set(static_cast<std::uint32_t>(status));
}

// Fragments must come in order (first, any number of middle ones, last) with no whole message between them, or the
// peer has to fail the connection: a call out of that order throws an Error naming method, and sends nothing.
bool checkFragmentOrder(const Args& args, AnyWebSocket* socket, const char* method, bool continuesMessage) {
    const bool inProgress = socket->isSendingFragments();
    if (inProgress == continuesMessage) return true;
    std::string message =
        std::string(method) + (inProgress ? ": a fragmented message is being sent; end it with sendLastFragment first"
                                          : ": no fragmented message is being sent; start one with sendFirstFragment");
    throwError(args.GetIsolate(), message.c_str());
    return false;
}

// The close codes ws.end takes: those a close frame may carry, and those that name a close without a code (sent
// as a close frame without one).
bool isEndCode(std::uint32_t code) {
    return code == 0 || (code >= 1000 && code <= 1003) || (code >= 1005 && code <= 1015) ||
           (code >= 3000 && code <= 4999);
}

}  // namespace

v8::Local<v8::FunctionTemplate> WebSocketWrap::createClass(v8::Isolate* isolate, v8::Local<v8::External> data) {
    return ClassBuilder(isolate, data, "uWS.WebSocket", kFieldCount)
        .method("send", &send)
        .method("sendFirstFragment", &sendFirstFragment)
        .method("sendFragment", &sendFragment)
        .method("sendLastFragment", &sendLastFragment)
        .method("end", &end)
        .method("close", &close)
        .method("ping", &ping)
        .method("subscribe", &subscribe)
        .method("unsubscribe", &unsubscribe)
        .method("isSubscribed", &isSubscribed)
        .method("getTopics", &getTopics)
        .method("publish", &publish)
        .method("cork", &cork)
        .method("getBufferedAmount", &getBufferedAmount)
        .method("getRemoteAddress", &getRemoteAddress)
        .method("getRemoteAddressAsText", &getRemoteAddressAsText)
        .method("getRemotePort", &getRemotePort)
        .method("getProxiedRemoteAddress", &getProxiedRemoteAddress)
        .method("getProxiedRemoteAddressAsText", &getProxiedRemoteAddressAsText)
        .method("getProxiedRemotePort", &getProxiedRemotePort)
        .method("getUserData", &getUserData)
        .build();
}

v8::Local<v8::Object> WebSocketWrap::createBoilerplate(v8::Local<v8::Context> context,
                                                       v8::Local<v8::FunctionTemplate> cls) {
    v8::Local<v8::Object> ws = cls->InstanceTemplate()->NewInstance(context).ToLocalChecked();
    invalidate(ws);
    return ws;
}

v8::MaybeLocal<v8::Object> WebSocketWrap::create(AddonState& state, v8::Local<v8::Value> userData) {
    v8::Isolate* isolate = state.isolate();
    v8::Local<v8::Context> context = state.context();
    v8::Local<v8::Object> ws = compat::clone(isolate, state.webSocketBoilerplate());
    if (!userData->IsObject()) return ws;
    // Own enumerable string-keyed properties, getters evaluated, as uWebSockets.js copies them.
    v8::Local<v8::Object> source = userData.As<v8::Object>();
    v8::Local<v8::Array> names;
    if (!source->GetOwnPropertyNames(context).ToLocal(&names)) return {};
    for (std::uint32_t i = 0, n = names->Length(); i < n; ++i) {
        v8::Local<v8::Value> name;
        v8::Local<v8::Value> value;
        if (!names->Get(context, i).ToLocal(&name) || !source->Get(context, name).ToLocal(&value)) return {};
        if (ws->Set(context, name, value).IsNothing()) return {};
    }
    return ws;
}

AnyWebSocket* WebSocketWrap::unwrap(const Args& args, const char* method) {
    auto* socket = static_cast<AnyWebSocket*>(compat::getPointer(args.This(), kSocket));
    if (socket == nullptr) {
        std::string message = std::string(method) +
                              ": this WebSocket is closed (its close handler has run, or end() or close() was "
                              "called): it can no longer be used";
        throwError(args.GetIsolate(), message.c_str());
    }
    return socket;
}

// Takes (message: RecognizedString, isBinary?: boolean, compress?: boolean); returns 0 (backpressure), 1
// (success) or 2 (dropped).
void WebSocketWrap::send(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.send");
    if (socket == nullptr || !checkFragmentOrder(args, socket, "ws.send", false)) return;
    BytesArgument message;
    if (!readBytes(args, 0, message, "ws.send: message")) return;
    v8::Isolate* isolate = args.GetIsolate();
    OpCode opCode = booleanArgument(isolate, args[1]) ? OpCode::Binary : OpCode::Text;
    returnStatus(args, socket->send(message.view(), opCode, booleanArgument(isolate, args[2])));
}

// Takes (message, isBinary?, compress?); returns the send status. Starts a fragmented message.
void WebSocketWrap::sendFirstFragment(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.sendFirstFragment");
    if (socket == nullptr || !checkFragmentOrder(args, socket, "ws.sendFirstFragment", false)) return;
    BytesArgument message;
    if (!readBytes(args, 0, message, "ws.sendFirstFragment: message")) return;
    v8::Isolate* isolate = args.GetIsolate();
    OpCode opCode = booleanArgument(isolate, args[1]) ? OpCode::Binary : OpCode::Text;
    returnStatus(args, socket->sendFirstFragment(message.view(), opCode, booleanArgument(isolate, args[2])));
}

// Takes (message, compress?); returns the send status.
void WebSocketWrap::sendFragment(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.sendFragment");
    if (socket == nullptr || !checkFragmentOrder(args, socket, "ws.sendFragment", true)) return;
    BytesArgument message;
    if (!readBytes(args, 0, message, "ws.sendFragment: message")) return;
    returnStatus(args, socket->sendFragment(message.view(), booleanArgument(args.GetIsolate(), args[1])));
}

// Takes (message, compress?); returns the send status. Ends a fragmented message.
void WebSocketWrap::sendLastFragment(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.sendLastFragment");
    if (socket == nullptr || !checkFragmentOrder(args, socket, "ws.sendLastFragment", true)) return;
    BytesArgument message;
    if (!readBytes(args, 0, message, "ws.sendLastFragment: message")) return;
    returnStatus(args, socket->sendLastFragment(message.view(), booleanArgument(args.GetIsolate(), args[1])));
}

// Takes (code?: number, shortMessage?: RecognizedString); sends a close frame and runs the close handler before
// returning; returns undefined. The ws is unusable afterwards. A code that never travels in a close frame but
// names a close without one (1005, 1006, 1015) sends a close frame without a code; a code that is not a close code
// at all (1 to 999, 1004, 1016 to 2999, 5000 and up) is a RangeError.
void WebSocketWrap::end(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.end");
    if (socket == nullptr) return;
    v8::Isolate* isolate = args.GetIsolate();
    std::uint32_t code = 0;
    if (!args[0]->IsUndefined()) {
        std::optional<std::uint32_t> given = readInteger(isolate, args[0], 65535, "ws.end: code");
        if (!given) return;
        if (!isEndCode(*given)) {
            return throwRangeError(isolate,
                                   "ws.end: code must be 1000 to 1003, 1007 to 1014 or 3000 to 4999 (or 0, 1005, "
                                   "1006 or 1015 for a close frame without a code)");
        }
        code = *given;
    }
    BytesArgument reason;
    if (!readBytes(args, 1, reason, "ws.end: shortMessage")) return;
    invalidate(args.This());
    socket->end(static_cast<int>(code), reason.view());
}

// Takes nothing; closes the connection at once (the close handler runs with 1006 before it returns).
void WebSocketWrap::close(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.close");
    if (socket == nullptr) return;
    invalidate(args.This());
    socket->close();
}

// Takes (message?: RecognizedString); sends a ping (at most 125 bytes of it); returns the send status.
void WebSocketWrap::ping(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.ping");
    if (socket == nullptr) return;
    BytesArgument message;
    if (!readBytes(args, 0, message, "ws.ping: message")) return;
    returnStatus(args, socket->ping(message.view()));
}

// Takes (topic: RecognizedString); returns true (also when already subscribed, as in uWebSockets.js).
void WebSocketWrap::subscribe(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.subscribe");
    if (socket == nullptr) return;
    BytesArgument topic;
    if (!readBytes(args, 0, topic, "ws.subscribe: topic")) return;
    socket->subscribe(topic.view());
    args.GetReturnValue().Set(true);
}

// Takes (topic); returns whether the ws was subscribed to it.
void WebSocketWrap::unsubscribe(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.unsubscribe");
    if (socket == nullptr) return;
    BytesArgument topic;
    if (!readBytes(args, 0, topic, "ws.unsubscribe: topic")) return;
    args.GetReturnValue().Set(socket->unsubscribe(topic.view()));
}

// Takes (topic); returns whether the ws is subscribed to it.
void WebSocketWrap::isSubscribed(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.isSubscribed");
    if (socket == nullptr) return;
    BytesArgument topic;
    if (!readBytes(args, 0, topic, "ws.isSubscribed: topic")) return;
    args.GetReturnValue().Set(socket->isSubscribed(topic.view()));
}

// Takes nothing; returns the topics as an array of strings, in subscription order.
void WebSocketWrap::getTopics(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.getTopics");
    if (socket == nullptr) return;
    v8::Isolate* isolate = args.GetIsolate();
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    v8::Local<v8::Array> topics = v8::Array::New(isolate);
    std::uint32_t index = 0;
    socket->forEachTopic([&](std::string_view topic) {
        v8::Local<v8::String> name;
        if (v8::String::NewFromUtf8(isolate, topic.data(), v8::NewStringType::kNormal, static_cast<int>(topic.size()))
                .ToLocal(&name)) {
            topics->Set(context, index++, name).Check();
        }
    });
    args.GetReturnValue().Set(topics);
}

// Takes (topic, message, isBinary?, compress?); sends message to the topic's other subscribers after the current
// batch; returns whether anybody else subscribes.
void WebSocketWrap::publish(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.publish");
    if (socket == nullptr) return;
    BytesArgument topic;
    if (!readBytes(args, 0, topic, "ws.publish: topic")) return;
    BytesArgument message;
    if (!readBytes(args, 1, message, "ws.publish: message")) return;
    v8::Isolate* isolate = args.GetIsolate();
    OpCode opCode = booleanArgument(isolate, args[2]) ? OpCode::Binary : OpCode::Text;
    args.GetReturnValue().Set(socket->publish(topic.view(), message.view(), opCode, booleanArgument(isolate, args[3])));
}

// Takes (callback: () => void), runs it with the socket corked; returns this. An exception thrown by the callback
// propagates to the caller after the cork has ended.
void WebSocketWrap::cork(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.cork");
    if (socket == nullptr) return;
    if (!args[0]->IsFunction()) return throwTypeError(args.GetIsolate(), "ws.cork: callback must be a function");
    v8::Local<v8::Function> callback = args[0].As<v8::Function>();
    v8::Local<v8::Context> context = args.GetIsolate()->GetCurrentContext();
    socket->cork([&] { callback->Call(context, context->Global(), 0, nullptr).IsEmpty(); });
    args.GetReturnValue().Set(args.This());
}

// Takes nothing; returns the bytes waiting to be sent.
void WebSocketWrap::getBufferedAmount(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.getBufferedAmount");
    if (socket == nullptr) return;
    args.GetReturnValue().Set(static_cast<double>(socket->getBufferedAmount()));
}

// Takes nothing; returns the peer's address as an ArrayBuffer of 4 or 16 bytes (empty for a Unix socket).
void WebSocketWrap::getRemoteAddress(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.getRemoteAddress");
    if (socket == nullptr) return;
    args.GetReturnValue().Set(copyToArrayBuffer(args.GetIsolate(), socket->getRemoteAddress()));
}

// Takes nothing; returns the peer's address as text, in an ArrayBuffer.
void WebSocketWrap::getRemoteAddressAsText(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.getRemoteAddressAsText");
    if (socket == nullptr) return;
    args.GetReturnValue().Set(copyToArrayBuffer(args.GetIsolate(), socket->getRemoteAddressAsText()));
}

// Takes nothing; returns the peer's port.
void WebSocketWrap::getRemotePort(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.getRemotePort");
    if (socket == nullptr) return;
    args.GetReturnValue().Set(static_cast<std::uint32_t>(socket->getRemotePort()));
}

// Takes nothing; returns the client the connection's PROXY protocol header named, as an ArrayBuffer of 4 or 16 bytes
// (empty without one).
void WebSocketWrap::getProxiedRemoteAddress(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.getProxiedRemoteAddress");
    if (socket == nullptr) return;
    args.GetReturnValue().Set(copyToArrayBuffer(args.GetIsolate(), socket->getProxiedRemoteAddress()));
}

// Takes nothing; returns that client's address as text, in an ArrayBuffer (empty without one).
void WebSocketWrap::getProxiedRemoteAddressAsText(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.getProxiedRemoteAddressAsText");
    if (socket == nullptr) return;
    args.GetReturnValue().Set(copyToArrayBuffer(args.GetIsolate(), socket->getProxiedRemoteAddressAsText()));
}

// Takes nothing; returns that client's port (0 without one).
void WebSocketWrap::getProxiedRemotePort(const Args& args) {
    AnyWebSocket* socket = unwrap(args, "ws.getProxiedRemotePort");
    if (socket == nullptr) return;
    args.GetReturnValue().Set(static_cast<std::uint32_t>(socket->getProxiedRemotePort()));
}

// Takes nothing; returns the ws itself, which holds the user data's properties (usable after close too, as in
// uWebSockets.js).
void WebSocketWrap::getUserData(const Args& args) { args.GetReturnValue().Set(args.This()); }

}  // namespace loopwire::addon
