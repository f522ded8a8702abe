#include "ResponseWrap.h"

#include "AddonState.h"
#include "BooleanArgument.h"
#include "BytesArgument.h"
#include "ClassBuilder.h"
#include "Errors.h"
#include "NumberArgument.h"
#include "PointerFields.h"
#include "ResponseCallbacks.h"
#include "V8Compat.h"
#include "WebSocketEvents.h"
#include "WebSocketWrap.h"

#include <cstring>
#include <optional>
#include <string>

namespace loopwire::addon {

namespace {

using Args = v8::FunctionCallbackInfo<v8::Value>;
using Entry = PendingResponses::Entry;

v8::Local<v8::ArrayBuffer> copyToArrayBuffer(v8::Isolate* isolate, std::string_view bytes) {
    v8::Local<v8::ArrayBuffer> buffer = v8::ArrayBuffer::New(isolate, bytes.size());
    if (!bytes.empty()) std::memcpy(buffer->Data(), bytes.data(), bytes.size());
    return buffer;
}

// The Entry of res, taken from the pool the first time a callback is registered on it.
Entry& entryOf(AddonState& state, v8::Local<v8::Object> res) {
    if (void* entry = compat::getPointer(res, ResponseWrap::kEntry)) return *static_cast<Entry*>(entry);
    Entry* entry = state.pending().acquire(state.isolate(), res);
    PointerFields::set(res, ResponseWrap::kEntry, entry);
    return *entry;
}

// Stores handler in res's internal field; registers the core callback of this kind the first time only, so that
// a callback replacing itself from inside its own call never destroys the callable that is running.
template <typename Callback, typename Register>
void registerCallback(const Args& args, int field, std::uint8_t kind, v8::Local<v8::Value> handler,
                      Register&& registerWithCore) {
    AddonState& state = AddonState::from(args);
    v8::Local<v8::Object> res = args.This();
    Entry& entry = entryOf(state, res);
    compat::setField(res, field, handler);
    if ((entry.registered & kind) == 0) {
        entry.registered |= kind;
        registerWithCore(Callback{PendingResponses::Ref(&entry)});
    }
    args.GetReturnValue().Set(res);
}

}  // namespace

v8::Local<v8::FunctionTemplate> ResponseWrap::createClass(v8::Isolate* isolate, v8::Local<v8::External> data) {
    return ClassBuilder(isolate, data, "uWS.HttpResponse", kFieldCount)
        .method("writeStatus", &writeStatus)
        .method("writeHeader", &writeHeader)
        .method("write", &write)
        .method("end", &end)
        .method("endWithoutBody", &endWithoutBody)
        .method("tryEnd", &tryEnd)
        .method("sendFile", &sendFile)
        .method("getWriteOffset", &getWriteOffset)
        .method("close", &close)
        .method("onAborted", &onAborted)
        .method("onData", &onData)
        .method("onDataV2", &onDataV2)
        .method("collectBody", &collectBody)
        .method("onWritable", &onWritable)
        .method("cork", &cork)
        .method("upgrade", &upgrade)
        .method("pause", &pause)
        .method("resume", &resume)
        .method("getRemoteAddress", &getRemoteAddress)
        .method("getRemoteAddressAsText", &getRemoteAddressAsText)
        .method("getRemotePort", &getRemotePort)
        .method("getX509Certificate", &getX509Certificate)
        .method("getProxiedRemoteAddress", &getProxiedRemoteAddress)
        .method("getProxiedRemoteAddressAsText", &getProxiedRemoteAddressAsText)
        .method("getProxiedRemotePort", &getProxiedRemotePort)
        .build();
}

v8::Local<v8::Object> ResponseWrap::createBoilerplate(v8::Local<v8::Context> context,
                                                      v8::Local<v8::FunctionTemplate> cls) {
    v8::Local<v8::Object> res = cls->InstanceTemplate()->NewInstance(context).ToLocalChecked();
    invalidate(res);
    return res;
}

v8::Local<v8::Object> ResponseWrap::wrap(AddonState& state, HttpResponse* response) {
    // The clone's kEntry is null, as in the boilerplate.
    v8::Local<v8::Object> res = compat::clone(state.isolate(), state.responseBoilerplate());
    PointerFields::set(res, kResponse, response);
    return res;
}

void ResponseWrap::invalidate(v8::Local<v8::Object> res) {
    // kEntry is null already when the response registered no callback, the common case: not stored again (on a V8
    // where PointerFields falls back to V8's setter, that is a call).
    PointerFields::set(res, kResponse, nullptr);
    if (compat::getPointer(res, kEntry) != nullptr) PointerFields::set(res, kEntry, nullptr);
}

void ResponseWrap::afterOpenHandler(v8::Local<v8::Object> res) {
    auto* response = static_cast<HttpResponse*>(compat::getPointer(res, kResponse));
    auto* entry = static_cast<Entry*>(compat::getPointer(res, kEntry));
    bool abortable = entry != nullptr && (entry->registered & PendingResponses::kAborted) != 0;
    if (response->hasResponded() || !abortable) invalidate(res);
}

void ResponseWrap::throwUnusable(const Args& args, const char* method) {
    std::string message = std::string(method) +
                          ": this HttpResponse can no longer be used: its response was completed (end, "
                          "endWithoutBody, close, or a tryEnd that finished) or aborted (see onAborted)";
    throwError(args.GetIsolate(), message.c_str());
}

// Takes (status: RecognizedString); returns this. CR, LF or NUL in it: a TypeError.
void ResponseWrap::writeStatus(const Args& args) {
    HttpResponse* response = unwrap(args, "res.writeStatus");
    if (response == nullptr) return;
    BytesArgument status;
    if (!status.read(args.GetIsolate(), args[0])) {
        return throwTypeError(args.GetIsolate(),
                              "res.writeStatus: status must be a string, ArrayBuffer, SharedArrayBuffer or "
                              "ArrayBufferView");
    }
    // A status shorter than a code is refused quietly, as before; CR, LF or NUL would split the response.
    if (!response->writeStatusIfValid(status.view()) && !HttpResponse::isValidHeaderValue(status.view())) {
        return throwTypeError(args.GetIsolate(),
                              "res.writeStatus: status must not contain CR, LF or NUL (it would split the response)");
    }
    args.GetReturnValue().Set(args.This());
}

// Takes (key: RecognizedString, value: RecognizedString); returns this. A key that is not a token, or CR, LF or
// NUL in the value: a TypeError.
void ResponseWrap::writeHeader(const Args& args) {
    HttpResponse* response = unwrap(args, "res.writeHeader");
    if (response == nullptr) return;
    v8::Isolate* isolate = args.GetIsolate();
    BytesArgument key;
    if (!key.read(isolate, args[0])) {
        return throwTypeError(isolate,
                              "res.writeHeader: key must be a string, ArrayBuffer, SharedArrayBuffer or "
                              "ArrayBufferView");
    }
    BytesArgument value;
    if (!value.read(isolate, args[1])) {
        return throwTypeError(isolate,
                              "res.writeHeader: value must be a string, ArrayBuffer, SharedArrayBuffer or "
                              "ArrayBufferView");
    }
    // Refused as node:http refuses them (ERR_INVALID_HTTP_TOKEN, ERR_INVALID_CHAR): the mistake is seen, and the
    // response is not split. The core checks once; which argument it refused is only asked on that path.
    if (!response->writeHeaderIfValid(key.view(), value.view())) {
        if (!HttpResponse::isValidHeaderName(key.view())) {
            return throwTypeError(
                isolate, "res.writeHeader: key must be a header name (a token: letters, digits and !#$%&'*+-.^_`|~)");
        }
        return throwTypeError(isolate,
                              "res.writeHeader: value must not contain CR, LF or NUL (it would split the response)");
    }
    args.GetReturnValue().Set(args.This());
}

// Takes (chunk: RecognizedString); returns true when nothing is left waiting for the socket (no backpressure).
void ResponseWrap::write(const Args& args) {
    HttpResponse* response = unwrap(args, "res.write");
    if (response == nullptr) return;
    BytesArgument chunk;
    if (!chunk.read(args.GetIsolate(), args[0])) {
        return throwTypeError(args.GetIsolate(),
                              "res.write: chunk must be a string, ArrayBuffer, SharedArrayBuffer or ArrayBufferView");
    }
    args.GetReturnValue().Set(response->write(chunk.view()));
}

// Takes (body?: RecognizedString, closeConnection?: boolean); returns this, which is no longer usable.
void ResponseWrap::end(const Args& args) {
    HttpResponse* response = unwrap(args, "res.end");
    if (response == nullptr) return;
    v8::Isolate* isolate = args.GetIsolate();
    BytesArgument body;
    if (!body.read(isolate, args[0])) {
        return throwTypeError(isolate,
                              "res.end: body must be a string, ArrayBuffer, SharedArrayBuffer or ArrayBufferView");
    }
    bool closeConnection = booleanArgument(isolate, args[1]);
    // Invalidated first: completing may run the next pipelined request's handler before end() returns.
    invalidate(args.This());
    response->end(body.view(), closeConnection);
    args.GetReturnValue().Set(args.This());
}

// Takes (reportedContentLength?: number | numeric string, closeConnection?: boolean); returns this, which is no
// longer usable.
void ResponseWrap::endWithoutBody(const Args& args) {
    HttpResponse* response = unwrap(args, "res.endWithoutBody");
    if (response == nullptr) return;
    v8::Isolate* isolate = args.GetIsolate();
    std::optional<std::uint64_t> length;
    if (!args[0]->IsUndefined()) {
        length = readSize(isolate, args[0], "res.endWithoutBody: reportedContentLength");
        if (!length) return;
    }
    bool closeConnection = booleanArgument(isolate, args[1]);
    invalidate(args.This());
    response->endWithoutBody(length, closeConnection);
    args.GetReturnValue().Set(args.This());
}

// Takes (fullBodyOrChunk: RecognizedString, totalSize: number | numeric string); returns [ok, done]. res stays
// usable until done. Bytes past totalSize are not sent.
void ResponseWrap::tryEnd(const Args& args) {
    HttpResponse* response = unwrap(args, "res.tryEnd");
    if (response == nullptr) return;
    v8::Isolate* isolate = args.GetIsolate();
    BytesArgument chunk;
    if (!chunk.read(isolate, args[0])) {
        return throwTypeError(isolate,
                              "res.tryEnd: fullBodyOrChunk must be a string, ArrayBuffer, SharedArrayBuffer or "
                              "ArrayBufferView");
    }
    std::optional<std::uint64_t> totalSize = readSize(isolate, args[1], "res.tryEnd: totalSize");
    if (!totalSize) return;
    auto [ok, done] = response->tryEnd(chunk.view(), *totalSize);
    if (done) invalidate(args.This());
    v8::Local<v8::Value> pair[] = {v8::Boolean::New(isolate, ok), v8::Boolean::New(isolate, done)};
    args.GetReturnValue().Set(v8::Array::New(isolate, pair, 2));
}

// Takes nothing; returns the number of body bytes written (or taken for writing) so far.
void ResponseWrap::getWriteOffset(const Args& args) {
    HttpResponse* response = unwrap(args, "res.getWriteOffset");
    if (response == nullptr) return;
    args.GetReturnValue().Set(static_cast<double>(response->getWriteOffset()));
}

// Takes nothing; closes the connection at once (onAborted runs if the response was not complete); returns this.
void ResponseWrap::close(const Args& args) {
    HttpResponse* response = unwrap(args, "res.close");
    if (response == nullptr) return;
    invalidate(args.This());
    response->close();
    args.GetReturnValue().Set(args.This());
}

// Takes (handler: () => void); returns this. Only the last handler given runs, at most once.
void ResponseWrap::onAborted(const Args& args) {
    HttpResponse* response = unwrap(args, "res.onAborted");
    if (response == nullptr) return;
    if (!args[0]->IsFunction()) return throwTypeError(args.GetIsolate(), "res.onAborted: handler must be a function");
    registerCallback<AbortedCallback>(args, kOnAborted, PendingResponses::kAborted, args[0],
                                      [&](AbortedCallback callback) { response->onAborted(std::move(callback)); });
}

// Takes (handler: (chunk: ArrayBuffer, isLast: boolean) => void); returns this.
void ResponseWrap::onData(const Args& args) {
    HttpResponse* response = unwrap(args, "res.onData");
    if (response == nullptr) return;
    if (!args[0]->IsFunction()) return throwTypeError(args.GetIsolate(), "res.onData: handler must be a function");
    registerCallback<DataCallback>(args, kOnData, PendingResponses::kData, args[0],
                                   [&](DataCallback callback) { response->onData(std::move(callback)); });
}

// Takes (handler: (chunk: ArrayBuffer, maxRemainingBodyLength: bigint) => void); returns this. Replaces
// collectBody.
void ResponseWrap::onDataV2(const Args& args) {
    HttpResponse* response = unwrap(args, "res.onDataV2");
    if (response == nullptr) return;
    if (!args[0]->IsFunction()) return throwTypeError(args.GetIsolate(), "res.onDataV2: handler must be a function");
    AddonState& state = AddonState::from(args);
    entryOf(state, args.This()).collecting = false;
    registerCallback<DataV2Callback>(args, kOnDataV2, PendingResponses::kDataV2, args[0],
                                     [&](DataV2Callback callback) { response->onDataV2(std::move(callback)); });
}

// Takes (maxSize: number, handler: (fullBody: ArrayBuffer | null) => void); returns this. Replaces onDataV2.
void ResponseWrap::collectBody(const Args& args) {
    HttpResponse* response = unwrap(args, "res.collectBody");
    if (response == nullptr) return;
    v8::Isolate* isolate = args.GetIsolate();
    std::optional<std::uint64_t> maxSize = readSize(isolate, args[0], "res.collectBody: maxSize");
    if (!maxSize) return;
    if (!args[1]->IsFunction()) return throwTypeError(isolate, "res.collectBody: handler must be a function");
    AddonState& state = AddonState::from(args);
    Entry& entry = entryOf(state, args.This());
    entry.collecting = true;
    entry.collectLimit = *maxSize;
    registerCallback<DataV2Callback>(args, kOnDataV2, PendingResponses::kDataV2, args[1],
                                     [&](DataV2Callback callback) { response->onDataV2(std::move(callback)); });
}

// Takes (handler: (offset: number) => boolean); returns this.
void ResponseWrap::onWritable(const Args& args) {
    HttpResponse* response = unwrap(args, "res.onWritable");
    if (response == nullptr) return;
    if (!args[0]->IsFunction()) return throwTypeError(args.GetIsolate(), "res.onWritable: handler must be a function");
    registerCallback<WritableCallback>(args, kOnWritable, PendingResponses::kWritable, args[0],
                                       [&](WritableCallback callback) { response->onWritable(std::move(callback)); });
}

// Takes (callback: () => void), runs it at once with the connection corked; returns this. An exception thrown by
// the callback propagates to the caller, after the cork has ended.
void ResponseWrap::cork(const Args& args) {
    HttpResponse* response = unwrap(args, "res.cork");
    if (response == nullptr) return;
    if (!args[0]->IsFunction()) return throwTypeError(args.GetIsolate(), "res.cork: callback must be a function");
    v8::Local<v8::Function> callback = args[0].As<v8::Function>();
    v8::Local<v8::Context> context = args.GetIsolate()->GetCurrentContext();
    // An empty result means the exception is pending: it propagates once this function returns.
    response->cork([&] { callback->Call(context, context->Global(), 0, nullptr).IsEmpty(); });
    args.GetReturnValue().Set(args.This());
}

// Takes (userData: object, secWebSocketKey, secWebSocketProtocol, secWebSocketExtensions: RecognizedString,
// context: the upgrade handler's third argument); switches the connection to a WebSocket of that route (its open
// handler runs before this returns, with userData's own properties copied onto the ws); returns undefined. res is
// unusable afterwards. Works from the upgrade handler (after an await of a resolved promise too) or later, after
// onAborted. writeStatus('101 Switching Protocols') and headers may come first (they go out with the 101); after
// anything else it throws, leaving res usable.
void ResponseWrap::upgrade(const Args& args) {
    HttpResponse* response = unwrap(args, "res.upgrade");
    if (response == nullptr) return;
    AddonState& state = AddonState::from(args);
    v8::Isolate* isolate = args.GetIsolate();
    if (!args[0]->IsObject() && !args[0]->IsUndefined()) {
        return throwTypeError(isolate, "res.upgrade: userData must be an object");
    }
    BytesArgument key;
    BytesArgument protocol;
    BytesArgument extensions;
    if (!key.read(isolate, args[1])) return throwTypeError(isolate, "res.upgrade: secWebSocketKey must be a string");
    if (!protocol.read(isolate, args[2])) {
        return throwTypeError(isolate, "res.upgrade: secWebSocketProtocol must be a string");
    }
    if (!extensions.read(isolate, args[3])) {
        return throwTypeError(isolate, "res.upgrade: secWebSocketExtensions must be a string");
    }
    WebSocketContext* context = JsWebSocketEvents::contextOf(state, args[4]);
    if (context == nullptr) {
        return throwTypeError(
            isolate, "res.upgrade: context must be the third argument the ws route's upgrade handler received");
    }
    if (!response->canUpgrade()) {
        // Left usable: the handler can still answer, where a silent refusal would leave the client waiting.
        return throwError(isolate,
                          "res.upgrade: this response can no longer switch protocols: something other than "
                          "writeStatus('101 Switching Protocols') and writeHeader was written, or the request has a "
                          "body");
    }
    v8::Local<v8::Object> ws;
    if (!WebSocketWrap::create(state, args[0]).ToLocal(&ws)) return;
    invalidate(args.This());
    response->upgradeWith(key.view(), protocol.view(), extensions.view(), context,
                          &JsWebSocketEvents::constructSocketObject, &ws);
}

// Takes nothing; stops reading the request (body) until resume(); returns this.
void ResponseWrap::pause(const Args& args) {
    HttpResponse* response = unwrap(args, "res.pause");
    if (response == nullptr) return;
    response->pause();
    args.GetReturnValue().Set(args.This());
}

// Takes nothing; reads the request (body) again; returns this.
void ResponseWrap::resume(const Args& args) {
    HttpResponse* response = unwrap(args, "res.resume");
    if (response == nullptr) return;
    response->resume();
    args.GetReturnValue().Set(args.This());
}

// Takes nothing; returns the peer's address in binary (4 or 16 bytes; empty for a Unix socket), an ArrayBuffer.
void ResponseWrap::getRemoteAddress(const Args& args) {
    HttpResponse* response = unwrap(args, "res.getRemoteAddress");
    if (response == nullptr) return;
    args.GetReturnValue().Set(copyToArrayBuffer(args.GetIsolate(), response->getRemoteAddress()));
}

// Takes nothing; returns the peer's address as text ("127.0.0.1", "::1"), an ArrayBuffer as in uWebSockets.js.
void ResponseWrap::getRemoteAddressAsText(const Args& args) {
    HttpResponse* response = unwrap(args, "res.getRemoteAddressAsText");
    if (response == nullptr) return;
    args.GetReturnValue().Set(copyToArrayBuffer(args.GetIsolate(), response->getRemoteAddressAsText()));
}

// Takes nothing; returns the peer's port (0 for a Unix socket).
void ResponseWrap::getRemotePort(const Args& args) {
    HttpResponse* response = unwrap(args, "res.getRemotePort");
    if (response == nullptr) return;
    args.GetReturnValue().Set(static_cast<std::uint32_t>(response->getRemotePort()));
}

// Takes nothing; returns the certificate the client presented, as PEM text (new crypto.X509Certificate(pem)
// parses it), or undefined when it sent none or the App is not an SSLApp.
void ResponseWrap::getX509Certificate(const Args& args) {
    HttpResponse* response = unwrap(args, "res.getX509Certificate");
    if (response == nullptr) return;
    std::string pem = response->getX509Certificate();
    if (pem.empty()) return;
    v8::Local<v8::String> text;
    if (v8::String::NewFromUtf8(args.GetIsolate(), pem.data(), v8::NewStringType::kNormal, static_cast<int>(pem.size()))
            .ToLocal(&text)) {
        args.GetReturnValue().Set(text);
    }
}

// Takes nothing; returns the client a PROXY protocol header named, in binary (4 or 16 bytes), an ArrayBuffer; empty
// when the connection came without one (or with one that named no client).
void ResponseWrap::getProxiedRemoteAddress(const Args& args) {
    HttpResponse* response = unwrap(args, "res.getProxiedRemoteAddress");
    if (response == nullptr) return;
    args.GetReturnValue().Set(copyToArrayBuffer(args.GetIsolate(), response->getProxiedRemoteAddress()));
}

// Takes nothing; returns that client's address as text ("203.0.113.7"), an ArrayBuffer as in uWebSockets.js; empty
// without one.
void ResponseWrap::getProxiedRemoteAddressAsText(const Args& args) {
    HttpResponse* response = unwrap(args, "res.getProxiedRemoteAddressAsText");
    if (response == nullptr) return;
    args.GetReturnValue().Set(copyToArrayBuffer(args.GetIsolate(), response->getProxiedRemoteAddressAsText()));
}

// Takes nothing; returns that client's port (0 without one).
void ResponseWrap::getProxiedRemotePort(const Args& args) {
    HttpResponse* response = unwrap(args, "res.getProxiedRemotePort");
    if (response == nullptr) return;
    args.GetReturnValue().Set(static_cast<std::uint32_t>(response->getProxiedRemotePort()));
}

}  // namespace loopwire::addon
