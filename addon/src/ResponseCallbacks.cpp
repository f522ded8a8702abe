#include "ResponseCallbacks.h"

#include "AddonState.h"
#include "LentBuffer.h"
#include "ResponseWrap.h"
#include "V8Compat.h"

#include <loopwire/HttpResponse.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace loopwire::addon {

// DESIGN.md, "callbacks live inline": each capture must fit the core's inline storage and move without throwing,
// or registering it would not compile (InlineFunction has no heap fallback). These prove it for every capture.
static_assert(HttpResponse::AbortedHandler::fits<AbortedCallback>);
static_assert(HttpResponse::DataHandler::fits<DataCallback>);
static_assert(HttpResponse::DataV2Handler::fits<DataV2Callback>);
static_assert(HttpResponse::WritableHandler::fits<WritableCallback>);
static_assert(sizeof(AbortedCallback) <= kCallbackCapacity && sizeof(DataCallback) <= kCallbackCapacity &&
              sizeof(DataV2Callback) <= kCallbackCapacity && sizeof(WritableCallback) <= kCallbackCapacity);

namespace {

// Everything a callback needs to touch V8: a handle scope, the environment's context entered, and res.
class CallbackFrame {
public:
    explicit CallbackFrame(PendingResponses::Entry& entry)
        : state(entry.owner->state()),
          isolate(state.isolate()),
          handles_(isolate),
          context_(state.context()),
          contextScope_(context_),
          res(entry.response.get(isolate)) {}

    // The function in res's internal field `field`, when it is one and JavaScript may run.
    bool function(int field, v8::Local<v8::Function>& out) const {
        if (!state.canCallJavaScript()) return false;
        v8::Local<v8::Value> value = compat::getField(res, field);
        if (!value->IsFunction()) return false;
        out = value.As<v8::Function>();
        return true;
    }

    AddonState& state;
    v8::Isolate* isolate;

private:
    v8::HandleScope handles_;
    v8::Local<v8::Context> context_;
    v8::Context::Scope contextScope_;

public:
    v8::Local<v8::Object> res;

    // An ArrayBuffer over chunk, lent for this call (see LentBuffer).
    LentBuffer lend(std::string_view chunk) const {
        auto* response = static_cast<HttpResponse*>(compat::getPointer(res, ResponseWrap::kResponse));
        return LentBuffer(state, chunk, response == nullptr ? nullptr : response->blockHolding(chunk));
    }
};

void freeCollected(void* data, std::size_t, void*) { delete[] static_cast<char*>(data); }

// collectBody: assembles the body in the Entry and calls the function once, with the whole body, or with null
// as soon as it exceeds the limit (then ignores the rest). A body that arrives in one piece is lent zero-copy,
// like an onData chunk; a body in several pieces is copied into one buffer whose ownership passes to the
// ArrayBuffer. This is what uWebSockets.js does.
void collect(CallbackFrame& frame, PendingResponses::Entry& entry, std::string_view chunk, std::uint64_t remaining) {
    if (entry.collectOverflowed) return;
    v8::Local<v8::Function> handler;
    bool callable = frame.function(ResponseWrap::kOnDataV2, handler);
    std::uint64_t limit = entry.collectLimit;
    if (chunk.size() > limit - entry.collectedSize) {
        entry.collectOverflowed = true;
        entry.collected.reset();
        entry.collectedSize = entry.collectedCapacity = 0;
        v8::Local<v8::Value> argv[] = {v8::Null(frame.isolate)};
        if (callable) frame.state.callFromLoop(handler, 1, argv);
        return;
    }
    if (!entry.collected && remaining == 0) {
        LentBuffer body = frame.lend(chunk);
        v8::Local<v8::Value> argv[] = {body.get()};
        if (callable) frame.state.callFromLoop(handler, 1, argv);
        return;
    }
    std::size_t needed = entry.collectedSize + chunk.size();
    if (needed > entry.collectedCapacity) {
        // The announced remainder sizes the buffer once for a Content-Length body; a chunked body (whose
        // remainder is only a bound on the current chunk) grows by doubling, never past the limit.
        std::uint64_t announced = std::min<std::uint64_t>(remaining, limit - needed);
        std::size_t capacity = std::max<std::size_t>(needed + static_cast<std::size_t>(announced),
                                                     std::min<std::uint64_t>(limit, 2 * entry.collectedCapacity));
        std::unique_ptr<char[]> grown(new char[capacity]);
        if (entry.collectedSize > 0) std::memcpy(grown.get(), entry.collected.get(), entry.collectedSize);
        entry.collected = std::move(grown);
        entry.collectedCapacity = capacity;
    }
    if (!chunk.empty()) std::memcpy(entry.collected.get() + entry.collectedSize, chunk.data(), chunk.size());
    entry.collectedSize = needed;
    if (remaining != 0) return;

    std::size_t size = entry.collectedSize;
    char* data = entry.collected.release();
    entry.collectedSize = entry.collectedCapacity = 0;
    std::shared_ptr<v8::BackingStore> store = v8::ArrayBuffer::NewBackingStore(data, size, &freeCollected, nullptr);
    v8::Local<v8::Value> argv[] = {v8::ArrayBuffer::New(frame.isolate, std::move(store))};
    if (callable) frame.state.callFromLoop(handler, 1, argv);
}

}  // namespace

void AbortedCallback::operator()() {
    CallbackFrame frame(*entry.get());
    ResponseWrap::invalidate(frame.res);
    v8::Local<v8::Function> handler;
    if (frame.function(ResponseWrap::kOnAborted, handler)) frame.state.callFromLoop(handler, 0, nullptr);
}

void DataCallback::operator()(std::string_view chunk, bool isLast) {
    CallbackFrame frame(*entry.get());
    v8::Local<v8::Function> handler;
    if (!frame.function(ResponseWrap::kOnData, handler)) return;
    LentBuffer buffer = frame.lend(chunk);
    v8::Local<v8::Value> argv[] = {buffer.get(), v8::Boolean::New(frame.isolate, isLast)};
    frame.state.callFromLoop(handler, 2, argv);
}

void DataV2Callback::operator()(std::string_view chunk, std::uint64_t maxRemainingBodyLength) {
    PendingResponses::Entry& pending = *entry.get();
    CallbackFrame frame(pending);
    if (pending.collecting) {
        collect(frame, pending, chunk, maxRemainingBodyLength);
        return;
    }
    v8::Local<v8::Function> handler;
    if (!frame.function(ResponseWrap::kOnDataV2, handler)) return;
    LentBuffer buffer = frame.lend(chunk);
    v8::Local<v8::Value> argv[] = {buffer.get(), v8::BigInt::NewFromUnsigned(frame.isolate, maxRemainingBodyLength)};
    frame.state.callFromLoop(handler, 2, argv);
}

bool WritableCallback::operator()(std::uint64_t offset) {
    CallbackFrame frame(*entry.get());
    v8::Local<v8::Function> handler;
    if (!frame.function(ResponseWrap::kOnWritable, handler)) return true;
    v8::Local<v8::Value> argv[] = {v8::Number::New(frame.isolate, static_cast<double>(offset))};
    v8::Local<v8::Value> result;
    // A handler that threw counts as success, as in uWebSockets.js: at worst one more write is tried.
    if (!frame.state.callFromLoop(handler, 1, argv, &result)) return true;
    return result->BooleanValue(frame.isolate);
}

}  // namespace loopwire::addon
