// app.compress(pattern, options?): the core's App::tryCompress, which codes the responses of the routes pattern
// matches as they are written (docs/compression.md). Here only the arguments are read.
#include "AppWrap.h"

#include "BytesArgument.h"
#include "Errors.h"
#include "OptionFields.h"

#include <loopwire/ResponseCompressionOptions.h>

#include <string>

namespace loopwire::addon {

namespace {

constexpr const char* kOptions = "app.compress: options";

// options.codings: an array of 'br', 'zstd' and 'gzip', the server's preference first.
bool readCodings(OptionFields& fields, std::vector<std::string>& codings) {
    v8::Isolate* isolate = fields.isolate();
    v8::Local<v8::Value> value;
    if (!fields.get("codings", value)) return false;
    if (value->IsUndefined()) return true;
    const std::string name = fields.nameOf("codings");
    if (!value->IsArray()) {
        throwTypeError(isolate, (name + " must be an array of 'br', 'zstd' and 'gzip'").c_str());
        return false;
    }
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    v8::Local<v8::Array> array = value.As<v8::Array>();
    codings.clear();
    for (std::uint32_t i = 0; i < array->Length(); ++i) {
        v8::Local<v8::Value> element;
        if (!array->Get(context, i).ToLocal(&element)) return false;
        BytesArgument token;
        if (!element->IsString() || !token.read(isolate, element)) {
            throwTypeError(isolate, (name + " must be an array of 'br', 'zstd' and 'gzip'").c_str());
            return false;
        }
        if (token.view() != "br" && token.view() != "zstd" && token.view() != "gzip") {
            throwRangeError(
                isolate,
                (name + ": '" + std::string(token.view()) + "' is not one of 'br', 'zstd' and 'gzip'").c_str());
            return false;
        }
        codings.emplace_back(token.view());
    }
    return true;
}

}  // namespace

// Takes (pattern: string, options?: ResponseCompressionOptions); returns this. A bad argument type is a TypeError, a
// value out of range a RangeError, a pattern the core refuses (malformed, or with a rule already) an Error.
void AppWrap::compress(const v8::FunctionCallbackInfo<v8::Value>& args) {
    v8::Isolate* isolate = args.GetIsolate();
    BytesArgument patternBytes;
    if (!args[0]->IsString() || !patternBytes.read(isolate, args[0])) {
        return throwTypeError(isolate, "app.compress: pattern must be a string");
    }
    std::string pattern(patternBytes.view());
    ResponseCompressionOptions options;
    if (!args[1]->IsUndefined() && !args[1]->IsNull()) {
        if (!args[1]->IsObject() || args[1]->IsFunction()) {
            return throwTypeError(isolate, "app.compress: options must be an object");
        }
        OptionFields fields(isolate, args[1].As<v8::Object>(), kOptions);
        std::uint32_t gzip = static_cast<std::uint32_t>(options.gzipLevel);
        std::uint32_t brotli = static_cast<std::uint32_t>(options.brotliLevel);
        std::uint32_t zstd = static_cast<std::uint32_t>(options.zstdLevel);
        if (!readCodings(fields, options.codings) || !fields.readSize("minBytes", options.minBytes) ||
            !fields.readInteger("gzipLevel", 1, 9, gzip) || !fields.readInteger("brotliLevel", 0, 11, brotli) ||
            !fields.readInteger("zstdLevel", 1, 19, zstd)) {
            return;
        }
        options.gzipLevel = static_cast<int>(gzip);
        options.brotliLevel = static_cast<int>(brotli);
        options.zstdLevel = static_cast<int>(zstd);
    }
    std::string error;
    if (!unwrap(args).app_.tryCompress(pattern, options, error)) {
        return throwError(isolate, ("app." + error).c_str());
    }
    args.GetReturnValue().Set(args.This());
}

}  // namespace loopwire::addon
