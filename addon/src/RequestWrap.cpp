#include "RequestWrap.h"

#include "AddonState.h"
#include "BytesArgument.h"
#include "ClassBuilder.h"
#include "Errors.h"
#include "NumberArgument.h"
#include "PointerFields.h"
#include "V8Compat.h"

#include <cmath>
#include <string>

namespace loopwire::addon {

namespace {

using Args = v8::FunctionCallbackInfo<v8::Value>;

// Request heads are at most limits::kMaxHeaderSectionBytes, far below V8's longest string, so making these
// strings cannot fail.
v8::Local<v8::String> oneByteString(v8::Isolate* isolate, std::string_view text) {
    return v8::String::NewFromOneByte(isolate, reinterpret_cast<const std::uint8_t*>(text.data()),
                                      v8::NewStringType::kNormal, static_cast<int>(text.size()))
        .ToLocalChecked();
}

// The parameter at index, with index converted as JavaScript's ToUint32 converts it.
std::string_view parameterAt(HttpRequest* request, double index) {
    if (!std::isfinite(index)) index = 0;
    double truncated = std::fmod(std::trunc(index), 4294967296.0);
    if (truncated < 0) truncated += 4294967296.0;
    auto position = static_cast<std::size_t>(truncated);
    if (position >= request->getParameterCount()) return {};
    return request->getParameter(position);
}

bool isDecimal(std::string_view text) {
    if (text.empty()) return false;
    for (char c : text) {
        if (c < '0' || c > '9') return false;
    }
    return true;
}

v8::Local<v8::String> utf8String(v8::Isolate* isolate, std::string_view text) {
    return v8::String::NewFromUtf8(isolate, text.data(), v8::NewStringType::kNormal, static_cast<int>(text.size()))
        .ToLocalChecked();
}

}  // namespace

v8::Local<v8::FunctionTemplate> RequestWrap::createClass(v8::Isolate* isolate, v8::Local<v8::External> data) {
    return ClassBuilder(isolate, data, "uWS.HttpRequest", kFieldCount)
        .method("getHeader", &getHeader)
        .method("getParameter", &getParameter)
        .method("getUrl", &getUrl)
        .method("getMethod", &getMethod)
        .method("getCaseSensitiveMethod", &getCaseSensitiveMethod)
        .method("getQuery", &getQuery)
        .method("forEach", &forEach)
        .method("setYield", &setYield)
        .build();
}

v8::Local<v8::Object> RequestWrap::createBoilerplate(v8::Local<v8::Context> context,
                                                     v8::Local<v8::FunctionTemplate> cls) {
    v8::Local<v8::Object> req = cls->InstanceTemplate()->NewInstance(context).ToLocalChecked();
    invalidate(req);
    return req;
}

v8::Local<v8::Object> RequestWrap::wrap(AddonState& state, HttpRequest* request) {
    v8::Local<v8::Object> req = compat::clone(state.isolate(), state.requestBoilerplate());
    PointerFields::set(req, kRequest, request);
    return req;
}

void RequestWrap::invalidate(v8::Local<v8::Object> req) { PointerFields::set(req, kRequest, nullptr); }

HttpRequest* RequestWrap::unwrap(const Args& args, const char* method) {
    auto* request = static_cast<HttpRequest*>(compat::getPointer(args.This(), kRequest));
    if (request == nullptr) {
        std::string message = std::string(method) +
                              ": this HttpRequest can only be used while its route handler runs, before any await; "
                              "copy what you need from it before that";
        throwError(args.GetIsolate(), message.c_str());
    }
    return request;
}

// Takes (lowerCaseKey: RecognizedString); returns the value of the first header so named, or "".
void RequestWrap::getHeader(const Args& args) {
    HttpRequest* request = unwrap(args, "req.getHeader");
    if (request == nullptr) return;
    BytesArgument key;
    if (!key.readForLookup(args.GetIsolate(), args[0])) {
        return throwTypeError(args.GetIsolate(),
                              "req.getHeader: lowerCaseKey must be a string, ArrayBuffer, SharedArrayBuffer or "
                              "ArrayBufferView");
    }
    args.GetReturnValue().Set(oneByteString(args.GetIsolate(), request->getHeader(key.view())));
}

// Takes (index: number | name: RecognizedString); returns the route parameter, or "" when there is none.
// Indexes are read as uWebSockets.js reads them (ToUint32: 1.5 is 1, and a negative index is past every
// parameter); a name made of digits that names no parameter is read as an index, as older uWebSockets.js did.
void RequestWrap::getParameter(const Args& args) {
    HttpRequest* request = unwrap(args, "req.getParameter");
    if (request == nullptr) return;
    v8::Isolate* isolate = args.GetIsolate();
    std::string_view value;
    if (args[0]->IsNumber()) {
        value = parameterAt(request, args[0].As<v8::Number>()->Value());
    } else {
        BytesArgument name;
        if (!name.read(isolate, args[0]) || args[0]->IsUndefined()) {
            return throwTypeError(isolate, "req.getParameter: the argument must be an index (number) or a name");
        }
        value = request->getParameter(name.view());
        if (value.empty() && isDecimal(name.view())) {
            std::optional<double> index = numberValue(isolate, args[0]);
            if (index) value = parameterAt(request, *index);
        }
    }
    args.GetReturnValue().Set(oneByteString(isolate, value));
}

// Takes nothing; returns the path (the URL without its query).
void RequestWrap::getUrl(const Args& args) {
    HttpRequest* request = unwrap(args, "req.getUrl");
    if (request == nullptr) return;
    args.GetReturnValue().Set(oneByteString(args.GetIsolate(), request->getUrl()));
}

// Takes nothing; returns the method in lower case ("get"), as uWebSockets.js v20 does.
void RequestWrap::getMethod(const Args& args) {
    HttpRequest* request = unwrap(args, "req.getMethod");
    if (request == nullptr) return;
    args.GetReturnValue().Set(oneByteString(args.GetIsolate(), request->getMethod()));
}

// Takes nothing; returns the method as sent ("GET").
void RequestWrap::getCaseSensitiveMethod(const Args& args) {
    HttpRequest* request = unwrap(args, "req.getCaseSensitiveMethod");
    if (request == nullptr) return;
    args.GetReturnValue().Set(oneByteString(args.GetIsolate(), request->getCaseSensitiveMethod()));
}

// Takes () or (key: RecognizedString). Without a key: the raw query string after '?' ("" for "/?", undefined
// when the URL has no '?'). With a key: its percent-decoded value ("" when present without a value), or
// undefined when absent.
void RequestWrap::getQuery(const Args& args) {
    HttpRequest* request = unwrap(args, "req.getQuery");
    if (request == nullptr) return;
    v8::Isolate* isolate = args.GetIsolate();
    if (args.Length() == 0 || args[0]->IsUndefined()) {
        if (request->getFullUrl().size() == request->getUrl().size()) return;
        args.GetReturnValue().Set(oneByteString(isolate, request->getQuery()));
        return;
    }
    BytesArgument key;
    if (!key.readForLookup(isolate, args[0])) {
        return throwTypeError(isolate,
                              "req.getQuery: key must be a string, ArrayBuffer, SharedArrayBuffer or ArrayBufferView");
    }
    std::string_view value = request->getQuery(key.view());
    if (value.data() == nullptr) return;
    args.GetReturnValue().Set(utf8String(isolate, value));
}

// Takes (callback: (key: string, value: string) => void) and calls it for every header field, in order; returns
// undefined. An exception thrown by the callback stops the loop and propagates.
void RequestWrap::forEach(const Args& args) {
    HttpRequest* request = unwrap(args, "req.forEach");
    if (request == nullptr) return;
    v8::Isolate* isolate = args.GetIsolate();
    if (!args[0]->IsFunction()) return throwTypeError(isolate, "req.forEach: callback must be a function");
    v8::Local<v8::Function> callback = args[0].As<v8::Function>();
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    for (std::size_t i = 0, count = request->headerCount(); i < count; ++i) {
        HttpRequest::Header header = request->headerAt(i);
        v8::Local<v8::Value> argv[] = {utf8String(isolate, header.name), utf8String(isolate, header.value)};
        if (callback->Call(context, context->Global(), 2, argv).IsEmpty()) return;
    }
}

// Takes (yield: boolean); returns this. true declines the request: the router tries the next matching route
// once the handler returns.
void RequestWrap::setYield(const Args& args) {
    HttpRequest* request = unwrap(args, "req.setYield");
    if (request == nullptr) return;
    request->setYield(args[0]->BooleanValue(args.GetIsolate()));
    args.GetReturnValue().Set(args.This());
}

}  // namespace loopwire::addon
