#include "ServingOptions.h"

#include "BytesArgument.h"
#include "Errors.h"

#include <string>
#include <utility>
#include <vector>

namespace loopwire::addon {

namespace {

// options.dotfiles: 'deny' or 'allow'.
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

// options.mimeTypes: { extension: contentType }.
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

bool readServingOptions(OptionFields& fields, FileServingOptions& options) {
    std::uint64_t cacheBytes = options.cacheBytes;
    if (!readDotfiles(fields, options.dotfiles) ||
        !fields.readInteger("maxAge", 0, 0x7FFFFFFFu, options.maxAgeSeconds) ||
        !fields.readBoolean("immutable", options.immutable) ||
        !fields.readBoolean("precompressed", options.precompressed) ||
        !fields.readBoolean("compress", options.compress) || !fields.readBoolean("sendfile", options.sendfile) ||
        !fields.readBoolean("etag", options.etag) || !fields.readBoolean("lastModified", options.lastModified) ||
        !fields.readSize("cacheBytes", cacheBytes) || !readMimeTypes(fields, options.mimeTypes)) {
        return false;
    }
    options.cacheBytes = static_cast<std::size_t>(cacheBytes);
    return true;
}

}  // namespace loopwire::addon
