#include "ClassBuilder.h"

#include "V8Compat.h"

namespace loopwire::addon {

namespace {

v8::Local<v8::String> name(v8::Isolate* isolate, const char* text) {
    return v8::String::NewFromUtf8(isolate, text, v8::NewStringType::kInternalized).ToLocalChecked();
}

// The classes are not constructible from JavaScript: `new res.constructor()` would make an object whose internal
// fields hold no pointers, which the methods would then read. Instances come from ObjectTemplate::NewInstance,
// which does not call this.
void illegalConstructor(const v8::FunctionCallbackInfo<v8::Value>& args) {
    args.GetIsolate()->ThrowException(v8::Exception::TypeError(
        v8::String::NewFromUtf8Literal(args.GetIsolate(), "Illegal constructor: loopwire creates these objects")));
}

}  // namespace

ClassBuilder::ClassBuilder(v8::Isolate* isolate, v8::Local<v8::External> data, const char* className,
                           int internalFields)
    : isolate_(isolate), data_(data), class_(v8::FunctionTemplate::New(isolate, &illegalConstructor)) {
    class_->SetClassName(name(isolate, className));
    class_->InstanceTemplate()->SetInternalFieldCount(internalFields);
    signature_ = v8::Signature::New(isolate, class_);
}

ClassBuilder& ClassBuilder::method(const char* methodName, v8::FunctionCallback callback) {
    v8::Local<v8::FunctionTemplate> function =
        v8::FunctionTemplate::New(isolate_, callback, data_, signature_, 0, v8::ConstructorBehavior::kThrow);
    class_->PrototypeTemplate()->Set(name(isolate_, methodName), function);
    return *this;
}

v8::Local<v8::Function> ClassBuilder::function(v8::Local<v8::Context> context, v8::Local<v8::External> data,
                                               const char* functionName, v8::FunctionCallback callback) {
    v8::Isolate* isolate = compat::isolateOf(context);
    v8::Local<v8::Function> function =
        v8::FunctionTemplate::New(isolate, callback, data)->GetFunction(context).ToLocalChecked();
    function->SetName(name(isolate, functionName));
    return function;
}

}  // namespace loopwire::addon
