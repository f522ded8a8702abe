// WebSocketEvents (addon): the handlers of one app.ws() route, as the core calls them, calling the JavaScript
// functions of its behaviour object.
//
// Each connection's user data in the core is a SocketObject: one global handle to its ws object (WebSocketWrap).
// Every event enters JavaScript through AddonState::callFromLoop (inside the loop's batch when there is one), with
// the ws object and, for message, dropped, ping, pong, close and subscription, the bytes lent as an ArrayBuffer
// that is detached when the handler's task is over, once the microtasks and nextTicks it queued have run
// (LentBuffer: zero-copy from the receive buffer when they lie there). Each event is a task of its own.
// The close handler finds the ws already closed (its methods throw), as in uWebSockets.js; the handle is released
// right after it. Events are skipped, but the objects still invalidated, once JavaScript can no longer run
// (environment teardown).
#pragma once

#include "Handle.h"
#include "V8Headers.h"

#include <loopwire/WebSocketBehavior.h>

#include <array>
#include <optional>
#include <string_view>

namespace loopwire::addon {

class AddonState;

class JsWebSocketEvents final : public WebSocketEvents {
public:
    // The behaviour's handlers, by the names of uWebSockets.js's WebSocketBehavior.
    enum HandlerIndex : int {
        kUpgrade,
        kOpen,
        kMessage,
        kDropped,
        kDrain,
        kPing,
        kPong,
        kClose,
        kSubscription,
        kCount
    };
    static constexpr std::array<const char*, kCount> kHandlerNames = {
        "upgrade", "open", "message", "dropped", "drain", "ping", "pong", "close", "subscription"};

    explicit JsWebSocketEvents(AddonState& state) : state_(state) {}
    void setHandler(HandlerIndex index, Handle<v8::Function> handler) { handlers_[index] = std::move(handler); }

    std::size_t userDataBytes() const noexcept override { return sizeof(SocketObject); }
    std::size_t userDataAlignment() const noexcept override { return alignof(SocketObject); }
    void destroyUserData(void* userData) noexcept override { static_cast<SocketObject*>(userData)->~SocketObject(); }
    bool upgrade(HttpResponse* response, HttpRequest* request, WebSocketContext* context) override;
    void constructDefaultUserData(void* storage) override;
    void open(AnyWebSocket* socket) override;
    void message(AnyWebSocket* socket, std::string_view message, OpCode opCode) override;
    void dropped(AnyWebSocket* socket, std::string_view message, OpCode opCode) override;
    void drain(AnyWebSocket* socket) override;
    void ping(AnyWebSocket* socket, std::string_view message) override;
    void pong(AnyWebSocket* socket, std::string_view message) override;
    void close(AnyWebSocket* socket, int code, std::string_view reason) override;
    void subscription(AnyWebSocket* socket, std::string_view topic, int newCount, int oldCount) override;
    bool wantsSubscriptionEvents() const noexcept override { return !handlers_[kSubscription].empty(); }

    // The user data of a connection: its ws object.
    struct SocketObject {
        Handle<v8::Object> ws;
    };
    // Places a SocketObject for ws in storage (res.upgrade's construct step).
    static void constructSocketObject(void* storage, void* ws);

    // The JavaScript value an upgrade handler receives as `context`, for res.upgrade; and back.
    static WebSocketContext* contextOf(AddonState& state, v8::Local<v8::Value> value);

private:
    // Calls handler `index` with argv; the caller holds a HandleScope. Returns false when it threw or is absent.
    void call(HandlerIndex index, int argc, v8::Local<v8::Value>* argv);
    v8::Local<v8::Object> wsOf(AnyWebSocket* socket) const;
    // Calls handler `index` with (ws, bytes lent as an ArrayBuffer[, isBinary]) when it exists.
    void callWithBytes(HandlerIndex index, AnyWebSocket* socket, std::string_view bytes, std::optional<bool> isBinary);
    v8::Local<v8::Object> contextObject(WebSocketContext* context);

    AddonState& state_;
    std::array<Handle<v8::Function>, kCount> handlers_;
    Handle<v8::Object> contextObject_;  // made at the first upgrade
};

}  // namespace loopwire::addon
