// Handle<T>: a strong (or weak) reference from native code to a JavaScript value; a v8::Global with a noexcept
// move.
//
// Why: v8::Global's move constructor cannot throw but is not declared noexcept, and InlineFunction refuses a
// callable whose move may throw, so a capture holding a raw v8::Global would not compile (and
// std::move_only_function would silently put it on the heap). Every capture the addon stores in an
// InlineFunction holds its JavaScript values through Handle, and static_asserts next to each one prove it fits.
//
// Ownership: a Handle owns its global handle; moving leaves the source empty; reset() and the destructor release
// it. Creating one costs a V8 global handle (counted in the counting build, see Counters.h). Loop thread only.
#pragma once

#include "Counters.h"
#include "V8Headers.h"

#include <type_traits>
#include <utility>

namespace loopwire::addon {

template <typename T>
class Handle {
public:
    Handle() noexcept = default;
    Handle(v8::Isolate* isolate, v8::Local<T> value) : global_(isolate, value) {
        if (!global_.IsEmpty()) countHandleCreated();
    }
    Handle(Handle&& other) noexcept : global_(std::move(other.global_)) {}
    Handle& operator=(Handle&& other) noexcept {
        if (this != &other) {
            reset();
            global_ = std::move(other.global_);
        }
        return *this;
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { reset(); }

    void reset() noexcept {
        if (!global_.IsEmpty()) {
            global_.Reset();
            countHandleReleased();
        }
    }

    bool empty() const noexcept { return global_.IsEmpty(); }
    v8::Local<T> get(v8::Isolate* isolate) const { return global_.Get(isolate); }

    // Makes the reference weak: callback(parameter) runs (first pass) when only weak references remain; it must
    // reset() this Handle.
    template <typename P>
    void setWeak(P* parameter, typename v8::WeakCallbackInfo<P>::Callback callback) {
        global_.SetWeak(parameter, callback, v8::WeakCallbackType::kParameter);
    }
    void clearWeak() { global_.ClearWeak(); }

private:
    v8::Global<T> global_;
};

static_assert(std::is_nothrow_move_constructible_v<Handle<v8::Object>>);
static_assert(sizeof(Handle<v8::Object>) == sizeof(void*));

}  // namespace loopwire::addon
