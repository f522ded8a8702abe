// WebSocketBehavior<UserData>: what App::ws(pattern, behavior) does with the WebSocket connections of a route:
// its settings (WebSocketSettings) and its handlers, as uWebSockets v20 names them.
//
// Handlers run on the loop thread, with the socket corked (see WebSocket.h), and may call any method of the
// socket, close it included. Each is optional. Their order for one socket: upgrade (an HTTP handler: it answers
// with res->upgrade(), or with an HTTP response that refuses the upgrade), open, then message, ping, pong,
// drain, dropped and subscription in the order of events, and close exactly once, last.
//
// Without an upgrade handler, every valid upgrade request is accepted with default-constructed user data.
#pragma once

#include <loopwire/HttpRequest.h>
#include <loopwire/HttpResponse.h>
#include <loopwire/InlineFunction.h>
#include <loopwire/WebSocket.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <string_view>
#include <utility>

namespace loopwire {

// A route's WebSocket state: handed to the upgrade handler, and passed on to HttpResponse::upgrade.
class WebSocketContext;

// The compression option: a compressor in the low byte and a decompressor in bits 8 to 11, combined with |.
// The values are uWebSockets v20's, so that a configuration means the same on both. A compressor is 0 (none),
// SHARED_COMPRESSOR (one per loop, no context kept between messages), or (window bits << 4) | zlib memLevel for a
// dedicated one that keeps its context; a decompressor is 0, SHARED_DECOMPRESSOR (one per loop: clients must not
// keep context), or its window bits. Compression is negotiated only when the behaviour has a decompressor.
using CompressOptions = std::uint32_t;
inline constexpr CompressOptions DISABLED = 0;
inline constexpr CompressOptions SHARED_COMPRESSOR = 1;
inline constexpr CompressOptions SHARED_DECOMPRESSOR = 1u << 8;
inline constexpr CompressOptions DEDICATED_COMPRESSOR_3KB = (9u << 4) | 1;
inline constexpr CompressOptions DEDICATED_COMPRESSOR_4KB = (9u << 4) | 2;
inline constexpr CompressOptions DEDICATED_COMPRESSOR_8KB = (10u << 4) | 3;
inline constexpr CompressOptions DEDICATED_COMPRESSOR_16KB = (11u << 4) | 4;
inline constexpr CompressOptions DEDICATED_COMPRESSOR_32KB = (12u << 4) | 5;
inline constexpr CompressOptions DEDICATED_COMPRESSOR_64KB = (13u << 4) | 6;
inline constexpr CompressOptions DEDICATED_COMPRESSOR_128KB = (14u << 4) | 7;
inline constexpr CompressOptions DEDICATED_COMPRESSOR_256KB = (15u << 4) | 8;
inline constexpr CompressOptions DEDICATED_COMPRESSOR = DEDICATED_COMPRESSOR_256KB;
inline constexpr CompressOptions DEDICATED_DECOMPRESSOR_512B = 9u << 8;
inline constexpr CompressOptions DEDICATED_DECOMPRESSOR_1KB = 10u << 8;
inline constexpr CompressOptions DEDICATED_DECOMPRESSOR_2KB = 11u << 8;
inline constexpr CompressOptions DEDICATED_DECOMPRESSOR_4KB = 12u << 8;
inline constexpr CompressOptions DEDICATED_DECOMPRESSOR_8KB = 13u << 8;
inline constexpr CompressOptions DEDICATED_DECOMPRESSOR_16KB = 14u << 8;
inline constexpr CompressOptions DEDICATED_DECOMPRESSOR_32KB = 15u << 8;
inline constexpr CompressOptions DEDICATED_DECOMPRESSOR = DEDICATED_DECOMPRESSOR_32KB;

// The numbers of a behaviour (the fields of WebSocketBehavior, see there), with uWebSockets v20's defaults. App::ws
// refuses values out of range (see WebSocketSettings::check).
struct WebSocketSettings {
    // The idle timeout's bounds, in seconds: at least two sweeps of the default 4-second interval.
    static constexpr std::uint32_t kMinIdleTimeoutSeconds = 8;
    static constexpr std::uint32_t kMaxIdleTimeoutSeconds = 960;
    // maxLifetime's bound, in minutes.
    static constexpr std::uint32_t kMaxLifetimeMinutes = 240;

    CompressOptions compression = DISABLED;
    // The longest message accepted, after inflation; a longer one closes the connection with 1009.
    std::uint32_t maxPayloadLength = 16 * 1024;
    // Seconds without any frame from the peer after which the connection is closed: 0, or kMinIdleTimeoutSeconds
    // to kMaxIdleTimeoutSeconds. With sendPingsAutomatically, a ping goes out halfway, so that a live peer's pong
    // keeps it open.
    std::uint32_t idleTimeout = 120;
    // Unsent bytes past which messages are dropped (0: no limit).
    std::uint32_t maxBackpressure = 64 * 1024;
    bool closeOnBackpressureLimit = false;
    // Sending a message also restarts the idle timeout.
    bool resetIdleTimeoutOnSend = false;
    bool sendPingsAutomatically = true;
    // Minutes after which the connection is closed whatever it does (0: never), up to kMaxLifetimeMinutes.
    std::uint32_t maxLifetime = 0;

    // Null when the settings are valid; otherwise the name of the first field out of range.
    const char* check() const noexcept;
};

// The handlers of a route without their user data's type: what WebSocketBehavior<UserData> becomes inside
// App::ws, and what bindings implement directly. The WebSocket passed is the typed socket, seen untyped.
class WebSocketEvents {
public:
    virtual ~WebSocketEvents() = default;

    // The size and alignment of the user data stored in each connection, and how to destroy it (after close).
    virtual std::size_t userDataBytes() const noexcept = 0;
    virtual std::size_t userDataAlignment() const noexcept = 0;
    virtual void destroyUserData(void* userData) noexcept = 0;

    // Returns false when there is no upgrade handler: the request is upgraded with default user data.
    virtual bool upgrade(HttpResponse* response, HttpRequest* request, WebSocketContext* context) = 0;
    // Upgrades with default user data (placed in the storage given).
    virtual void constructDefaultUserData(void* storage) = 0;
    virtual void open(AnyWebSocket* socket) = 0;
    virtual void message(AnyWebSocket* socket, std::string_view message, OpCode opCode) = 0;
    virtual void dropped(AnyWebSocket* socket, std::string_view message, OpCode opCode) = 0;
    virtual void drain(AnyWebSocket* socket) = 0;
    virtual void ping(AnyWebSocket* socket, std::string_view message) = 0;
    virtual void pong(AnyWebSocket* socket, std::string_view message) = 0;
    // reason lies in a buffer that lives for the call only.
    virtual void close(AnyWebSocket* socket, int code, std::string_view reason) = 0;
    virtual void subscription(AnyWebSocket* socket, std::string_view topic, int newCount, int oldCount) = 0;
    // Whether a subscription handler exists (the topic tree then reports every change).
    virtual bool wantsSubscriptionEvents() const noexcept = 0;
};

// Inline capacity of each WebSocket handler.
inline constexpr std::size_t kWebSocketHandlerCapacity = 64;

// Flat, as uWebSockets' is, so that designated initializers name every field:
//     app.ws<PerSocket>("/*", {.compression = loopwire::SHARED_COMPRESSOR, .message = [](auto* ws, auto m, auto op) {
//         ws->send(m, op);
//     }});
template <typename UserData>
struct WebSocketBehavior {
    using Socket = WebSocket<UserData>;
    CompressOptions compression = DISABLED;
    std::uint32_t maxPayloadLength = 16 * 1024;
    std::uint32_t idleTimeout = 120;
    std::uint32_t maxBackpressure = 64 * 1024;
    bool closeOnBackpressureLimit = false;
    bool resetIdleTimeoutOnSend = false;
    bool sendPingsAutomatically = true;
    std::uint32_t maxLifetime = 0;
    InlineFunction<void(HttpResponse*, HttpRequest*, WebSocketContext*), kWebSocketHandlerCapacity> upgrade{};
    InlineFunction<void(Socket*), kWebSocketHandlerCapacity> open{};
    InlineFunction<void(Socket*, std::string_view, OpCode), kWebSocketHandlerCapacity> message{};
    InlineFunction<void(Socket*, std::string_view, OpCode), kWebSocketHandlerCapacity> dropped{};
    InlineFunction<void(Socket*), kWebSocketHandlerCapacity> drain{};
    InlineFunction<void(Socket*, std::string_view), kWebSocketHandlerCapacity> ping{};
    InlineFunction<void(Socket*, std::string_view), kWebSocketHandlerCapacity> pong{};
    InlineFunction<void(Socket*, int, std::string_view), kWebSocketHandlerCapacity> close{};
    InlineFunction<void(Socket*, std::string_view, int, int), kWebSocketHandlerCapacity> subscription{};
};

// WebSocketEvents for a typed behaviour (App::ws makes one).
template <typename UserData>
class TypedWebSocketEvents final : public WebSocketEvents {
public:
    explicit TypedWebSocketEvents(WebSocketBehavior<UserData>&& behavior) : behavior_(std::move(behavior)) {}

    std::size_t userDataBytes() const noexcept override { return sizeof(UserData); }
    std::size_t userDataAlignment() const noexcept override { return alignof(UserData); }
    void destroyUserData(void* userData) noexcept override { static_cast<UserData*>(userData)->~UserData(); }
    bool upgrade(HttpResponse* response, HttpRequest* request, WebSocketContext* context) override {
        if (!behavior_.upgrade) return false;
        behavior_.upgrade(response, request, context);
        return true;
    }
    void constructDefaultUserData(void* storage) override { new (storage) UserData(); }
    void open(AnyWebSocket* socket) override {
        if (behavior_.open) behavior_.open(typed(socket));
    }
    void message(AnyWebSocket* socket, std::string_view message, OpCode opCode) override {
        if (behavior_.message) behavior_.message(typed(socket), message, opCode);
    }
    void dropped(AnyWebSocket* socket, std::string_view message, OpCode opCode) override {
        if (behavior_.dropped) behavior_.dropped(typed(socket), message, opCode);
    }
    void drain(AnyWebSocket* socket) override {
        if (behavior_.drain) behavior_.drain(typed(socket));
    }
    void ping(AnyWebSocket* socket, std::string_view message) override {
        if (behavior_.ping) behavior_.ping(typed(socket), message);
    }
    void pong(AnyWebSocket* socket, std::string_view message) override {
        if (behavior_.pong) behavior_.pong(typed(socket), message);
    }
    void close(AnyWebSocket* socket, int code, std::string_view reason) override {
        if (behavior_.close) behavior_.close(typed(socket), code, reason);
    }
    void subscription(AnyWebSocket* socket, std::string_view topic, int newCount, int oldCount) override {
        if (behavior_.subscription) behavior_.subscription(typed(socket), topic, newCount, oldCount);
    }
    bool wantsSubscriptionEvents() const noexcept override { return static_cast<bool>(behavior_.subscription); }

    static WebSocketSettings settingsOf(const WebSocketBehavior<UserData>& behavior) noexcept {
        WebSocketSettings settings;
        settings.compression = behavior.compression;
        settings.maxPayloadLength = behavior.maxPayloadLength;
        settings.idleTimeout = behavior.idleTimeout;
        settings.maxBackpressure = behavior.maxBackpressure;
        settings.closeOnBackpressureLimit = behavior.closeOnBackpressureLimit;
        settings.resetIdleTimeoutOnSend = behavior.resetIdleTimeoutOnSend;
        settings.sendPingsAutomatically = behavior.sendPingsAutomatically;
        settings.maxLifetime = behavior.maxLifetime;
        return settings;
    }

private:
    static WebSocket<UserData>* typed(AnyWebSocket* socket) noexcept {
        return static_cast<WebSocket<UserData>*>(socket);
    }

    WebSocketBehavior<UserData> behavior_;
};

}  // namespace loopwire
