// CallbackBatchRunner: runs each batch of a loop's callbacks, for an embedder that sets something up per entry
// into its own runtime. The Node addon opens one callback scope per batch, lazily, instead of one per call into
// JavaScript, so that microtasks and process.nextTick callbacks run once per batch, as node:http runs them once
// per read.
//
// A batch is what one wake-up of the backend runs: for epoll, the due timers, then every descriptor one
// epoll_wait reported (and the deferred tasks); for libuv, each callback libuv makes (one descriptor's readiness,
// the timers, a wakeup), since nothing may stay open across them. Set with App::setBatchRunner (before run(),
// on the loop thread). runBatch() must call body(argument) exactly once, on the loop thread; batches never nest.
//
// `sources` says how many event sources the batch serves (the descriptors one wait reported; 1 for the timers, a
// wakeup or the connections resumed after a batch): a hint of how many calls into the runtime it may make, for a
// runner that sets up something worth sharing only among several.
#pragma once

#include <cstdint>

namespace loopwire {

class CallbackBatchRunner {
public:
    virtual void runBatch(void (*body)(void*), void* argument, std::uint32_t sources) = 0;

protected:
    ~CallbackBatchRunner() = default;
};

}  // namespace loopwire
