// The App's methods for pub/sub across processes (docs/node/pubsub-cluster.md): connectPubSub, disconnectPubSub,
// getPubSubStats and getHistory, over the core's App::tryConnectPubSub and App::getHistory.
//
// The link's events come from the loop, inside a batch of callbacks (the broker reports them after the batch that
// caused them), and reach JavaScript through AddonState::callFromLoop like every other loop callback: the options'
// `ready()` and `error(err)`, err being an Error with `code` (PubSubEvent::code) and `kind` ("error",
// "disconnected" or "dropped"). Without an `error` callback, errors are printed to stderr, so that a link that
// cannot connect is never silent.
#include "AppWrap.h"

#include "AddonState.h"
#include "BytesArgument.h"
#include "Errors.h"
#include "NumberArgument.h"
#include "OptionFields.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

namespace loopwire::addon {

namespace {

using Args = v8::FunctionCallbackInfo<v8::Value>;

// Longest delay or interval an option takes, in milliseconds: one hour.
constexpr std::uint32_t kMaxOptionMs = 3600 * 1000;

v8::Local<v8::String> text(v8::Isolate* isolate, std::string_view value) {
    return v8::String::NewFromUtf8(isolate, value.data(), v8::NewStringType::kNormal, static_cast<int>(value.size()))
        .ToLocalChecked();
}

// An Error with message and a `code` property, as the pub/sub callbacks and getHistory give them.
v8::Local<v8::Object> errorWithCode(v8::Isolate* isolate, std::string_view message, std::string_view code) {
    v8::Local<v8::Object> error = v8::Exception::Error(text(isolate, message)).As<v8::Object>();
    error->Set(isolate->GetCurrentContext(), text(isolate, "code"), text(isolate, code)).Check();
    return error;
}

// Reads options.history ({ size, ttlSeconds, topicPrefix }) into history when it is given; false when it threw.
bool readHistoryOptions(OptionFields& options, PubSubHistoryOptions& history) {
    v8::Isolate* isolate = options.isolate();
    v8::Local<v8::Value> value;
    if (!options.get("history", value)) return false;
    if (value->IsUndefined()) return true;
    if (!value->IsObject() || value->IsFunction()) {
        throwTypeError(isolate, "app.connectPubSub: options.history must be an object");
        return false;
    }
    OptionFields fields(isolate, value.As<v8::Object>(), "app.connectPubSub: options.history");
    v8::Local<v8::Value> size;
    if (!fields.get("size", size)) return false;
    if (size->IsUndefined()) {
        throwTypeError(isolate, "app.connectPubSub: options.history.size must be a number");
        return false;
    }
    return fields.readInteger("size", 1, PubSubHistoryOptions::kMaxSize, history.size) &&
           fields.readInteger("ttlSeconds", 0, PubSubHistoryOptions::kMaxTtlSeconds, history.ttlSeconds) &&
           fields.readString("topicPrefix", history.topicPrefix);
}

const char* kindName(PubSubEventKind kind) {
    switch (kind) {
        case PubSubEventKind::Ready:
            return "ready";
        case PubSubEventKind::Disconnected:
            return "disconnected";
        case PubSubEventKind::Error:
            return "error";
        case PubSubEventKind::Dropped:
            return "dropped";
    }
    return "error";
}

}  // namespace

// Takes (url: string, options?: PubSubOptions); returns this. A url that is not a redis:// or rediss:// URL is a
// TypeError, an
// option out of range a RangeError; connecting itself happens in the background and reports through the options'
// callbacks.
void AppWrap::connectPubSub(const Args& args) {
    v8::Isolate* isolate = args.GetIsolate();
    AppWrap& self = unwrap(args);
    BytesArgument url;
    if (!args[0]->IsString() || !url.read(isolate, args[0])) {
        return throwTypeError(isolate, "app.connectPubSub: url must be a string");
    }
    PubSubOptions options;
    options.url.assign(url.view());
    Handle<v8::Function> ready;
    Handle<v8::Function> error;
    if (!args[1]->IsUndefined()) {
        if (!args[1]->IsObject() || args[1]->IsFunction()) {
            return throwTypeError(isolate, "app.connectPubSub: options must be an object");
        }
        OptionFields fields(isolate, args[1].As<v8::Object>(), "app.connectPubSub: options");
        std::uint32_t maxQueuedBytes = static_cast<std::uint32_t>(options.maxQueuedBytes);
        if (!fields.readString("prefix", options.prefix) || !fields.readString("tlsCaFile", options.tlsCaFile) ||
            !fields.readBoolean("tlsVerify", options.tlsVerify) || !fields.readBoolean("sharded", options.sharded) ||
            !fields.readInteger("maxQueuedBytes", 0, 0xFFFFFFFFu, maxQueuedBytes) ||
            !fields.readInteger("reconnectMinDelay", 1, kMaxOptionMs, options.reconnectMinDelayMs) ||
            !fields.readInteger("reconnectMaxDelay", 1, kMaxOptionMs, options.reconnectMaxDelayMs) ||
            !fields.readInteger("connectTimeout", 1, kMaxOptionMs, options.connectTimeoutMs) ||
            !fields.readInteger("pingInterval", 1, kMaxOptionMs, options.pingIntervalMs) ||
            !readHistoryOptions(fields, options.history) || !fields.readCallback("ready", ready) ||
            !fields.readCallback("error", error)) {
            return;
        }
        options.maxQueuedBytes = maxQueuedBytes;
        if (options.reconnectMaxDelayMs < options.reconnectMinDelayMs) {
            return throwRangeError(isolate,
                                   "app.connectPubSub: options.reconnectMaxDelay must not be below reconnectMinDelay");
        }
    }
    std::string problem;
    if (!self.app_.tryConnectPubSub(
            options, [&self](const PubSubEvent& event) { self.reportPubSubEvent(event); }, problem)) {
        return throwTypeError(isolate, ("app.connectPubSub: url: " + problem).c_str());
    }
    // The link reports nothing before the current batch of callbacks is over: the callbacks are in place by then.
    self.onPubSubReady_ = std::move(ready);
    self.onPubSubError_ = std::move(error);
    args.GetReturnValue().Set(args.This());
}

// Takes (); returns this. Ends the link; local pub/sub goes on.
void AppWrap::disconnectPubSub(const Args& args) {
    AppWrap& self = unwrap(args);
    self.app_.disconnectPubSub();
    self.onPubSubReady_ = {};
    self.onPubSubError_ = {};
    args.GetReturnValue().Set(args.This());
}

// Takes (); returns { state, published, delivered, dropped, reconnects, errors, queuedMessages, queuedBytes }.
void AppWrap::getPubSubStats(const Args& args) {
    v8::Isolate* isolate = args.GetIsolate();
    const PubSubStats stats = unwrap(args).app_.pubSubStats();
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    v8::Local<v8::Object> result = v8::Object::New(isolate);
    auto set = [&](const char* name, v8::Local<v8::Value> value) {
        result->Set(context, text(isolate, name), value).Check();
    };
    set("state", text(isolate, nameOf(stats.state)));
    set("published", v8::Number::New(isolate, static_cast<double>(stats.published)));
    set("delivered", v8::Number::New(isolate, static_cast<double>(stats.delivered)));
    set("dropped", v8::Number::New(isolate, static_cast<double>(stats.dropped)));
    set("reconnects", v8::Number::New(isolate, static_cast<double>(stats.reconnects)));
    set("errors", v8::Number::New(isolate, static_cast<double>(stats.errors)));
    set("queuedMessages", v8::Number::New(isolate, static_cast<double>(stats.queuedMessages)));
    set("queuedBytes", v8::Number::New(isolate, static_cast<double>(stats.queuedBytes)));
    args.GetReturnValue().Set(result);
}

// Takes (topic: string, since: { epoch: string, offset: number } | null | undefined, callback: (error, result)
// => void); returns this. The callback is called once, from the loop: with an Error (its code as in PubSubHistory)
// and undefined, or with null and { epoch, offset, recovered, messages: [{ message: ArrayBuffer, isBinary,
// offset }] }. Throws when pub/sub is not connected.
void AppWrap::getHistory(const Args& args) {
    v8::Isolate* isolate = args.GetIsolate();
    AppWrap& self = unwrap(args);
    BytesArgument topic;
    if (!args[0]->IsString() || !topic.read(isolate, args[0])) {
        return throwTypeError(isolate, "app.getHistory: topic must be a string");
    }
    std::string epoch;
    double offset = 0;
    if (!args[1]->IsUndefined() && !args[1]->IsNull()) {
        if (!args[1]->IsObject() || args[1]->IsFunction()) {
            return throwTypeError(isolate, "app.getHistory: since must be an object { epoch, offset }, or null");
        }
        OptionFields since(isolate, args[1].As<v8::Object>(), "app.getHistory: since");
        v8::Local<v8::Value> epochValue;
        v8::Local<v8::Value> offsetValue;
        if (!since.get("epoch", epochValue) || !since.get("offset", offsetValue)) return;
        BytesArgument epochBytes;
        if (!epochValue->IsString() || !epochBytes.read(isolate, epochValue)) {
            return throwTypeError(isolate, "app.getHistory: since.epoch must be a string");
        }
        epoch.assign(epochBytes.view());
        if (!offsetValue->IsNumber()) return throwTypeError(isolate, "app.getHistory: since.offset must be a number");
        offset = offsetValue.As<v8::Number>()->Value();
        if (!(offset >= 0) || offset > 9007199254740991.0 || std::floor(offset) != offset) {
            return throwRangeError(isolate, "app.getHistory: since.offset must be an integer from 0 to 2^53 - 1");
        }
    }
    if (!args[2]->IsFunction()) return throwTypeError(isolate, "app.getHistory: callback must be a function");
    Handle<v8::Function> callback(isolate, args[2].As<v8::Function>());
    AppWrap* owner = &self;
    const bool started = self.app_.getHistory(topic.view(), PubSubPosition{epoch, static_cast<std::uint64_t>(offset)},
                                              [owner, callback = std::move(callback)](const PubSubHistory& history) {
                                                  owner->reportHistory(callback, history);
                                              });
    if (!started) {
        isolate->ThrowException(errorWithCode(
            isolate, "app.getHistory: pub/sub is not connected (call connectPubSub first)", "NOT_CONNECTED"));
        return;
    }
    args.GetReturnValue().Set(args.This());
}

void AppWrap::reportHistory(const Handle<v8::Function>& callback, const PubSubHistory& history) {
    if (!state_.canCallJavaScript()) return;
    v8::Isolate* isolate = state_.isolate();
    v8::HandleScope handles(isolate);
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    if (!history.error.empty()) {
        v8::Local<v8::Value> argv[] = {errorWithCode(isolate, history.errorMessage, history.error),
                                       v8::Undefined(isolate)};
        state_.callFromLoop(callback.get(isolate), 2, argv);
        return;
    }
    v8::Local<v8::Array> messages = v8::Array::New(isolate, static_cast<int>(history.messageCount));
    for (std::size_t i = 0; i < history.messageCount; ++i) {
        const PubSubHistoryMessage& entry = history.messages[i];
        v8::Local<v8::ArrayBuffer> buffer = v8::ArrayBuffer::New(isolate, entry.message.size());
        if (!entry.message.empty()) std::memcpy(buffer->Data(), entry.message.data(), entry.message.size());
        v8::Local<v8::Object> message = v8::Object::New(isolate);
        message->Set(context, text(isolate, "message"), buffer).Check();
        message->Set(context, text(isolate, "isBinary"), v8::Boolean::New(isolate, entry.binary)).Check();
        message->Set(context, text(isolate, "offset"), v8::Number::New(isolate, static_cast<double>(entry.offset)))
            .Check();
        messages->Set(context, static_cast<std::uint32_t>(i), message).Check();
    }
    v8::Local<v8::Object> result = v8::Object::New(isolate);
    result->Set(context, text(isolate, "epoch"), text(isolate, history.position.epoch)).Check();
    result
        ->Set(context, text(isolate, "offset"), v8::Number::New(isolate, static_cast<double>(history.position.offset)))
        .Check();
    result->Set(context, text(isolate, "recovered"), v8::Boolean::New(isolate, history.recovered)).Check();
    result->Set(context, text(isolate, "messages"), messages).Check();
    v8::Local<v8::Value> argv[] = {v8::Null(isolate), result};
    state_.callFromLoop(callback.get(isolate), 2, argv);
}

void AppWrap::reportPubSubEvent(const PubSubEvent& event) {
    const bool isReady = event.kind == PubSubEventKind::Ready;
    const Handle<v8::Function>& callback = isReady ? onPubSubReady_ : onPubSubError_;
    if (callback.empty() || !state_.canCallJavaScript()) {
        if (!isReady) {
            std::fprintf(stderr, "loopwire: pub/sub: %.*s (%.*s)\n", static_cast<int>(event.message.size()),
                         event.message.data(), static_cast<int>(event.code.size()), event.code.data());
        }
        return;
    }
    v8::Isolate* isolate = state_.isolate();
    v8::HandleScope handles(isolate);
    if (isReady) {
        state_.callFromLoop(callback.get(isolate), 0, nullptr);
        return;
    }
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    v8::Local<v8::Object> error = errorWithCode(isolate, event.message, event.code);
    error->Set(context, text(isolate, "kind"), text(isolate, kindName(event.kind))).Check();
    v8::Local<v8::Value> argv[] = {error};
    state_.callFromLoop(callback.get(isolate), 1, argv);
}

}  // namespace loopwire::addon
