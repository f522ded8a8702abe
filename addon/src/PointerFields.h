// PointerFields: stores a native pointer in an internal field of a res or req object with one plain store.
//
// V8 reads an aligned pointer from an internal field inline: GetAlignedPointerFromInternalField's fast path loads
// it from a fixed offset into the object. Storing one is a call, SetAlignedPointerInInternalField, which checks
// the index against the object's map every time: about 115 instructions, and a request stores four (res and req
// made usable, then unusable). set() stores at the offset the inline read loads from.
//
// The offset is learned, not taken from V8's headers (their names for it differ between versions): learn() stores
// distinct pointers through V8's API into a sample object, finds them in the object's memory, then stores others
// plainly and reads them back through V8's API. Only when both agree for every field does set() store directly;
// otherwise (a V8 built with its sandbox, where a field holds a handle into a table, or a V8 whose slots have
// another layout) every store goes through V8's API, as before.
//
// set() is for the addon's own objects only: instances of a class ClassBuilder made (a clone of a boilerplate, or
// the receiver of one of its methods, which V8 has checked). Learned once per process; loop thread.
#pragma once

#include "V8Compat.h"
#include "V8Headers.h"

#include <atomic>

namespace loopwire::addon {

class PointerFields {
public:
    // Learns the direct store on sample, a fresh instance with fieldCount internal fields that nothing else uses
    // (its fields are overwritten); does nothing once learned. Returns whether set() stores directly.
    static bool learn(v8::Local<v8::Object> sample, int fieldCount);

    // Whether set() stores directly (for the counting build's tests).
    static bool isDirect();

    // Stores pointer (at least 2-byte aligned, or null) in internal field index of object.
    static void set(v8::Local<v8::Object> object, int index, void* pointer) {
        int first = firstFieldOffset_.load(std::memory_order_relaxed);
        if (first == kUnknownOffset) return compat::setPointer(object, index, pointer);
        std::atomic_ref<v8::internal::Address>(*slotAt(object, first + index * kWordSize))
            .store(reinterpret_cast<v8::internal::Address>(pointer), std::memory_order_relaxed);
    }

private:
    static constexpr int kUnknownOffset = -1;
    static constexpr int kWordSize = static_cast<int>(sizeof(v8::internal::Address));

    // The word at offset bytes into object, as V8's inline field read addresses it.
    static v8::internal::Address* slotAt(v8::Local<v8::Object> object, int offset) {
        v8::internal::Address tagged = v8::internal::ValueHelper::ValueAsAddress(*object);
        return reinterpret_cast<v8::internal::Address*>(tagged - v8::internal::kHeapObjectTag +
                                                        static_cast<v8::internal::Address>(offset));
    }

    static int learnOffset(v8::Local<v8::Object> sample, int fieldCount);

    // Where field 0 is, in bytes from the object's start; kUnknownOffset until learned, or when it could not be.
    static inline std::atomic<int> firstFieldOffset_{kUnknownOffset};
    static inline std::atomic<bool> learned_{false};
};

}  // namespace loopwire::addon
