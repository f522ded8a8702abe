// StoreOwnerPool: the memory of the reference counts that own the V8 backing stores of lent buffers.
//
// V8 takes a backing store as a std::shared_ptr, whose control block (the reference count, about 32 bytes) the
// shared_ptr would allocate on the heap for every lent buffer: one allocation per body chunk. share() builds the
// shared_ptr with this pool's allocator instead, which hands out slots of a free list and grows it a chunk of
// slots at a time, so lending allocates nothing once the pool holds as many slots as buffers are alive at once.
//
// V8 releases a backing store from whichever thread drops the last reference (a garbage collector thread, or a
// worker the buffer was transferred to), so the pool is process-wide and locked (by a SpinLock). Its slots are never
// returned to the system: they are bounded by the most lent buffers alive at one time.
#pragma once

#include "V8Headers.h"

#include <memory>

namespace loopwire::addon::store_owner_pool {

// Shares store, with its reference count in a slot of the pool.
std::shared_ptr<v8::BackingStore> share(std::unique_ptr<v8::BackingStore> store);

// Slots handed out and not yet returned (for tests).
std::size_t slotsInUse() noexcept;

}  // namespace loopwire::addon::store_owner_pool
