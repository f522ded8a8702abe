// res.sendFile(path, options?): the core's HttpResponse::sendFile, which answers with the file in native code
// (docs/static-files.md, "One file from a handler"). Here the arguments are read, without allocating once the same
// options have been read before: they go into one SendFileOptions per thread, whose strings keep their capacity.
#include "ResponseWrap.h"

#include "BytesArgument.h"
#include "Errors.h"
#include "OptionFields.h"
#include "PointerFields.h"
#include "ServingOptions.h"
#include "V8Compat.h"

#include <loopwire/StaticFileOptions.h>

#include <string>
#include <utility>
#include <vector>

namespace loopwire::addon {

namespace {

using Args = v8::FunctionCallbackInfo<v8::Value>;

constexpr const char* kOptions = "res.sendFile: options";
constexpr const char* kRequestHeaders = "res.sendFile: options.requestHeaders";
// Copied request fields read from options.requestHeaders: more than the seven that count is a mistake.
constexpr std::uint32_t kMaxRequestHeaders = 32;

// What one call reads, kept per thread (each thread has its own loop and addon instance) so that its strings and
// vectors are reused.
struct SendFileArguments {
    SendFileOptions options;
    std::vector<std::pair<std::string, std::string>> headerCopies;
    std::vector<RequestHeaderField> headerViews;

    // Back to the defaults, keeping the strings' and vectors' storage.
    void reset() {
        std::string root = std::move(options.root);
        std::vector<std::pair<std::string, std::string>> types = std::move(options.mimeTypes);
        options = SendFileOptions{};
        root.clear();
        types.clear();
        options.root = std::move(root);
        options.mimeTypes = std::move(types);
        headerViews.clear();
    }
};

thread_local SendFileArguments arguments;

// options.requestHeaders: { name: value } copied from the request before an await.
bool readRequestHeaders(OptionFields& fields, SendFileArguments& into) {
    v8::Isolate* isolate = fields.isolate();
    v8::Local<v8::Value> value;
    if (!fields.get("requestHeaders", value)) return false;
    if (value->IsUndefined() || value->IsNull()) return true;
    if (!value->IsObject() || value->IsFunction() || value->IsArray()) {
        throwTypeError(isolate, (std::string(kRequestHeaders) + " must be an object of name: value").c_str());
        return false;
    }
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    v8::Local<v8::Object> object = value.As<v8::Object>();
    v8::Local<v8::Array> names;
    if (!object->GetOwnPropertyNames(context).ToLocal(&names)) return false;
    if (names->Length() > kMaxRequestHeaders) {
        throwRangeError(isolate, (std::string(kRequestHeaders) + " holds more than " +
                                  std::to_string(kMaxRequestHeaders) + " fields")
                                     .c_str());
        return false;
    }
    if (into.headerCopies.size() < names->Length()) into.headerCopies.resize(names->Length());
    OptionFields entries(isolate, object, kRequestHeaders);
    for (std::uint32_t i = 0; i < names->Length(); ++i) {
        v8::Local<v8::Value> name;
        if (!names->Get(context, i).ToLocal(&name)) return false;
        BytesArgument nameBytes;
        if (!name->IsString() || !nameBytes.read(isolate, name)) {
            throwTypeError(isolate, (std::string(kRequestHeaders) + " keys must be strings").c_str());
            return false;
        }
        auto& [copiedName, copiedValue] = into.headerCopies[i];
        copiedName.assign(nameBytes.view());
        copiedValue.clear();
        if (!entries.readString(copiedName.c_str(), copiedValue)) return false;
    }
    for (std::uint32_t i = 0; i < names->Length(); ++i)
        into.headerViews.emplace_back(into.headerCopies[i].first, into.headerCopies[i].second);
    into.options.requestHeaders = into.headerViews;
    return true;
}

}  // namespace

// Takes (path: string, options?: SendFileOptions); returns this, which is no longer usable: the core completes the
// response, or streams it and completes it later (onAborted still runs if the peer leaves first). A bad argument
// is a TypeError or RangeError, options the core cannot use (a root that is not a folder) an Error; res stays
// usable after any of them.
void ResponseWrap::sendFile(const Args& args) {
    HttpResponse* response = unwrap(args, "res.sendFile");
    if (response == nullptr) return;
    v8::Isolate* isolate = args.GetIsolate();
    if (!args[0]->IsString()) return throwTypeError(isolate, "res.sendFile: path must be a string");
    SendFileArguments& read = arguments;
    read.reset();
    if (!args[1]->IsUndefined() && !args[1]->IsNull()) {
        if (!args[1]->IsObject() || args[1]->IsFunction()) {
            return throwTypeError(isolate, "res.sendFile: options must be an object");
        }
        OptionFields fields(isolate, args[1].As<v8::Object>(), kOptions);
        if (!fields.readString("root", read.options.root) || !readServingOptions(fields, read.options) ||
            !readRequestHeaders(fields, read)) {
            return;
        }
    }
    // Read after the options, whose strings are copies by now, so that a long path may take the scratch buffer.
    BytesArgument path;
    if (!path.read(isolate, args[0])) return throwTypeError(isolate, "res.sendFile: path must be a string");
    if (read.options.root.empty() && (path.view().empty() || path.view().front() != '/')) {
        return throwTypeError(isolate, "res.sendFile: path must be absolute unless options.root is given");
    }
    // Unusable before the core runs: a response completed at once may run the next pipelined request's handler
    // before sendFile returns. Restored when the core refuses the options, having written nothing.
    v8::Local<v8::Object> res = args.This();
    void* entry = compat::getPointer(res, kEntry);
    invalidate(res);
    std::string error;
    if (!response->sendFile(path.view(), read.options, &error)) {
        PointerFields::set(res, kResponse, response);
        if (entry != nullptr) PointerFields::set(res, kEntry, entry);
        return throwError(isolate, ("res." + error).c_str());
    }
    args.GetReturnValue().Set(res);
}

}  // namespace loopwire::addon
