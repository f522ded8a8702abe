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
constexpr const char* kHeaders = "res.sendFile: options.headers";
// Fields read from options.requestHeaders or options.headers: more is a mistake (seven request fields count).
constexpr std::uint32_t kMaxFields = 32;

// Fields given as { name: value } (options.requestHeaders, options.headers): copies whose strings keep their
// capacity from call to call, and the views SendFileOptions takes.
struct FieldCopies {
    std::vector<std::pair<std::string, std::string>> copies;
    std::vector<HeaderField> views;
};

// What one call reads, kept per thread (each thread has its own loop and addon instance) so that its strings and
// vectors are reused.
struct SendFileArguments {
    SendFileOptions options;
    FieldCopies requestHeaders;
    FieldCopies headers;

    // Back to the defaults, keeping the strings' and vectors' storage.
    void reset() {
        std::string root = std::move(options.root);
        std::vector<std::pair<std::string, std::string>> types = std::move(options.mimeTypes);
        options = SendFileOptions{};
        root.clear();
        types.clear();
        options.root = std::move(root);
        options.mimeTypes = std::move(types);
        requestHeaders.views.clear();
        headers.views.clear();
    }
};

thread_local SendFileArguments arguments;

// options.requestHeaders (copied from the request before an await) or options.headers (fields of the answer):
// { name: value }, at most kMaxFields. Response fields are checked as writeHeader checks them.
bool readFields(OptionFields& fields, const char* field, std::string_view name, bool responseFields,
                FieldCopies& into) {
    v8::Isolate* isolate = fields.isolate();
    v8::Local<v8::Value> value;
    if (!fields.get(field, value)) return false;
    if (value->IsUndefined() || value->IsNull()) return true;
    if (!value->IsObject() || value->IsFunction() || value->IsArray()) {
        throwTypeError(isolate, (std::string(name) + " must be an object of name: value").c_str());
        return false;
    }
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    v8::Local<v8::Object> object = value.As<v8::Object>();
    v8::Local<v8::Array> names;
    if (!object->GetOwnPropertyNames(context).ToLocal(&names)) return false;
    if (names->Length() > kMaxFields) {
        throwRangeError(isolate,
                        (std::string(name) + " holds more than " + std::to_string(kMaxFields) + " fields").c_str());
        return false;
    }
    if (into.copies.size() < names->Length()) into.copies.resize(names->Length());
    OptionFields entries(isolate, object, name);
    for (std::uint32_t i = 0; i < names->Length(); ++i) {
        v8::Local<v8::Value> key;
        if (!names->Get(context, i).ToLocal(&key)) return false;
        BytesArgument keyBytes;
        if (!key->IsString() || !keyBytes.read(isolate, key)) {
            throwTypeError(isolate, (std::string(name) + " keys must be strings").c_str());
            return false;
        }
        auto& [copiedName, copiedValue] = into.copies[i];
        copiedName.assign(keyBytes.view());
        copiedValue.clear();
        if (!entries.readString(copiedName.c_str(), copiedValue)) return false;
        if (responseFields &&
            (!HttpResponse::isValidHeaderName(copiedName) || !HttpResponse::isValidHeaderValue(copiedValue))) {
            throwTypeError(isolate, (std::string(name) + ": \"" + copiedName +
                                     "\" must be a header name (a token) with a value without CR, LF or NUL")
                                        .c_str());
            return false;
        }
    }
    for (std::uint32_t i = 0; i < names->Length(); ++i)
        into.views.emplace_back(into.copies[i].first, into.copies[i].second);
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
            !readFields(fields, "requestHeaders", kRequestHeaders, false, read.requestHeaders) ||
            !readFields(fields, "headers", kHeaders, true, read.headers)) {
            return;
        }
        read.options.requestHeaders = read.requestHeaders.views;
        read.options.headers = read.headers.views;
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
