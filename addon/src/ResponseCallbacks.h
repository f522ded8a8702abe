// ResponseCallbacks: the callables the addon stores in the core for one response, one per kind of callback.
//
// Each captures only a PendingResponses::Ref (8 bytes, noexcept move), so it is stored inline in the core's
// InlineFunction<..., kCallbackCapacity>, and registering it allocates nothing; the static_asserts in
// ResponseCallbacks.cpp prove that each fits. Each finds res through its Entry, and the JavaScript function in
// res's internal field, at the time of the call (so a later res.onData(f) only replaces the field).
//
// Who calls them: the core, from the loop, after the handler returned (or from inside a res method that closes
// the connection). They call JavaScript through AddonState::callFromLoop; during teardown they call nothing but
// still invalidate res.
#pragma once

#include "PendingResponses.h"

#include <cstdint>
#include <string_view>

namespace loopwire::addon {

// The peer went away, the App closed, or the request failed before completion: invalidates res, then calls the
// last function given to res.onAborted (once: the core calls this at most once).
struct AbortedCallback {
    PendingResponses::Ref entry;
    void operator()();
};

// A chunk of the request body for res.onData(chunk: ArrayBuffer, isLast: boolean).
struct DataCallback {
    PendingResponses::Ref entry;
    void operator()(std::string_view chunk, bool isLast);
};

// A chunk for res.onDataV2(chunk: ArrayBuffer, maxRemainingBodyLength: bigint), or, after res.collectBody, the
// next piece of the body to assemble.
struct DataV2Callback {
    PendingResponses::Ref entry;
    void operator()(std::string_view chunk, std::uint64_t maxRemainingBodyLength);
};

// The connection can take more bytes: res.onWritable(offset: number) => boolean.
struct WritableCallback {
    PendingResponses::Ref entry;
    bool operator()(std::uint64_t offset);
};

}  // namespace loopwire::addon
