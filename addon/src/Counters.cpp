// The counting build only (LW_ADDON_COUNTERS): the counters, the operator new that counts the addon's own
// allocations, and the _counters() function the JS tests read them with.
#include "Counters.h"

#include "AddonState.h"
#include "ClassBuilder.h"
#include "PointerFields.h"
#include "SequentialStrings.h"
#include "StoreOwnerPool.h"
#include "V8Compat.h"

#include <cstdlib>
#include <new>

namespace loopwire::addon {

CounterValues& counterValues() noexcept {
    static CounterValues values;
    return values;
}

namespace {

void* countedAllocation(std::size_t size) {
    counterValues().allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
    throw std::bad_alloc();
}

void* countedAlignedAllocation(std::size_t size, std::align_val_t alignment) {
    counterValues().allocations.fetch_add(1, std::memory_order_relaxed);
    std::size_t align = static_cast<std::size_t>(alignment);
    std::size_t rounded = (size + align - 1) / align * align;
    if (void* memory = std::aligned_alloc(align, rounded == 0 ? align : rounded)) return memory;
    throw std::bad_alloc();
}

void setNumber(v8::Local<v8::Context> context, v8::Local<v8::Object> object, const char* name, double value) {
    v8::Isolate* isolate = compat::isolateOf(context);
    object->Set(context, v8::String::NewFromUtf8(isolate, name).ToLocalChecked(), v8::Number::New(isolate, value))
        .Check();
}

// Takes nothing; returns {handlesCreated, handlesAlive, allocations, pendingResponses, lentStores, lentStoresMade,
// callsIntoJavaScript,
// directPointerFields (1 when res and req fields are stored without V8's setter, see PointerFields.h),
// directStrings (1 when string arguments are read where V8 keeps them, see SequentialStrings.h)}.
void readCounters(const v8::FunctionCallbackInfo<v8::Value>& args) {
    AddonState& state = AddonState::from(args);
    v8::Local<v8::Context> context = args.GetIsolate()->GetCurrentContext();
    v8::Local<v8::Object> result = v8::Object::New(args.GetIsolate());
    CounterValues& values = counterValues();
    setNumber(context, result, "handlesCreated", static_cast<double>(values.handlesCreated.load()));
    setNumber(context, result, "handlesAlive", static_cast<double>(values.handlesAlive.load()));
    setNumber(context, result, "allocations", static_cast<double>(values.allocations.load()));
    setNumber(context, result, "pendingResponses", static_cast<double>(state.pending().inUse()));
    setNumber(context, result, "lentStores", static_cast<double>(store_owner_pool::slotsInUse()));
    setNumber(context, result, "lentStoresMade", static_cast<double>(values.lentStoresMade.load()));
    setNumber(context, result, "callsIntoJavaScript", static_cast<double>(values.callsIntoJavaScript.load()));
    setNumber(context, result, "directPointerFields", PointerFields::isDirect() ? 1 : 0);
    setNumber(context, result, "directStrings", SequentialStrings::isDirect() ? 1 : 0);
    args.GetReturnValue().Set(result);
}

}  // namespace

void exportCounters(AddonState& state, v8::Local<v8::Object> exports, v8::Local<v8::External> data) {
    v8::Local<v8::Context> context = state.context();
    exports
        ->Set(context, v8::String::NewFromUtf8(state.isolate(), "_counters").ToLocalChecked(),
              ClassBuilder::function(context, data, "_counters", &readCounters))
        .Check();
}

}  // namespace loopwire::addon

// The counting module is linked with -Bsymbolic, so these replace operator new for the addon's own code and the
// core inside it, and for nothing else in the process.
void* operator new(std::size_t size) { return loopwire::addon::countedAllocation(size); }
void* operator new[](std::size_t size) { return loopwire::addon::countedAllocation(size); }
void* operator new(std::size_t size, std::align_val_t alignment) {
    return loopwire::addon::countedAlignedAllocation(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
    return loopwire::addon::countedAlignedAllocation(size, alignment);
}
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete[](void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete(void* memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t, std::align_val_t) noexcept { std::free(memory); }
