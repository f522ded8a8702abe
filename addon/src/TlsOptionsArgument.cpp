#include "TlsOptionsArgument.h"

#include "BytesArgument.h"
#include "Errors.h"

#include <string_view>

namespace loopwire::addon {

bool TlsOptionsArgument::readText(v8::Isolate* isolate, v8::Local<v8::Object> object, const char* field,
                                  std::string& into, bool isPem, const char* what) {
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    v8::Local<v8::Value> value;
    if (!object->Get(context, v8::String::NewFromUtf8(isolate, field).ToLocalChecked()).ToLocal(&value)) {
        return false;  // a getter threw: its exception propagates
    }
    if (value->IsUndefined() || value->IsNull()) return true;
    BytesArgument bytes;
    if (!bytes.read(isolate, value)) {
        std::string message = std::string(what) + ": options." + field +
                              " must be a string, a Buffer, an ArrayBuffer or an ArrayBufferView";
        throwTypeError(isolate, message.c_str());
        return false;
    }
    // File names and passphrases reach C APIs that stop at a NUL; PEM text has none either, but its length is
    // passed along, so only the others are checked.
    if (!isPem && bytes.view().find('\0') != std::string_view::npos) {
        std::string message = std::string(what) + ": options." + field + " must not contain a NUL character";
        throwTypeError(isolate, message.c_str());
        return false;
    }
    into.assign(bytes.view());
    return true;
}

bool TlsOptionsArgument::read(v8::Isolate* isolate, v8::Local<v8::Value> value, const char* what) {
    if (value->IsUndefined() || value->IsNull()) return true;
    if (!value->IsObject()) {
        std::string message = std::string(what) + ": options must be an object";
        throwTypeError(isolate, message.c_str());
        return false;
    }
    v8::Local<v8::Object> object = value.As<v8::Object>();
    if (!readText(isolate, object, "key_file_name", keyFileName_, false, what) ||
        !readText(isolate, object, "cert_file_name", certFileName_, false, what) ||
        !readText(isolate, object, "ca_file_name", caFileName_, false, what) ||
        !readText(isolate, object, "passphrase", passphrase_, false, what) ||
        !readText(isolate, object, "dh_params_file_name", dhParamsFileName_, false, what) ||
        !readText(isolate, object, "ssl_ciphers", ciphers_, false, what) ||
        !readText(isolate, object, "ssl_groups", groups_, false, what) ||
        !readText(isolate, object, "key", key_, true, what) || !readText(isolate, object, "cert", cert_, true, what) ||
        !readText(isolate, object, "ca", ca_, true, what)) {
        return false;
    }
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    v8::Local<v8::Value> lowMemory;
    if (!object->Get(context, v8::String::NewFromUtf8Literal(isolate, "ssl_prefer_low_memory_usage"))
             .ToLocal(&lowMemory)) {
        return false;
    }
    options_.key_file_name = keyFileName_;
    options_.cert_file_name = certFileName_;
    options_.ca_file_name = caFileName_;
    options_.passphrase = passphrase_;
    options_.dh_params_file_name = dhParamsFileName_;
    options_.ssl_ciphers = ciphers_;
    options_.ssl_groups = groups_;
    options_.key = key_;
    options_.cert = cert_;
    options_.ca = ca_;
    // uWebSockets.js reads it as a boolean (any truthy value turns it on).
    options_.ssl_prefer_low_memory_usage = lowMemory->BooleanValue(isolate);
    return true;
}

}  // namespace loopwire::addon
