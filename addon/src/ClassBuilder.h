// ClassBuilder: builds the JavaScript class (a v8::FunctionTemplate) of one wrapped native type.
//
//     Local<FunctionTemplate> cls = ClassBuilder(isolate, data, "uWS.HttpResponse", kFieldCount)
//         .method("end", &ResponseWrap::end)
//         .build();
//
// Instances get `internalFields` internal fields; the class itself throws when JavaScript calls it (new
// res.constructor()), so every instance comes from the addon, with its fields set. Methods go on the prototype with a
// v8::Signature, so V8 itself throws a TypeError ("Illegal invocation") when one is called on anything that is not an
// instance (res.end.call({})), and the binding functions may read their receiver's internal fields without checking its
// type. Every function receives `data` (the AddonState, as a v8::External) in args.Data(). Set-up time only.
#pragma once

#include "V8Headers.h"

namespace loopwire::addon {

class ClassBuilder {
public:
    ClassBuilder(v8::Isolate* isolate, v8::Local<v8::External> data, const char* className, int internalFields);

    ClassBuilder& method(const char* name, v8::FunctionCallback callback);
    v8::Local<v8::FunctionTemplate> build() const { return class_; }

    // A plain function (no receiver check) for the module's exports.
    static v8::Local<v8::Function> function(v8::Local<v8::Context> context, v8::Local<v8::External> data,
                                            const char* name, v8::FunctionCallback callback);

private:
    v8::Isolate* isolate_;
    v8::Local<v8::External> data_;
    v8::Local<v8::FunctionTemplate> class_;
    v8::Local<v8::Signature> signature_;
};

}  // namespace loopwire::addon
