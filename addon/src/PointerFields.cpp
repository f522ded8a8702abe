#include "PointerFields.h"

#include "V8Compat.h"

#include <array>
#include <atomic>
#include <cstdint>

// Why a plain store is enough where V8's setter does more:
// - An aligned pointer has its low bit clear, so the garbage collector sees the slot as a small integer, never as
//   a reference: storing one needs no write barrier. V8's own setter stores it the same way.
// - V8 11 (Node 20) also runs a marking barrier after the store, for wrappers of C++ objects on its own C++ heap
//   (cppgc). The addon's objects are never such wrappers: their fields point to loopwire's memory, not to the
//   embedder's heap, so that barrier has nothing to do for them.
// - The slot is read by the collector's concurrent marker, so the store is atomic (relaxed), as V8's is; on
//   x86-64 and arm64 that is an ordinary store of a word.
// - Pointer compression packs objects at 4-byte alignment, where a word-sized atomic store could straddle; with it
//   (kApiTaggedSize 4) nothing is learned and every store takes V8's setter.

namespace loopwire::addon {

namespace {

using Address = v8::internal::Address;

// Every V8 from 11 to 14 places internal fields after three or four header words (map, properties, elements, and
// in V8 12 on a C++ heap pointer): the first field is looked for only there, so that the search never reads past
// the sample's own words.
constexpr int kFirstFieldWordBound = 5;

// Distinct aligned addresses, stored as the sample's field values; never dereferenced.
alignas(16) std::array<std::uint64_t, 64> markers{};

void* marker(int index) { return &markers[static_cast<std::size_t>(index) % markers.size()]; }

}  // namespace

int PointerFields::learnOffset(v8::Local<v8::Object> sample, int fieldCount) {
    if (v8::internal::kApiTaggedSize != kWordSize || fieldCount < 2 ||
        static_cast<std::size_t>(fieldCount) * 2 > markers.size()) {
        return kUnknownOffset;
    }
    for (int index = 0; index < fieldCount; ++index)
        compat::setPointer(sample, index, marker(index));
    int first = kUnknownOffset;
    for (int word = 1; word < kFirstFieldWordBound; ++word) {
        if (*slotAt(sample, word * kWordSize) == reinterpret_cast<Address>(marker(0))) first = word * kWordSize;
    }
    if (first == kUnknownOffset) return kUnknownOffset;
    for (int index = 1; index < fieldCount; ++index) {
        if (*slotAt(sample, first + index * kWordSize) != reinterpret_cast<Address>(marker(index))) {
            return kUnknownOffset;
        }
    }
    // The other way round: plain stores, read back by V8.
    for (int index = 0; index < fieldCount; ++index) {
        std::atomic_ref<Address>(*slotAt(sample, first + index * kWordSize))
            .store(reinterpret_cast<Address>(marker(fieldCount + index)), std::memory_order_relaxed);
    }
    for (int index = 0; index < fieldCount; ++index) {
        if (compat::getPointer(sample, index) != marker(fieldCount + index)) return kUnknownOffset;
    }
    return first;
}

bool PointerFields::learn(v8::Local<v8::Object> sample, int fieldCount) {
    // Workers may learn at once: each on its own sample, with the same result.
    if (!learned_.load(std::memory_order_acquire)) {
        firstFieldOffset_.store(learnOffset(sample, fieldCount), std::memory_order_relaxed);
        learned_.store(true, std::memory_order_release);
    }
    return isDirect();
}

bool PointerFields::isDirect() { return firstFieldOffset_.load(std::memory_order_relaxed) != kUnknownOffset; }

}  // namespace loopwire::addon
