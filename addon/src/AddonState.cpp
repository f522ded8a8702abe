#include "AddonState.h"

#include "AppWrap.h"
#include "ClassBuilder.h"
#include "V8Compat.h"
#include "Counters.h"
#include "ListenSocketWrap.h"
#include "PointerFields.h"
#include "RequestWrap.h"
#include "ResponseWrap.h"
#include "SequentialStrings.h"
#include "WebSocketWrap.h"

#include <loopwire/App.h>
#include <loopwire/SharedBlock.h>

#include <algorithm>
#include <optional>

namespace loopwire::addon {

#if defined(LW_ADDON_COUNTERS)
void exportCounters(AddonState& state, v8::Local<v8::Object> exports, v8::Local<v8::External> data);
#endif

namespace {

// What the close callback of the cleanup marker needs to tell Node the cleanup is over.
struct CleanupCompletion {
    uv_idle_t marker;
    void (*done)(void*);
    void* doneArgument;
};

void setExport(v8::Local<v8::Context> context, v8::Local<v8::Object> exports, const char* name,
               v8::Local<v8::Value> value) {
    v8::Isolate* isolate = compat::isolateOf(context);
    v8::Local<v8::String> key =
        v8::String::NewFromUtf8(isolate, name, v8::NewStringType::kInternalized).ToLocalChecked();
    exports->Set(context, key, value).Check();
}

// process._tickCallback: the function Node itself runs when one of its callbacks returns, which runs the
// process.nextTick queue and the microtasks (in that order) when any is queued. Empty when this Node has none.
Handle<v8::Function> findTickRunner(v8::Local<v8::Context> context) {
    v8::Isolate* isolate = compat::isolateOf(context);
    v8::Local<v8::Value> process;
    v8::Local<v8::Value> runner;
    if (!context->Global()->Get(context, v8::String::NewFromUtf8Literal(isolate, "process")).ToLocal(&process) ||
        !process->IsObject() ||
        !process.As<v8::Object>()
             ->Get(context, v8::String::NewFromUtf8Literal(isolate, "_tickCallback"))
             .ToLocal(&runner) ||
        !runner->IsFunction()) {
        return {};
    }
    return Handle<v8::Function>(isolate, runner.As<v8::Function>());
}

}  // namespace

AddonState::AddonState(v8::Isolate* isolate, v8::Local<v8::Context> context)
    : isolate_(isolate), loop_(node::GetCurrentEventLoop(isolate)), context_(isolate, context), pending_(*this) {}

AddonState::~AddonState() {
    if (lendingBlock_ != nullptr) lendingBlock_->release();
}

SharedBlock& AddonState::lendingBlock(std::size_t bytes) {
    // Sized for a chunk of the pipelining buffer, which is at most one read plus a head.
    static constexpr std::size_t kMinimumBytes = 64 * 1024;
    if (lendingBlock_ != nullptr && !lendingBlock_->isShared() && lendingBlock_->size() >= bytes) {
        return *lendingBlock_;
    }
    if (lendingBlock_ != nullptr) lendingBlock_->release();
    lendingBlock_ = SharedBlock::create(std::max(bytes, kMinimumBytes));
    return *lendingBlock_;
}

void AddonState::initialize(v8::Local<v8::Object> exports, v8::Local<v8::Context> context) {
    v8::Isolate* isolate = compat::isolateOf(context);
    // Freed by the cleanup hook, when the environment ends.
    auto* state = new AddonState(isolate, context);
    state->asyncContext_ = node::EmitAsyncInit(isolate, exports, "loopwire");
    state->createClasses(exports);
    state->cleanupHook_ = node::AddEnvironmentCleanupHook(isolate, &AddonState::cleanup, state);
}

void AddonState::createClasses(v8::Local<v8::Object> exports) {
    v8::Local<v8::Context> context = this->context();
    v8::Local<v8::External> data = v8::External::New(isolate_, this);

    v8::Local<v8::FunctionTemplate> responseClass = ResponseWrap::createClass(isolate_, data);
    responseBoilerplate_ = Handle<v8::Object>(isolate_, ResponseWrap::createBoilerplate(context, responseClass));
    // Every class ClassBuilder makes has the same header before its internal fields (V8's inline read of a field
    // assumes as much), so what is learned on a response serves a request too.
    PointerFields::learn(responseClass->InstanceTemplate()->NewInstance(context).ToLocalChecked(),
                         ResponseWrap::kFieldCount);
    SequentialStrings::learn(isolate_);
    requestBoilerplate_ =
        Handle<v8::Object>(isolate_, RequestWrap::createBoilerplate(context, RequestWrap::createClass(isolate_, data)));
    receiver_ = Handle<v8::Object>(isolate_, context->Global());
    tickRunner_ = findTickRunner(context);
    batchTrampoline_ = Handle<v8::Function>(
        isolate_, v8::Function::New(context, &AddonState::runBatchTrampoline, data).ToLocalChecked());
    webSocketBoilerplate_ = Handle<v8::Object>(
        isolate_, WebSocketWrap::createBoilerplate(context, WebSocketWrap::createClass(isolate_, data)));
    upgradeContextClass_ =
        Handle<v8::FunctionTemplate>(isolate_, ClassBuilder(isolate_, data, "uWS.WebSocketContext", 1).build());
    appTemplate_ = Handle<v8::ObjectTemplate>(isolate_, AppWrap::createClass(isolate_, data)->InstanceTemplate());
    v8::Local<v8::FunctionTemplate> listenSocket = ListenSocketWrap::createClass(isolate_, data);
    listenSocketClass_ = Handle<v8::FunctionTemplate>(isolate_, listenSocket);
    listenSocketTemplate_ = Handle<v8::ObjectTemplate>(isolate_, listenSocket->InstanceTemplate());

    setExport(context, exports, "App", ClassBuilder::function(context, data, "App", &AppWrap::create));
    setExport(context, exports, "SSLApp", ClassBuilder::function(context, data, "SSLApp", &AppWrap::createSsl));
    setExport(context, exports, "us_listen_socket_close",
              ClassBuilder::function(context, data, "us_listen_socket_close", &ListenSocketWrap::closeListenSocket));
    setExport(context, exports, "us_socket_local_port",
              ClassBuilder::function(context, data, "us_socket_local_port", &ListenSocketWrap::localPort));
    setExport(context, exports, "LIBUS_LISTEN_EXCLUSIVE_PORT", v8::Integer::New(isolate_, kListenExclusivePort));
#if defined(LW_ADDON_COUNTERS)
    exportCounters(*this, exports, data);
#endif
}

AppWrap& AddonState::adopt(std::unique_ptr<AppWrap> app) {
    apps_.push_back(std::move(app));
    return *apps_.back();
}

// One batch of loop callbacks, on the stack of runBatch. V8 requires handle scopes, entered contexts and
// TryCatch blocks to close in the reverse order of their opening, so the batch opens, before any callback of the
// batch opens its own, its handle scope (which holds the scope's resource object: Node keeps it as a Local while a
// callback scope is open) and enters the environment's context, unless it is the current one already: Node runs
// its event loop, main thread and workers alike, inside its context, and entering and leaving it again cost 80
// instructions a batch. The callback scope its calls run in is one of three (BatchScope, see the header's runBatch
// for why).
class AddonState::Batch {
public:
    explicit Batch(AddonState& state)
        : state_(state), handles_(state.isolate_), context_(state.context()), resource_(state.receiver()) {
        if (state.isolate_->GetCurrentContext() != context_) contextScope_.emplace(context_);
        state_.batch_ = this;
    }
    ~Batch() {
        closing_ = true;
        ownScope_.reset();
        state_.batch_ = nullptr;
    }
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;

    // Runs body(argument) inside node::MakeCallback of the batch trampoline, so that every call of the batch shares
    // the stack-allocated callback scope MakeCallback opens; its queues run when body returns. Runs body directly
    // when Node declines to call JavaScript (the environment is stopping): body runs exactly once either way.
    void runShared(void (*body)(void*), void* argument) {
        SharedBody shared{body, argument, false};
        state_.sharedBody_ = &shared;
        scope_ = BatchScope::Shared;
        {
            v8::TryCatch tryCatch(state_.isolate_);
            tryCatch.SetVerbose(true);
            v8::MaybeLocal<v8::Value> ignored =
                node::MakeCallback(state_.isolate_, resource_, state_.batchTrampoline_.get(state_.isolate_), 0, nullptr,
                                   state_.asyncContext_);
            static_cast<void>(ignored);
        }
        state_.sharedBody_ = nullptr;
        scope_ = BatchScope::None;
        if (!shared.ran) body(argument);
    }

    // Whether a call made with no JavaScript running goes through node::MakeCallback, as a task of its own whose
    // queues run when it returns: when no scope is open, and the call wants its queues run at once or is one of
    // the batch's first kTaskCallsPerBatch.
    bool callsAsTask(AddonState::Drain drain) const noexcept {
        return scope_ == BatchScope::None && (drain == Drain::AfterCall || topCalls_ < kTaskCallsPerBatch);
    }

    // Before any other call made with no JavaScript running, and before it opens any TryCatch: opens the batch's
    // own callback scope unless one is open.
    void enterOwnScope() {
        if (scope_ != BatchScope::None || closing_) return;
        ownScope_.emplace(state_.isolate_, resource_, state_.asyncContext_);
        scope_ = BatchScope::Own;
    }

    void countTopCall() noexcept { ++topCalls_; }

    // Runs what the batch's calls queued so far (process.nextTick callbacks, then microtasks), as closing the
    // callback scope would, but leaves the scope open: through Node's own queue runner (process._tickCallback)
    // when there is one, which costs one call when nothing is queued; else, in the batch's own scope, by closing
    // it (the next call opens a new one). No TryCatch of a call is open then (no call is running), so the scope's
    // own TryCatch is the innermost, as V8 needs. Nothing to do when no scope is open: every call made so far was
    // a task of its own and ran its queues.
    void runQueued() {
        if (scope_ == BatchScope::None || closing_) return;
        closing_ = true;
        if (!state_.tickRunner_.empty()) {
            v8::TryCatch tryCatch(state_.isolate_);
            tryCatch.SetVerbose(true);
            // An exception from a queued callback has gone to process 'uncaughtException' (verbose); nothing to do.
            v8::MaybeLocal<v8::Value> ignored =
                state_.tickRunner_.get(state_.isolate_)->Call(context_, resource_, 0, nullptr);
            static_cast<void>(ignored);
        } else if (scope_ == BatchScope::Own) {
            ownScope_.reset();
            scope_ = BatchScope::None;
        }
        closing_ = false;
    }

private:
    enum class BatchScope : std::uint8_t {
        None,    // no callback scope open: each call at the top is a task of its own, or opens Own
        Shared,  // the whole batch runs inside MakeCallback of the trampoline (runShared)
        Own,     // a node::CallbackScope the batch opened at a call past its first kTaskCallsPerBatch
    };

    AddonState& state_;
    BatchScope scope_ = BatchScope::None;
    bool closing_ = false;
    std::uint32_t topCalls_ = 0;  // calls made with no JavaScript running
    v8::HandleScope handles_;
    v8::Local<v8::Context> context_;
    std::optional<v8::Context::Scope> contextScope_;  // empty when the context was entered already
    v8::Local<v8::Object> resource_;
    std::optional<node::CallbackScope> ownScope_;
};

void AddonState::runBatchTrampoline(const v8::FunctionCallbackInfo<v8::Value>& args) {
    AddonState& state = from(args);
    SharedBody* shared = state.sharedBody_;
    if (shared == nullptr || shared->ran) return;
    shared->ran = true;
    shared->body(shared->argument);
}

void AddonState::runBatch(void (*body)(void*), void* argument, std::uint32_t sources) {
    Batch batch(*this);
    // A shared scope cannot be closed early, so a handler that leaves its response open needs Node's queue runner
    // (runQueued) to end its scope; without one, the batch takes the per-call scopes, which can.
    if (sources >= kSharedScopeMinSources && !batchTrampoline_.empty() && !tickRunner_.empty() && !tearingDown_) {
        batch.runShared(body, argument);
    } else {
        body(argument);
    }
}

void AddonState::endHandlerScope() {
    if (batch_ != nullptr && callDepth_ == 0) batch_->runQueued();
}

bool AddonState::callFromLoop(v8::Local<v8::Function> fn, int argc, v8::Local<v8::Value>* argv,
                              v8::Local<v8::Value>* result, Drain drain) {
    if (tearingDown_) return false;
    countCallIntoJavaScript();
    // A call outside any batch (from JavaScript, or a task of its own) goes through node::MakeCallback, which
    // opens a callback scope on the stack and, when no JavaScript runs below, runs the queues as it returns.
    bool asTask = batch_ == nullptr;
    if (batch_ != nullptr && callDepth_ == 0) {
        asTask = batch_->callsAsTask(drain);
        if (!asTask) batch_->enterOwnScope();
        batch_->countTopCall();
    }
    // Verbose: V8 reports the exception to Node's message listener, which hands it to process
    // 'uncaughtException' exactly as for an exception thrown by any Node callback; the TryCatch then keeps it
    // from travelling further up, into the core.
    v8::TryCatch tryCatch(isolate_);
    tryCatch.SetVerbose(true);
    v8::MaybeLocal<v8::Value> value;
    ++callDepth_;
    if (asTask) {
        value = node::MakeCallback(isolate_, receiver(), fn, argc, argv, asyncContext_);
    } else {
        value = fn->Call(context(), receiver(), argc, argv);
    }
    --callDepth_;
    if (tryCatch.HasCaught() || value.IsEmpty()) return false;
    if (result != nullptr) *result = value.ToLocalChecked();
    return true;
}

void AddonState::cleanup(void* self, void (*done)(void*), void* doneArgument) {
    auto* state = static_cast<AddonState*>(self);
    state->tearingDown_ = true;
    {
        v8::HandleScope handles(state->isolate_);
        // Closing the Apps closes their sockets (abort callbacks invalidate their res objects and call nothing)
        // and asks libuv to close the core's handles; their close callbacks run on the next loop iteration.
        state->apps_.clear();
    }
    // libuv runs close callbacks in the order the handles were closed, all in one pass, so when the marker's
    // callback runs, the core's handles are closed too, and Node may close the loop.
    auto* completion = new CleanupCompletion{{}, done, doneArgument};
    uv_idle_init(state->loop_, &completion->marker);
    completion->marker.data = completion;
    uv_close(reinterpret_cast<uv_handle_t*>(&completion->marker), [](uv_handle_t* handle) {
        auto* finished = static_cast<CleanupCompletion*>(handle->data);
        finished->done(finished->doneArgument);
        delete finished;
    });
    delete state;
}

}  // namespace loopwire::addon
