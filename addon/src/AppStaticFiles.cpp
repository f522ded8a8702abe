// app.static(urlPrefix, rootDirectory, options?): the core's App::tryServeStatic, which serves the folder with no call
// into JavaScript per request (docs/static-files.md). Here only the arguments are read.
#include "AppWrap.h"

#include "BytesArgument.h"
#include "Errors.h"
#include "OptionFields.h"

#include <loopwire/StaticFileOptions.h>

#include <string>

namespace loopwire::addon {

namespace {

constexpr const char* kOptions = "app.static: options";

// options.index: a file name, or false for none.
bool readIndex(OptionFields& fields, std::string& index) {
    v8::Local<v8::Value> value;
    if (!fields.get("index", value)) return false;
    if (value->IsFalse()) {
        index.clear();
        return true;
    }
    if (value->IsUndefined() || value->IsString()) return fields.readString("index", index);
    throwTypeError(fields.isolate(), (fields.nameOf("index") + " must be a file name or false").c_str());
    return false;
}

bool readDotfiles(OptionFields& fields, DotfilePolicy& policy) {
    std::string name;
    if (!fields.readString("dotfiles", name)) return false;
    if (name.empty() || name == "deny") {
        policy = DotfilePolicy::Deny;
    } else if (name == "allow") {
        policy = DotfilePolicy::Allow;
    } else {
        throwRangeError(fields.isolate(), (fields.nameOf("dotfiles") + " must be 'deny' or 'allow'").c_str());
        return false;
    }
    return true;
}

// options.mimeTypes: { extension: contentType }; the core checks each pair.
bool readMimeTypes(OptionFields& fields, std::vector<std::pair<std::string, std::string>>& types) {
    v8::Isolate* isolate = fields.isolate();
    v8::Local<v8::Value> value;
    if (!fields.get("mimeTypes", value)) return false;
    if (value->IsUndefined() || value->IsNull()) return true;
    const std::string name = fields.nameOf("mimeTypes");
    if (!value->IsObject() || value->IsFunction() || value->IsArray()) {
        throwTypeError(isolate, (name + " must be an object of extension: content type").c_str());
        return false;
    }
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    v8::Local<v8::Object> object = value.As<v8::Object>();
    v8::Local<v8::Array> keys;
    if (!object->GetOwnPropertyNames(context).ToLocal(&keys)) return false;
    OptionFields entries(isolate, object, name);
    for (std::uint32_t i = 0; i < keys->Length(); ++i) {
        v8::Local<v8::Value> key;
        if (!keys->Get(context, i).ToLocal(&key)) return false;
        BytesArgument extension;
        if (!key->IsString() || !extension.read(isolate, key)) {
            throwTypeError(isolate, (name + " keys must be strings").c_str());
            return false;
        }
        std::string extensionText(extension.view());
        std::string type;
        if (!entries.readString(extensionText.c_str(), type)) return false;
        types.emplace_back(std::move(extensionText), std::move(type));
    }
    return true;
}

}  // namespace

// Takes (urlPrefix: string, rootDirectory: string, options?: StaticOptions); returns this. A bad argument type is a
// TypeError, an option out of range a RangeError, a folder that cannot be opened (or an option the core refuses:
// a media type with a line break) an Error saying which and why.
void AppWrap::serveStatic(const v8::FunctionCallbackInfo<v8::Value>& args) {
    v8::Isolate* isolate = args.GetIsolate();
    BytesArgument prefixBytes;
    if (!args[0]->IsString() || !prefixBytes.read(isolate, args[0])) {
        return throwTypeError(isolate, "app.static: urlPrefix must be a string");
    }
    std::string prefix(prefixBytes.view());
    BytesArgument rootBytes;
    if (!args[1]->IsString() || !rootBytes.read(isolate, args[1])) {
        return throwTypeError(isolate, "app.static: rootDirectory must be a string");
    }
    std::string root(rootBytes.view());
    StaticFileOptions options;
    if (!args[2]->IsUndefined() && !args[2]->IsNull()) {
        if (!args[2]->IsObject() || args[2]->IsFunction()) {
            return throwTypeError(isolate, "app.static: options must be an object");
        }
        OptionFields fields(isolate, args[2].As<v8::Object>(), kOptions);
        std::uint64_t cacheBytes = options.cacheBytes;
        if (!readIndex(fields, options.index) || !readDotfiles(fields, options.dotfiles) ||
            !fields.readInteger("maxAge", 0, 0x7FFFFFFFu, options.maxAgeSeconds) ||
            !fields.readBoolean("immutable", options.immutable) ||
            !fields.readBoolean("precompressed", options.precompressed) ||
            !fields.readBoolean("compress", options.compress) || !fields.readBoolean("sendfile", options.sendfile) ||
            !fields.readBoolean("etag", options.etag) || !fields.readBoolean("lastModified", options.lastModified) ||
            !fields.readSize("cacheBytes", cacheBytes) || !readMimeTypes(fields, options.mimeTypes) ||
            !fields.readBoolean("fallthrough", options.fallthrough)) {
            return;
        }
        options.cacheBytes = static_cast<std::size_t>(cacheBytes);
    }
    std::string error;
    if (!unwrap(args).app_.tryServeStatic(prefix, root, options, error)) {
        return throwError(isolate, ("app." + error).c_str());
    }
    args.GetReturnValue().Set(args.This());
}

}  // namespace loopwire::addon
