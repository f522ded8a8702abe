#include "StoreOwnerPool.h"

#include "SpinLock.h"

#include <cstddef>
#include <mutex>
#include <new>

namespace loopwire::addon::store_owner_pool {

namespace {

// Large enough for the control block of a shared_ptr with a stateless deleter and allocator in libstdc++ and
// libc++ (24 to 32 bytes); checked at compile time where the block type is known (SlotAllocator::allocate).
constexpr std::size_t kSlotBytes = 64;
// Slots added at a time when the free list is empty.
constexpr std::size_t kSlotsPerChunk = 64;

union Slot {
    Slot* next;
    alignas(std::max_align_t) unsigned char bytes[kSlotBytes];
};

class Pool {
public:
    void* take() {
        std::lock_guard<SpinLock> lock(lock_);
        if (free_ == nullptr) grow();
        Slot* slot = free_;
        free_ = slot->next;
        ++inUse_;
        return slot;
    }

    void give(void* memory) noexcept {
        std::lock_guard<SpinLock> lock(lock_);
        auto* slot = static_cast<Slot*>(memory);
        slot->next = free_;
        free_ = slot;
        --inUse_;
    }

    std::size_t inUse() {
        std::lock_guard<SpinLock> lock(lock_);
        return inUse_;
    }

private:
    // Chunks stay reachable through the free list or through the control blocks using their slots.
    void grow() {
        auto* chunk = new Slot[kSlotsPerChunk];
        for (std::size_t i = 0; i < kSlotsPerChunk; ++i) {
            chunk[i].next = free_;
            free_ = &chunk[i];
        }
    }

    // Held for a few stores (or a chunk's allocation when the list is empty), by the loop thread and, now and
    // then, a collector thread: a spin lock, not a mutex (which cost 60 instructions per lent buffer).
    SpinLock lock_;
    Slot* free_ = nullptr;
    std::size_t inUse_ = 0;
};

// Never destroyed: V8 may release a backing store while the process exits, after static destructors ran.
Pool& pool() {
    static Pool* const instance = new Pool();
    return *instance;
}

// The allocator shared_ptr rebinds to its control block type: one slot per block.
template <typename T>
struct SlotAllocator {
    using value_type = T;

    SlotAllocator() noexcept = default;
    template <typename U>
    explicit SlotAllocator(const SlotAllocator<U>&) noexcept {}

    T* allocate(std::size_t count) {
        static_assert(sizeof(T) <= kSlotBytes && alignof(T) <= alignof(std::max_align_t),
                      "a shared_ptr control block must fit a pool slot");
        if (count != 1) throw std::bad_alloc();
        return static_cast<T*>(pool().take());
    }
    void deallocate(T* memory, std::size_t) noexcept { pool().give(memory); }

    template <typename U>
    bool operator==(const SlotAllocator<U>&) const noexcept {
        return true;
    }
};

}  // namespace

std::shared_ptr<v8::BackingStore> share(std::unique_ptr<v8::BackingStore> store) {
    // The deleter is unique_ptr's own, so the store is destroyed exactly as unique_ptr would have.
    return std::shared_ptr<v8::BackingStore>(store.release(), std::default_delete<v8::BackingStore>(),
                                             SlotAllocator<v8::BackingStore>());
}

std::size_t slotsInUse() noexcept { return pool().inUse(); }

}  // namespace loopwire::addon::store_owner_pool
