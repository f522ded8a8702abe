// AddonState: everything the addon keeps for one Node environment (the main thread, or one worker thread).
//
// Created when the environment loads the module (Module.cpp); it owns the classes (templates) of App,
// HttpResponse, HttpRequest and ListenSocket, the Apps created in this environment, the pending-response entries,
// and the async context its callbacks run in. Nothing is shared between environments, so each worker has its own
// loop (node::GetCurrentEventLoop), its own Apps and its own state.
//
// Teardown: an asynchronous environment cleanup hook (node::AddEnvironmentCleanupHook) runs when the
// environment ends (process exit, worker exit or terminate()). It stops JavaScript calls (canCallJavaScript()
// turns false: callbacks still invalidate their objects, but call nothing), destroys every App (closing their
// sockets), releases every global handle, and tells Node it is done only once libuv has run the close callbacks
// of the core's handles, because a worker's loop must have no open handle when Node closes it.
//
// Binding functions find the state through the v8::External given as data to their FunctionTemplate (from()).
#pragma once

#include "Handle.h"
#include "PendingResponses.h"
#include "V8Headers.h"

#include <loopwire/CallbackBatchRunner.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace loopwire {
class SharedBlock;
}

namespace loopwire::addon {

class AppWrap;

class AddonState final : public CallbackBatchRunner {
public:
    // Creates the state of the environment that loads the module, fills `exports` with the native API, and
    // registers the cleanup hook. Called once per environment, from the module initializer.
    static void initialize(v8::Local<v8::Object> exports, v8::Local<v8::Context> context);

    // The state given as data to a binding function's template.
    static AddonState& from(const v8::FunctionCallbackInfo<v8::Value>& args) {
        return *static_cast<AddonState*>(args.Data().As<v8::External>()->Value());
    }

    AddonState(const AddonState&) = delete;
    AddonState& operator=(const AddonState&) = delete;

    v8::Isolate* isolate() const noexcept { return isolate_; }
    v8::Local<v8::Context> context() const { return context_.get(isolate_); }
    uv_loop_t* loop() const noexcept { return loop_; }
    PendingResponses& pending() noexcept { return pending_; }
    // False once the environment is being torn down: no JavaScript may run then.
    bool canCallJavaScript() const noexcept { return !tearingDown_; }

    // Empty res and req objects (internal fields null) that ResponseWrap and RequestWrap clone per request:
    // cloning copies the object as it is, where instantiating a template first looks it up in a cache.
    v8::Local<v8::Object> responseBoilerplate() const { return responseBoilerplate_.get(isolate_); }
    v8::Local<v8::Object> requestBoilerplate() const { return requestBoilerplate_.get(isolate_); }
    // The global object: `this` of the callbacks the loop calls.
    v8::Local<v8::Object> receiver() const { return receiver_.get(isolate_); }
    // The ws object every WebSocket is cloned from (WebSocketWrap), and the class of the `context` an upgrade
    // handler receives.
    v8::Local<v8::Object> webSocketBoilerplate() const { return webSocketBoilerplate_.get(isolate_); }
    v8::Local<v8::FunctionTemplate> upgradeContextClass() const { return upgradeContextClass_.get(isolate_); }
    v8::Local<v8::ObjectTemplate> appTemplate() const { return appTemplate_.get(isolate_); }
    v8::Local<v8::ObjectTemplate> listenSocketTemplate() const { return listenSocketTemplate_.get(isolate_); }
    v8::Local<v8::FunctionTemplate> listenSocketClass() const { return listenSocketClass_.get(isolate_); }

    // A block of at least `bytes` that nothing but this state references, for LentBuffer to copy a chunk into:
    // the same one every time, unless a transferred ArrayBuffer still holds it (then a new one, and the old one
    // lives as long as that buffer). Allocates only then, or when a larger one is needed.
    SharedBlock& lendingBlock(std::size_t bytes);
    // The backing store of the last buffer LentBuffer lent zero-copy, kept for the next one over the same bytes
    // (see LentBuffer.cpp); empty until then. It holds a reference to the block its bytes lie in.
    std::shared_ptr<v8::BackingStore>& lastLentStore() noexcept { return lastLentStore_; }

    // Takes ownership of an App created in this environment; it lives until the environment ends.
    AppWrap& adopt(std::unique_ptr<AppWrap> app);

    // When a call's process.nextTick callbacks and microtasks must have run: once the batch is over (an HTTP
    // handler, whose queues may wait for the other requests of the read), or as soon as it returns (a WebSocket
    // event: each is a task of its own).
    enum class Drain : std::uint8_t { AtBatchEnd, AfterCall };

    // Calls fn from a loop callback the way Node calls its own callbacks, with `this` the global object, inside a
    // callback scope (see runBatch for which): outside any batch (called from JavaScript, as when res.close() runs
    // onAborted), through node::MakeCallback. A thrown exception goes to Node's uncaught-exception path (process
    // 'uncaughtException', or exit with the stack, as for any Node callback) and never propagates into the core.
    // Returns true when fn returned normally (its value in *result when given); false when it threw, or when
    // JavaScript cannot run any more. The caller holds a HandleScope and has entered context().
    bool callFromLoop(v8::Local<v8::Function> fn, int argc, v8::Local<v8::Value>* argv,
                      v8::Local<v8::Value>* result = nullptr, Drain drain = Drain::AtBatchEnd);

    // Ends the scope of a handler that returned with its work still open (a response pending, an upgrade not made
    // yet) the way uWebSockets.js ends every call into JavaScript: the process.nextTick callbacks and microtasks
    // queued so far run now, so that the code after an already-resolved await runs inside the handler's scope (req
    // readable, res.upgrade allowed, no 500 for the response it completes). Does nothing where they cannot run
    // (JavaScript running below this call: the core callback of a JavaScript call, or the running of the queues
    // itself) and where they have run already (the call was a task of its own, or came from outside a batch).
    void endHandlerScope();

    // CallbackBatchRunner: every App of this environment runs its loop callbacks through here, and each call
    // into JavaScript gets a callback scope without a heap allocation where possible (node::CallbackScope
    // allocates its inner scope; node::MakeCallback keeps it on the stack):
    // - a batch serving kSharedScopeMinSources sources or more (the sockets one poll found ready) runs whole
    //   inside node::MakeCallback of a native trampoline: one scope for all its calls, its queues run at its end
    //   (what node:http does for the requests of one read, across the read's sockets);
    // - in any other batch, the first kTaskCallsPerBatch calls, and every call that wants its queues run at once
    //   (Drain::AfterCall), are tasks of their own through node::MakeCallback, as uWebSockets.js makes every
    //   call; a further call (pipelined requests) opens a node::CallbackScope for the rest of the batch, whose
    //   one allocation is then shared by all of them.
    void runBatch(void (*body)(void*), void* argument, std::uint32_t sources) override;

    // From this many sources up, a batch shares one callback scope (see runBatch).
    static constexpr std::uint32_t kSharedScopeMinSources = 2;
    // In a batch that does not, this many calls are tasks of their own before it opens a scope for the rest: two
    // tasks cost less than a task and a node::CallbackScope (a handler and its body's onData, in one read).
    static constexpr std::uint32_t kTaskCallsPerBatch = 2;

private:
    // The body of a batch run through the trampoline, and whether the trampoline ran it.
    struct SharedBody {
        void (*body)(void*);
        void* argument;
        bool ran;
    };
    static void runBatchTrampoline(const v8::FunctionCallbackInfo<v8::Value>& args);

    AddonState(v8::Isolate* isolate, v8::Local<v8::Context> context);
    ~AddonState();

    static void cleanup(void* self, void (*done)(void*), void* doneArgument);
    void createClasses(v8::Local<v8::Object> exports);

    v8::Isolate* isolate_;
    uv_loop_t* loop_;
    Handle<v8::Context> context_;
    node::async_context asyncContext_{};
    Handle<v8::Object> responseBoilerplate_;
    Handle<v8::Object> requestBoilerplate_;
    Handle<v8::Object> receiver_;
    Handle<v8::Function> tickRunner_;       // process._tickCallback, for endHandlerScope
    Handle<v8::Function> batchTrampoline_;  // runs sharedBody_ (runBatch)
    SharedBody* sharedBody_ = nullptr;
    Handle<v8::Object> webSocketBoilerplate_;
    Handle<v8::FunctionTemplate> upgradeContextClass_;
    Handle<v8::ObjectTemplate> appTemplate_;
    Handle<v8::ObjectTemplate> listenSocketTemplate_;
    Handle<v8::FunctionTemplate> listenSocketClass_;
    PendingResponses pending_;
    SharedBlock* lendingBlock_ = nullptr;  // one reference, this state's
    std::shared_ptr<v8::BackingStore> lastLentStore_;
    std::vector<std::unique_ptr<AppWrap>> apps_;
    node::AsyncCleanupHookHandle cleanupHook_;
    class Batch;                   // the stack frame of one batch (AddonState.cpp)
    Batch* batch_ = nullptr;       // the batch running now, if any
    std::uint32_t callDepth_ = 0;  // calls into JavaScript through callFromLoop running right now
    bool tearingDown_ = false;
};

}  // namespace loopwire::addon
