// PendingResponses: where the native side keeps its reference to a `res` object whose response has callbacks
// registered (onAborted, onData, onDataV2, collectBody, onWritable), one Entry per such response.
//
// The rule it implements (DESIGN.md, "one global handle per request"): the JavaScript callbacks live in internal
// fields of `res` itself, and the native side holds exactly one global handle, to `res`, in the Entry, however
// many callbacks are registered. A request that registers none has no Entry and no handle.
//
// Every callback stored in the core (an InlineFunction of 32 bytes) captures a Ref: a counted pointer to the
// Entry, 8 bytes, noexcept move. The Entry is released (its handle reset, its collectBody buffer freed, the slot
// returned) when the core drops the last callback, which happens once the response is complete or aborted.
// Before that, the res object has been invalidated, so no JavaScript can reach a released Entry.
//
// Allocation: entries come from blocks of kBlockEntries allocated up front (one block at construction); a new
// block is allocated only when more responses than ever before are pending at once. So acquiring an Entry, and
// hence registering a callback, allocates nothing in the steady state. Entries never move. Loop thread only.
#pragma once

#include "Handle.h"
#include "V8Headers.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace loopwire::addon {

class AddonState;

class PendingResponses {
public:
    // Entries allocated together; 64 pending responses at once before the first growth.
    static constexpr std::size_t kBlockEntries = 64;

    // Which core callbacks an Entry has registered on its response (each kind is registered once per request;
    // later calls from JavaScript only replace the function in the internal field).
    enum Registered : std::uint8_t {
        kAborted = 1 << 0,
        kData = 1 << 1,
        kDataV2 = 1 << 2,
        kWritable = 1 << 3,
    };

    struct Entry {
        Handle<v8::Object> response;  // the res object: the one global handle of this request
        PendingResponses* owner = nullptr;
        std::uint32_t references = 0;
        std::uint8_t registered = 0;
        // collectBody: the onDataV2 callback assembles the body instead of calling the onDataV2 function.
        bool collecting = false;
        bool collectOverflowed = false;
        std::uint64_t collectLimit = 0;
        std::unique_ptr<char[]> collected;  // allocated when a body arrives in more than one piece
        std::size_t collectedSize = 0;
        std::size_t collectedCapacity = 0;
        Entry* nextFree = nullptr;
    };

    // A counted reference to an Entry: what the per-request callbacks capture.
    class Ref {
    public:
        Ref() noexcept = default;
        explicit Ref(Entry* entry) noexcept : entry_(entry) { ++entry_->references; }
        Ref(Ref&& other) noexcept : entry_(other.entry_) { other.entry_ = nullptr; }
        Ref& operator=(Ref&& other) noexcept;
        Ref(const Ref&) = delete;
        Ref& operator=(const Ref&) = delete;
        ~Ref() { release(); }

        Entry* get() const noexcept { return entry_; }

    private:
        void release() noexcept;
        Entry* entry_ = nullptr;
    };

    explicit PendingResponses(AddonState& state);
    ~PendingResponses();
    PendingResponses(const PendingResponses&) = delete;
    PendingResponses& operator=(const PendingResponses&) = delete;

    AddonState& state() const noexcept { return state_; }

    // Takes a free Entry for the res object `response` (creating its global handle). The caller makes a Ref to
    // it at once; the Entry goes back when the last Ref goes.
    Entry* acquire(v8::Isolate* isolate, v8::Local<v8::Object> response);

    // Entries in use right now (for tests and leak checks).
    std::size_t inUse() const noexcept { return inUse_; }

private:
    void addBlock();
    void recycle(Entry* entry) noexcept;

    AddonState& state_;
    std::vector<std::unique_ptr<Entry[]>> blocks_;
    Entry* free_ = nullptr;
    std::size_t inUse_ = 0;
};

}  // namespace loopwire::addon
