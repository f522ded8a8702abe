// AppWrap: the JavaScript App (uWS.App, the TemplatedApp of uWebSockets.js v20) and the core App behind it.
//
// App(options?) creates one on the environment's own libuv loop (node::GetCurrentEventLoop): loopwire's sockets
// are polled by the loop Node runs, with no thread and no second loop. The AddonState owns every AppWrap until
// the environment ends (as uWebSockets.js, which never frees an App); the JavaScript object only points to it.
// close() stops listening and closes every connection; close({ drainMs }, callback) lets them end first (App::close).
//
// Routes: get/post/put/del/patch/options/head/connect/trace/any(pattern, handler) take a function, null (removes
// the route), or the ArrayBuffer a DeclarativeResponse built (answered natively, see DeclarativeProgram). A
// function is held by one global handle for the App's life, inside the core's route handler (RouteHandler,
// 16 bytes, stored inline). A malformed pattern, or a route change from inside a handler, throws; a pattern that
// does not start with '/' is accepted as uWebSockets.js accepts it, and never matches (one warning per App).
//
// Server names: addServerName, removeServerName, missingServerName and domain exist on every App, as in
// uWebSockets.js; on a plain App they are accepted and have no effect.
//
// Pub/sub across processes: connectPubSub(url, options), disconnectPubSub() and getPubSubStats()
// (AppPubSub.cpp) connect the App's topics to a Redis server through the core's broker link.
//
// Threads: getDescriptor, addChildAppDescriptor, removeChildAppDescriptor and adoptSocket (AppDescriptors.cpp)
// let an App on one thread hand the sockets it accepts to Apps on worker threads; descriptors are numbers checked
// against a registry the process shares, so a wrong one throws instead of crashing.
//
// Per request (dispatch): one res and one req object, one call into JavaScript inside the batch's callback scope
// (AddonState::callFromLoop), no global handle and no native allocation.
#pragma once

#include "DeclarativeProgram.h"
#include "Handle.h"
#include "ListenSocketWrap.h"
#include "V8Headers.h"

#include <loopwire/App.h>

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

namespace loopwire::addon {

class AddonState;

class AppWrap {
public:
    enum Field : int {
        kApp,
        kFieldCount,
    };

    // The class uWS.App, with its methods; once per environment.
    static v8::Local<v8::FunctionTemplate> createClass(v8::Isolate* isolate, v8::Local<v8::External> data);

    // Module functions: App(options?) and SSLApp(options).
    static void create(const v8::FunctionCallbackInfo<v8::Value>& args);
    // The construction of either, once its options are read: throws (Error for TLS material, RangeError for a
    // trusted PROXY source) and returns false when the core could not use them.
    static bool finishCreation(const v8::FunctionCallbackInfo<v8::Value>& args, std::unique_ptr<AppWrap> app,
                               const char* what);
    static void createSsl(const v8::FunctionCallbackInfo<v8::Value>& args);

    // An App, or with tls an SSLApp (whose constructionError() the caller checks).
    AppWrap(AddonState& state, const ServerOptions& options, const SocketContextOptions* tls = nullptr);
    ~AppWrap();
    AppWrap(const AppWrap&) = delete;
    AppWrap& operator=(const AppWrap&) = delete;

    // Calls a JavaScript route handler with new res and req objects (from the core, for one request). Its scope
    // ends when it returns, or, when it left the response open, once the microtasks it queued have run
    // (AddonState::endHandlerScope); then req is invalidated, and res too unless it waits for onAborted.
    void dispatch(const Handle<v8::Function>& handler, HttpResponse* response, HttpRequest* request);

private:
    struct Method {
        const char* name;         // the JavaScript method: "get"
        std::string_view method;  // the HTTP method: "GET", or "*" for any
    };
    static const Method kMethods[];

    template <int kMethodIndex>
    static void route(const v8::FunctionCallbackInfo<v8::Value>& args) {
        addRoute(args, kMethods[kMethodIndex]);
    }
    static void addRoute(const v8::FunctionCallbackInfo<v8::Value>& args, const Method& method);
    static void listen(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void listenUnix(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void close(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void ws(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void publish(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void numSubscribers(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void addServerName(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void removeServerName(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void missingServerName(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void domain(const v8::FunctionCallbackInfo<v8::Value>& args);
    // Several threads (AppDescriptors.cpp): getDescriptor, addChildAppDescriptor, removeChildAppDescriptor and
    // adoptSocket, as uWebSockets.js v20 names them.
    static void getDescriptor(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void addChildAppDescriptor(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void removeChildAppDescriptor(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void adoptSocket(const v8::FunctionCallbackInfo<v8::Value>& args);
    // Static files (AppStaticFiles.cpp): app.static.
    static void serveStatic(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void compress(const v8::FunctionCallbackInfo<v8::Value>& args);  // AppCompress.cpp
    // Pub/sub across processes (AppPubSub.cpp): connectPubSub, disconnectPubSub, getPubSubStats, getHistory.
    static void connectPubSub(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void disconnectPubSub(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getPubSubStats(const v8::FunctionCallbackInfo<v8::Value>& args);
    static void getHistory(const v8::FunctionCallbackInfo<v8::Value>& args);

    static AppWrap& unwrap(const v8::FunctionCallbackInfo<v8::Value>& args);
    // Calls the listen callback (args[callbackIndex]) with a token for socket, or false when it is null.
    void answerListen(const v8::FunctionCallbackInfo<v8::Value>& args, int callbackIndex, ListenSocket* socket);
    // Calls the missingServerName callback (during a handshake).
    void askForServerName(std::string_view hostname);
    // Calls the connectPubSub options' ready or error callback for an event of the link (from the loop).
    void reportPubSubEvent(const PubSubEvent& event);
    // Calls a getHistory callback with what the read answered (from the loop).
    void reportHistory(const Handle<v8::Function>& callback, const PubSubHistory& history);
    // Prints, once per App, that a route pattern not starting with '/' was accepted but can never match.
    void warnUnmatchablePattern(const std::string& method, std::string_view pattern);

    AddonState& state_;
    App app_;
    std::deque<ListenRecord> listenRecords_;   // stable addresses: tokens point to them
    std::deque<DeclarativeProgram> programs_;  // stable addresses: declarative routes point to them
    std::uint32_t dispatchDepth_ = 0;          // route handlers running right now
    bool warnedUnmatchablePattern_ = false;
    Handle<v8::Function> onMissingServerName_;
    Handle<v8::Function> onPubSubReady_;
    Handle<v8::Function> onPubSubError_;
    std::uint64_t descriptor_ = 0;  // the number getDescriptor() returned, once it has been called
};

// The route handler the core stores for a JavaScript function: the App and one global handle to the function.
struct RouteHandler {
    AppWrap* app;
    Handle<v8::Function> handler;
    void operator()(HttpResponse* response, HttpRequest* request) { app->dispatch(handler, response, request); }
};

}  // namespace loopwire::addon
