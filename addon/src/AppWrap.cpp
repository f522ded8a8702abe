#include "AppWrap.h"

#include "AddonState.h"
#include "BooleanArgument.h"
#include "BytesArgument.h"
#include "ClassBuilder.h"
#include "Errors.h"
#include "NumberArgument.h"
#include "OptionFields.h"
#include "RequestWrap.h"
#include "ServerOptionsArgument.h"
#include "ResponseWrap.h"
#include "TlsOptionsArgument.h"
#include "V8Compat.h"
#include "WebSocketEvents.h"

#include <cstdio>
#include <string>

namespace loopwire::addon {

// DESIGN.md, "callbacks live inline": a route handler capture must fit the core's 64 bytes and move without
// throwing.
static_assert(App::Handler::fits<RouteHandler>);
static_assert(sizeof(RouteHandler) <= kHandlerCapacity);

namespace {

using Args = v8::FunctionCallbackInfo<v8::Value>;

constexpr std::uint32_t kMaxPort = 65535;
constexpr std::uint32_t kMaxListenOptions = 0x7fffffff;

// A host or path is handed to the system as a C string: a NUL inside it would silently cut it short.
bool containsNul(std::string_view text) { return text.find('\0') != std::string_view::npos; }

}  // namespace

const AppWrap::Method AppWrap::kMethods[] = {
    {"get", "GET"},         {"post", "POST"}, {"put", "PUT"},         {"del", "DELETE"},  {"patch", "PATCH"},
    {"options", "OPTIONS"}, {"head", "HEAD"}, {"connect", "CONNECT"}, {"trace", "TRACE"}, {"any", "*"},
};

v8::Local<v8::FunctionTemplate> AppWrap::createClass(v8::Isolate* isolate, v8::Local<v8::External> data) {
    return ClassBuilder(isolate, data, "uWS.App", kFieldCount)
        .method("get", &route<0>)
        .method("post", &route<1>)
        .method("put", &route<2>)
        .method("del", &route<3>)
        .method("patch", &route<4>)
        .method("options", &route<5>)
        .method("head", &route<6>)
        .method("connect", &route<7>)
        .method("trace", &route<8>)
        .method("any", &route<9>)
        .method("listen", &listen)
        .method("listen_unix", &listenUnix)
        .method("close", &close)
        .method("ws", &ws)
        .method("publish", &publish)
        .method("numSubscribers", &numSubscribers)
        .method("addServerName", &addServerName)
        .method("removeServerName", &removeServerName)
        .method("missingServerName", &missingServerName)
        .method("domain", &domain)
        .method("getDescriptor", &getDescriptor)
        .method("addChildAppDescriptor", &addChildAppDescriptor)
        .method("removeChildAppDescriptor", &removeChildAppDescriptor)
        .method("adoptSocket", &adoptSocket)
        .method("static", &serveStatic)
        .method("compress", &compress)
        .method("connectPubSub", &connectPubSub)
        .method("disconnectPubSub", &disconnectPubSub)
        .method("getPubSubStats", &getPubSubStats)
        .method("getHistory", &getHistory)
        .build();
}

AppWrap::AppWrap(AddonState& state, const ServerOptions& options, const SocketContextOptions* tls)
    : state_(state), app_(tls != nullptr ? App(state.loop(), *tls, options) : App(state.loop(), options)) {
    app_.setBatchRunner(&state_);
}

AppWrap::~AppWrap() = default;

AppWrap& AppWrap::unwrap(const Args& args) {
    // The class's signature guarantees the receiver is an App, and an AppWrap lives as long as its environment.
    return *static_cast<AppWrap*>(compat::getPointer(args.This(), kApp));
}

// Takes (options?: object): the PROXY protocol options (ServerOptionsArgument); the TLS options of uWebSockets.js
// are accepted and ignored, as a plain App has no TLS. Returns a new App.
void AppWrap::create(const Args& args) {
    AddonState& state = AddonState::from(args);
    v8::Isolate* isolate = args.GetIsolate();
    ServerOptionsArgument server;
    if (!server.read(isolate, args[0], "App")) return;
    finishCreation(args, std::make_unique<AppWrap>(state, server.options()), "App");
}

// Takes (options: AppOptions); returns a new App that speaks TLS. Material that does not load is an Error naming
// the option, here and not at the first connection.
void AppWrap::createSsl(const Args& args) {
    AddonState& state = AddonState::from(args);
    v8::Isolate* isolate = args.GetIsolate();
    if (!args[0]->IsObject()) return throwTypeError(isolate, "SSLApp: options must be an object");
    TlsOptionsArgument tls;
    if (!tls.read(isolate, args[0], "SSLApp")) return;
    ServerOptionsArgument server;
    if (!server.read(isolate, args[0], "SSLApp")) return;
    finishCreation(args, std::make_unique<AppWrap>(state, server.options(), &tls.options()), "SSLApp");
}

bool AppWrap::finishCreation(const Args& args, std::unique_ptr<AppWrap> created, const char* what) {
    v8::Isolate* isolate = args.GetIsolate();
    if (created->app_.constructorFailed()) {
        // The core names its own option; in JavaScript it is the options object's field.
        constexpr std::string_view kSources = "proxyTrustedSources: ";
        const std::string& error = created->app_.constructionError();
        if (error.rfind(kSources, 0) == 0) {
            std::string message =
                std::string(what) + ": options.proxy_trusted_sources: " + error.substr(kSources.size());
            throwRangeError(isolate, message.c_str());
        } else {
            throwError(isolate, (std::string(what) + ": " + error).c_str());
        }
        return false;
    }
    AddonState& state = AddonState::from(args);
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    v8::Local<v8::Object> object;
    if (!state.appTemplate()->NewInstance(context).ToLocal(&object)) return false;
    AppWrap& app = state.adopt(std::move(created));
    compat::setPointer(object, kApp, &app);
    args.GetReturnValue().Set(object);
    return true;
}

void AppWrap::dispatch(const Handle<v8::Function>& handler, HttpResponse* response, HttpRequest* request) {
    // During teardown nothing is called: the core answers the request with 500 and the connection closes.
    if (!state_.canCallJavaScript()) return;
    v8::Isolate* isolate = state_.isolate();
    v8::HandleScope handles(isolate);
    // No Context::Scope: cloning needs no context, and callFromLoop runs in the entered context (the batch's, or
    // MakeCallback's).
    v8::Local<v8::Object> res = ResponseWrap::wrap(state_, response);
    v8::Local<v8::Object> req = RequestWrap::wrap(state_, request);
    ++dispatchDepth_;
    v8::Local<v8::Value> argv[] = {res, req};
    state_.callFromLoop(handler.get(isolate), 2, argv);
    // A handler that answered at once is over. One that left its response open (it awaits something) ends once the
    // microtasks it queued have run, as in uWebSockets.js: what it does after an await of a resolved promise still
    // belongs to it.
    if (ResponseWrap::isUsable(res)) state_.endHandlerScope();
    RequestWrap::invalidate(req);
    ResponseWrap::afterHandler(res);
    --dispatchDepth_;
}

// Takes (pattern: RecognizedString, handler: function | null | ArrayBuffer from DeclarativeResponse.end());
// returns this. Adding a pattern that exists replaces its handler; null removes the route.
void AppWrap::addRoute(const Args& args, const Method& method) {
    AppWrap& app = unwrap(args);
    v8::Isolate* isolate = args.GetIsolate();
    std::string name = std::string("app.") + method.name;
    BytesArgument pattern;
    if (!pattern.read(isolate, args[0])) {
        return throwTypeError(isolate, (name + ": pattern must be a string").c_str());
    }
    if (app.dispatchDepth_ > 0) {
        return throwError(isolate, (name + ": routes cannot be added or removed while a route handler runs").c_str());
    }
    v8::Local<v8::Value> handler = args[1];
    bool added = false;
    bool unmatchable = pattern.view().empty() || pattern.view().front() != '/';
    if (handler->IsNull()) {
        if (!unmatchable) app.app_.removeRoute(method.method, pattern.view());
        args.GetReturnValue().Set(args.This());
        return;
    }
    if (unmatchable && (handler->IsFunction() || handler->IsArrayBuffer() || handler->IsArrayBufferView())) {
        // Request paths always start with '/': such a route could never match. uWebSockets.js takes it all the
        // same, and frameworks that register routes lazily rely on that (express answers 404 for it).
        app.warnUnmatchablePattern(name, pattern.view());
        args.GetReturnValue().Set(args.This());
        return;
    }
    if (handler->IsFunction()) {
        added = app.app_.addRoute(method.method, pattern.view(),
                                  RouteHandler{&app, Handle<v8::Function>(isolate, handler.As<v8::Function>())});
    } else if (handler->IsArrayBuffer() || handler->IsArrayBufferView()) {
        BytesArgument bytes;
        bytes.read(isolate, handler);
        std::optional<DeclarativeProgram> program = DeclarativeProgram::parse(bytes.view());
        if (!program) {
            return throwTypeError(
                isolate, (name + ": the handler is an ArrayBuffer but not one DeclarativeResponse.end() made").c_str());
        }
        app.programs_.push_back(std::move(*program));
        added = app.app_.addRoute(method.method, pattern.view(), DeclarativeHandler{&app.programs_.back()});
        if (!added) app.programs_.pop_back();
    } else {
        return throwTypeError(
            isolate,
            (name + ": handler must be a function, null (to remove the route) or a DeclarativeResponse").c_str());
    }
    if (!added) {
        std::string message = name + ": invalid route pattern \"" + std::string(pattern.view()) +
                              "\" (parameters need a name (/:id), '*' may only be the whole last segment, and a "
                              "pattern has at most 16 parameters)";
        return throwTypeError(isolate, message.c_str());
    }
    args.GetReturnValue().Set(args.This());
}

void AppWrap::warnUnmatchablePattern(const std::string& method, std::string_view pattern) {
    if (warnedUnmatchablePattern_) return;
    warnedUnmatchablePattern_ = true;
    std::fprintf(stderr,
                 "loopwire: warning: %s: the route pattern \"%.*s\" does not start with '/', so it never matches a "
                 "request (as in uWebSockets.js); this warning is printed once per App\n",
                 method.c_str(), static_cast<int>(pattern.size()), pattern.data());
}

void AppWrap::answerListen(const Args& args, int callbackIndex, ListenSocket* socket) {
    v8::Isolate* isolate = args.GetIsolate();
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    v8::Local<v8::Value> token = v8::False(isolate);
    if (socket != nullptr) {
        listenRecords_.push_back(ListenRecord{socket, App::localPort(socket), true});
        token = ListenSocketWrap::wrap(state_, context, &listenRecords_.back(), args.This());
    }
    v8::Local<v8::Value> argv[] = {token};
    v8::Local<v8::Function> callback = args[callbackIndex].As<v8::Function>();
    // Called synchronously, as in uWebSockets.js: an exception propagates to the caller of listen().
    if (callback->Call(context, context->Global(), 1, argv).IsEmpty()) return;
    args.GetReturnValue().Set(args.This());
}

// Takes ([host: RecognizedString,] port: number, [options: number,] callback: (listenSocket | false) => void);
// calls callback before returning, with a listen socket or false; returns this. Port 0 takes a free port
// (us_socket_local_port tells which); options LIBUS_LISTEN_EXCLUSIVE_PORT refuses to share the port. As in
// uWebSockets.js, the first argument is the host unless it is a number, and port and options may be numeric
// strings.
void AppWrap::listen(const Args& args) {
    AppWrap& app = unwrap(args);
    v8::Isolate* isolate = args.GetIsolate();
    int argc = args.Length();
    if (argc < 2 || argc > 4 || !args[argc - 1]->IsFunction()) {
        return throwTypeError(isolate,
                              "app.listen: expected ([host,] port, [options,] callback) with callback a function");
    }
    int index = 0;
    BytesArgument host;
    if (!args[0]->IsNumber()) {
        if (!host.read(isolate, args[0])) return throwTypeError(isolate, "app.listen: host must be a string");
        index = 1;
    }
    int numbers = argc - 1 - index;
    if (numbers < 1) {
        // listen('3000', cb): as in uWebSockets.js, a first argument that is not a number is the host.
        return throwTypeError(isolate,
                              "app.listen: no port: a first argument that is not a number is the host, as in "
                              "uWebSockets.js; give the port as a number, or as the argument after the host");
    }
    if (numbers > 2) return throwTypeError(isolate, "app.listen: expected ([host,] port, [options,] callback)");
    if (containsNul(host.view())) return throwTypeError(isolate, "app.listen: host must not contain NUL characters");
    std::optional<std::uint32_t> port = readInteger(isolate, args[index], kMaxPort, "app.listen: port");
    if (!port) return;
    std::optional<std::uint32_t> options = std::uint32_t{0};
    if (numbers == 2) options = readInteger(isolate, args[index + 1], kMaxListenOptions, "app.listen: options");
    if (!options) return;
    ListenSocket* socket = nullptr;
    app.app_.listen(host.view(), static_cast<int>(*port), static_cast<int>(*options),
                    [&socket](ListenSocket* listening) { socket = listening; });
    app.answerListen(args, argc - 1, socket);
}

// Takes (callback: (listenSocket | false) => void, path: RecognizedString); listens on a Unix socket at path and
// calls callback before returning; returns this.
void AppWrap::listenUnix(const Args& args) {
    AppWrap& app = unwrap(args);
    v8::Isolate* isolate = args.GetIsolate();
    if (!args[0]->IsFunction()) return throwTypeError(isolate, "app.listen_unix: callback must be a function");
    BytesArgument path;
    if (!path.read(isolate, args[1])) return throwTypeError(isolate, "app.listen_unix: path must be a string");
    if (containsNul(path.view())) {
        return throwTypeError(isolate, "app.listen_unix: path must not contain NUL characters");
    }
    ListenSocket* socket = nullptr;
    app.app_.listenUnix(path.view(), [&socket](ListenSocket* listening) { socket = listening; });
    app.answerListen(args, 0, socket);
}

// Takes nothing; stops every listen socket and closes every connection (pending responses are aborted: their
// onAborted callbacks run); returns this.
// Takes (options?: { drainMs? }, callback?: function), or (callback) as node:http's close takes it (uWebSockets.js
// ignores arguments, so code written for it may pass one). Without a drain (and without a callback), uWebSockets.js's
// close: everything now. The callback runs from the loop once every connection has ended.
void AppWrap::close(const Args& args) {
    v8::Isolate* isolate = args.GetIsolate();
    AppWrap& app = unwrap(args);
    const bool callbackFirst = args[0]->IsFunction();
    v8::Local<v8::Value> optionsValue = callbackFirst ? v8::Undefined(isolate).As<v8::Value>() : args[0];
    v8::Local<v8::Value> callbackValue = callbackFirst ? args[0] : args[1];
    std::uint32_t drainMs = 0;
    if (!optionsValue->IsUndefined() && !optionsValue->IsNull()) {
        if (!optionsValue->IsObject()) {
            return throwTypeError(isolate, "app.close: options must be an object { drainMs }, or undefined");
        }
        OptionFields options(isolate, optionsValue.As<v8::Object>(), "app.close: options");
        if (!options.readInteger("drainMs", 0, UINT32_MAX, drainMs)) return;
    }
    if (!callbackValue->IsUndefined() && !callbackValue->IsFunction()) {
        return throwTypeError(isolate, "app.close: callback must be a function");
    }
    for (ListenRecord& record : app.listenRecords_)
        record.open = false;
    if (callbackValue->IsFunction()) {
        AppWrap* owner = &app;
        Handle<v8::Function> callback(isolate, callbackValue.As<v8::Function>());
        app.app_.close(CloseOptions{.drainMs = drainMs}, [owner, callback = std::move(callback)] {
            if (!owner->state_.canCallJavaScript()) return;
            v8::Isolate* loopIsolate = owner->state_.isolate();
            v8::HandleScope handles(loopIsolate);
            owner->state_.callFromLoop(callback.get(loopIsolate), 0, nullptr);
        });
    } else {
        // drainMs 0 is close() itself.
        app.app_.close(CloseOptions{.drainMs = drainMs});
    }
    args.GetReturnValue().Set(args.This());
}

namespace {

// Reads behavior.<name> as an integer up to max into *out when it is given (a byte limit above max is taken as
// max); throws and returns false otherwise.
bool readBehaviorNumber(v8::Isolate* isolate, v8::Local<v8::Object> behavior, const char* name, std::uint32_t max,
                        std::uint32_t* out, bool isLimit = false) {
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    v8::Local<v8::Value> value;
    if (!behavior->Get(context, v8::String::NewFromUtf8(isolate, name).ToLocalChecked()).ToLocal(&value)) return false;
    if (value->IsUndefined()) return true;
    std::string what = std::string("app.ws: behavior.") + name;
    std::optional<std::uint32_t> number =
        isLimit ? readLimit(isolate, value, max, what.c_str()) : readInteger(isolate, value, max, what.c_str());
    if (!number) return false;
    *out = *number;
    return true;
}

bool readBehaviorFlag(v8::Isolate* isolate, v8::Local<v8::Object> behavior, const char* name, bool* out) {
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    v8::Local<v8::Value> value;
    if (!behavior->Get(context, v8::String::NewFromUtf8(isolate, name).ToLocalChecked()).ToLocal(&value)) return false;
    if (!value->IsUndefined()) *out = value->BooleanValue(isolate);
    return true;
}

}  // namespace

// Takes (pattern: RecognizedString, behavior: WebSocketBehavior); returns this. Every field of uWebSockets.js v20's
// behaviour is read; a handler that is not a function, or a number out of range (idleTimeout 1 to 7 or over 960,
// maxLifetime over 240, an unknown compression value, a negative or fractional size), throws. A byte limit over
// 2^32 - 1 (maxPayloadLength: 1e10) is taken as 2^32 - 1, as uWebSockets.js accepts it.
void AppWrap::ws(const Args& args) {
    AppWrap& app = unwrap(args);
    v8::Isolate* isolate = args.GetIsolate();
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    BytesArgument pattern;
    if (!pattern.read(isolate, args[0])) return throwTypeError(isolate, "app.ws: pattern must be a string");
    if (app.dispatchDepth_ > 0) {
        return throwError(isolate, "app.ws: routes cannot be added or removed while a route handler runs");
    }
    if (!args[1]->IsObject()) return throwTypeError(isolate, "app.ws: behavior must be an object");
    v8::Local<v8::Object> behavior = args[1].As<v8::Object>();
    constexpr std::uint32_t kMaxUint32 = 0xFFFFFFFF;
    WebSocketSettings settings;
    if (!readBehaviorNumber(isolate, behavior, "compression", kMaxUint32, &settings.compression) ||
        !readBehaviorNumber(isolate, behavior, "maxPayloadLength", kMaxUint32, &settings.maxPayloadLength, true) ||
        !readBehaviorNumber(isolate, behavior, "idleTimeout", kMaxUint32, &settings.idleTimeout) ||
        !readBehaviorNumber(isolate, behavior, "maxBackpressure", kMaxUint32, &settings.maxBackpressure, true) ||
        !readBehaviorNumber(isolate, behavior, "maxLifetime", kMaxUint32, &settings.maxLifetime) ||
        !readBehaviorFlag(isolate, behavior, "closeOnBackpressureLimit", &settings.closeOnBackpressureLimit) ||
        !readBehaviorFlag(isolate, behavior, "resetIdleTimeoutOnSend", &settings.resetIdleTimeoutOnSend) ||
        !readBehaviorFlag(isolate, behavior, "sendPingsAutomatically", &settings.sendPingsAutomatically)) {
        return;
    }
    if (const char* invalid = settings.check(); invalid != nullptr) {
        std::string field = invalid;
        std::string message = "app.ws: behavior." + field;
        if (field == "idleTimeout") {
            message += " must be 0 (none) or 8 to 960 seconds: the timeout sweep runs every 4 seconds";
        } else if (field == "maxLifetime") {
            message += " must be 0 (none) to 240 minutes";
        } else {
            message += " is not a compression option: combine one compressor and one decompressor constant with |";
        }
        return throwRangeError(isolate, message.c_str());
    }
    auto events = std::make_unique<JsWebSocketEvents>(app.state_);
    for (int index = 0; index < JsWebSocketEvents::kCount; ++index) {
        const char* name = JsWebSocketEvents::kHandlerNames[static_cast<std::size_t>(index)];
        v8::Local<v8::Value> handler;
        if (!behavior->Get(context, v8::String::NewFromUtf8(isolate, name).ToLocalChecked()).ToLocal(&handler)) return;
        if (handler->IsUndefined() || handler->IsNull()) continue;
        if (!handler->IsFunction()) {
            std::string message = std::string("app.ws: behavior.") + name + " must be a function";
            return throwTypeError(isolate, message.c_str());
        }
        events->setHandler(static_cast<JsWebSocketEvents::HandlerIndex>(index),
                           Handle<v8::Function>(isolate, handler.As<v8::Function>()));
    }
    if (!app.app_.addWebSocketRoute(pattern.view(), settings, std::move(events))) {
        std::string message = "app.ws: invalid route pattern \"" + std::string(pattern.view()) + "\"";
        return throwTypeError(isolate, message.c_str());
    }
    args.GetReturnValue().Set(args.This());
}

// Takes (topic: RecognizedString, message: RecognizedString, isBinary?: boolean, compress?: boolean); sends message
// to every subscriber of topic after the current batch; returns whether the topic has subscribers.
void AppWrap::publish(const Args& args) {
    AppWrap& app = unwrap(args);
    v8::Isolate* isolate = args.GetIsolate();
    BytesArgument topic;
    if (!topic.read(isolate, args[0])) return throwTypeError(isolate, "app.publish: topic must be a string");
    BytesArgument message;
    if (!message.read(isolate, args[1])) {
        return throwTypeError(
            isolate, "app.publish: message must be a string, ArrayBuffer, SharedArrayBuffer or ArrayBufferView");
    }
    OpCode opCode = booleanArgument(isolate, args[2]) ? OpCode::Binary : OpCode::Text;
    args.GetReturnValue().Set(
        app.app_.publish(topic.view(), message.view(), opCode, booleanArgument(isolate, args[3])));
}

// Takes (topic: RecognizedString); returns the number of WebSockets subscribed to it.
void AppWrap::numSubscribers(const Args& args) {
    AppWrap& app = unwrap(args);
    v8::Isolate* isolate = args.GetIsolate();
    BytesArgument topic;
    if (!topic.read(isolate, args[0])) return throwTypeError(isolate, "app.numSubscribers: topic must be a string");
    args.GetReturnValue().Set(static_cast<double>(app.app_.numSubscribers(topic.view())));
}

// Server names (SNI), on an SSLApp: each name's key and certificate, the missing-name callback, and routes per
// name (domain). uWebSockets.js has these on every App; on a plain App they are accepted and do nothing, because a
// plain connection carries no server name (hyper-express calls missingServerName unconditionally): every route
// serves every request there, whatever domain() said.

// Takes (hostnamePattern: RecognizedString, options?: AppOptions); returns this. On an SSLApp, material that
// does not load is an Error naming the option; a plain App ignores the call.
void AppWrap::addServerName(const Args& args) {
    v8::Isolate* isolate = args.GetIsolate();
    BytesArgument hostnameBytes;
    if (!hostnameBytes.read(isolate, args[0])) {
        return throwTypeError(isolate, "app.addServerName: hostnamePattern must be a string");
    }
    // Copied: reading the options may run getters, which may change a buffer given as the pattern.
    std::string hostname(hostnameBytes.view());
    TlsOptionsArgument tls;
    if (!tls.read(isolate, args[1], "app.addServerName")) return;
    AppWrap& self = unwrap(args);
    if (self.app_.isSsl()) {
        std::string error;
        if (!self.app_.tryAddServerName(hostname, tls.options(), error)) {
            std::string message = "app.addServerName: " + error;
            return throwError(isolate, message.c_str());
        }
    }
    args.GetReturnValue().Set(args.This());
}

// Takes (hostnamePattern: RecognizedString); returns this.
void AppWrap::removeServerName(const Args& args) {
    v8::Isolate* isolate = args.GetIsolate();
    BytesArgument hostname;
    if (!hostname.read(isolate, args[0])) {
        return throwTypeError(isolate, "app.removeServerName: hostnamePattern must be a string");
    }
    unwrap(args).app_.removeServerName(hostname.view());
    args.GetReturnValue().Set(args.This());
}

// Takes (cb: (hostname: string) => void); returns this. cb runs during a handshake that asks for a server name
// no pattern covers, and may call addServerName for it, which then serves that handshake. On a plain App cb is
// never called.
void AppWrap::missingServerName(const Args& args) {
    v8::Isolate* isolate = args.GetIsolate();
    if (!args[0]->IsFunction()) return throwTypeError(isolate, "app.missingServerName: cb must be a function");
    AppWrap& self = unwrap(args);
    self.onMissingServerName_ = Handle<v8::Function>(isolate, args[0].As<v8::Function>());
    self.app_.missingServerName([&self](std::string_view hostname) { self.askForServerName(hostname); });
    args.GetReturnValue().Set(args.This());
}

void AppWrap::askForServerName(std::string_view hostname) {
    if (!state_.canCallJavaScript() || onMissingServerName_.empty()) return;
    v8::Isolate* isolate = state_.isolate();
    v8::HandleScope handles(isolate);
    v8::Local<v8::String> name;
    if (!v8::String::NewFromUtf8(isolate, hostname.data(), v8::NewStringType::kNormal,
                                 static_cast<int>(hostname.size()))
             .ToLocal(&name)) {
        return;
    }
    v8::Local<v8::Value> argv[] = {name};
    state_.callFromLoop(onMissingServerName_.get(isolate), 1, argv);
}

// Takes (serverName: RecognizedString); returns this. Routes added afterwards belong to that server name on an
// SSLApp (App::domain); a plain App has one set of routes, so they stay the App's own.
void AppWrap::domain(const Args& args) {
    v8::Isolate* isolate = args.GetIsolate();
    BytesArgument serverName;
    if (!serverName.read(isolate, args[0])) return throwTypeError(isolate, "app.domain: serverName must be a string");
    unwrap(args).app_.domain(serverName.view());
    args.GetReturnValue().Set(args.This());
}

}  // namespace loopwire::addon
