// app.static(urlPrefix, rootDirectory, options?): the core's App::tryServeStatic, which serves the folder with no call
// into JavaScript per request (docs/static-files.md). Here only the arguments are read.
#include "AppWrap.h"

#include "BytesArgument.h"
#include "Errors.h"
#include "OptionFields.h"
#include "ServingOptions.h"

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
        if (!readIndex(fields, options.index) || !readServingOptions(fields, options) ||
            !fields.readBoolean("fallthrough", options.fallthrough)) {
            return;
        }
    }
    std::string error;
    if (!unwrap(args).app_.tryServeStatic(prefix, root, options, error)) {
        return throwError(isolate, ("app." + error).c_str());
    }
    args.GetReturnValue().Set(args.This());
}

}  // namespace loopwire::addon
