#include "ServerOptionsArgument.h"

#include "BytesArgument.h"
#include "Errors.h"

#include <string>

namespace loopwire::addon {

namespace {

bool readField(v8::Isolate* isolate, v8::Local<v8::Object> object, const char* name, v8::Local<v8::Value>& out) {
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    return object->Get(context, v8::String::NewFromUtf8(isolate, name).ToLocalChecked()).ToLocal(&out);
}

}  // namespace

bool ServerOptionsArgument::read(v8::Isolate* isolate, v8::Local<v8::Value> value, const char* what) {
    if (value->IsUndefined() || value->IsNull()) return true;
    if (!value->IsObject()) {
        throwTypeError(isolate, (std::string(what) + ": options must be an object").c_str());
        return false;
    }
    v8::Local<v8::Object> object = value.As<v8::Object>();
    v8::Local<v8::Value> http2;
    if (!readField(isolate, object, "http2", http2)) return false;
    if (!http2->IsUndefined() && !http2->IsNull()) {
        if (!http2->IsBoolean()) {
            throwTypeError(isolate, (std::string(what) + ": options.http2 must be a boolean").c_str());
            return false;
        }
        options_.http2 = http2->IsTrue();
    }
    v8::Local<v8::Value> mode;
    if (!readField(isolate, object, "proxy_protocol", mode)) return false;
    if (!mode->IsUndefined() && !mode->IsNull()) {
        if (!mode->IsString()) {
            throwTypeError(isolate, (std::string(what) + ": options.proxy_protocol must be a string").c_str());
            return false;
        }
        v8::String::Utf8Value text(isolate, mode);
        const std::string_view name(*text, static_cast<std::size_t>(text.length()));
        if (name == "optional") {
            options_.proxyProtocol = ProxyProtocol::Optional;
        } else if (name == "required") {
            options_.proxyProtocol = ProxyProtocol::Required;
        } else if (name == "off") {
            options_.proxyProtocol = ProxyProtocol::Off;
        } else {
            throwRangeError(
                isolate,
                (std::string(what) + ": options.proxy_protocol must be 'optional', 'required' or 'off'").c_str());
            return false;
        }
    }
    v8::Local<v8::Value> sources;
    if (!readField(isolate, object, "proxy_trusted_sources", sources)) return false;
    if (sources->IsUndefined() || sources->IsNull()) return true;
    const std::string notAList = std::string(what) + ": options.proxy_trusted_sources must be an array of strings";
    if (!sources->IsArray()) {
        throwTypeError(isolate, notAList.c_str());
        return false;
    }
    v8::Local<v8::Array> list = sources.As<v8::Array>();
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    for (std::uint32_t i = 0; i < list->Length(); ++i) {
        v8::Local<v8::Value> entry;
        if (!list->Get(context, i).ToLocal(&entry)) return false;
        if (!entry->IsString()) {
            throwTypeError(isolate, notAList.c_str());
            return false;
        }
        v8::String::Utf8Value text(isolate, entry);
        options_.proxyTrustedSources.emplace_back(*text, static_cast<std::size_t>(text.length()));
    }
    return true;
}

}  // namespace loopwire::addon
