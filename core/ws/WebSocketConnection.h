// WebSocketConnection: one open WebSocket: the socket taken over from an upgraded HttpConnection, the frame
// parser and message assembly, the compression agreed, and the state of the closing handshake.
//
// It is the Socket and, at the same time, the AnyWebSocket handed to handlers (AnyWebSocket.cpp forwards here).
// Created by WebSocketContext::upgrade() with room for the route's user data right after the object (one
// allocation per connection); freed by the loop after it closes.
//
// Reading: each read is parsed in place; a message that arrives whole in one read (one frame, uncompressed) is
// delivered from the receive buffer without a copy, anything else is gathered in the connection's message buffer
// (kept for reuse up to a bound). Control frames are answered inside the read: a ping gets its pong (before the
// ping handler runs), a close frame its echo. Every handler runs corked, and what the read produced leaves in one
// write when it ends. Steady state: no allocation per message.
// Timeouts: one deadline, the earliest of the idle timeout (restarted by every frame received, and by sends with
// resetIdleTimeoutOnSend; with automatic pings, a ping halfway), maxLifetime, and the wait for the peer's close
// frame after end().
#pragma once

#include "base/ByteBuffer.h"
#include "net/Socket.h"
#include "pubsub/TopicTree.h"
#include "ws/DeflateNegotiation.h"
#include "ws/FrameParser.h"
#include "ws/Utf8Validator.h"

#include <loopwire/WebSocket.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace loopwire {

class WebSocketContext;
class WebSocketServer;

namespace ws {
class Deflater;
class Inflater;
}  // namespace ws

class WebSocketConnection final : public Socket, public AnyWebSocket {
public:
    // Takes predecessor's socket over (see Socket's takeover constructor), with the compression agreed in the
    // handshake; the user data is not constructed yet (userDataStorage()).
    static WebSocketConnection* create(Socket& predecessor, WebSocketContext& context,
                                       const ws::DeflateAgreement& agreement);
    ~WebSocketConnection() override;

    // Inside the connection, these names mean the socket's operations, not the WebSocket API.
    using Socket::close;
    using Socket::cork;
    using Socket::isClosed;
    using Socket::write;

    // Freed by the loop (deferDelete) with the size it was allocated with.
    static void operator delete(void* object) noexcept { ::operator delete(object); }

    WebSocketContext& context() const noexcept { return context_; }
    WebSocketServer& server() const noexcept;
    void* userDataStorage() noexcept;
    // The user data was constructed (it is destroyed after the close handler).
    void markUserDataConstructed() noexcept { userDataConstructed_ = true; }
    // Runs the open handler (corked with the 101 response), then lets the handshake's cork go.
    void open();

    // The implementation of AnyWebSocket's methods.
    SendStatus sendMessage(std::string_view message, OpCode opCode, bool compress);
    SendStatus sendFragment(std::string_view fragment, OpCode opCode, bool first, bool last);
    SendStatus sendPing(std::string_view message);
    void end(int code, std::string_view reason);
    void closeNow() { Socket::close(); }
    bool subscribe(std::string_view topic);
    bool unsubscribe(std::string_view topic);
    bool beginCork();
    void endCork(bool corkedHere);
    // Valid until the next call on this thread.
    std::string_view remoteAddressText() const noexcept;
    bool closedForApplication() const noexcept { return closeHandlerRan_; }

    // Writes a frame formatted by the WebSocketServer's publish: the drain of the topic tree. Checks
    // maxBackpressure like send() (payload and opCode describe the message for `dropped`); false when dropped.
    bool deliverPublished(std::string_view frames, std::string_view payload, OpCode opCode);
    // Whether a frame compressed without context, with kPublishWindowBits, suits this connection.
    bool takesSharedCompressedFrames() const noexcept;

    // FrameParser's visitor.
    bool onFrame(const ws::FrameHeader& header);
    bool onPayload(std::string_view payload, bool endsFrame);

private:
    WebSocketConnection(Socket& predecessor, WebSocketContext& context, const ws::DeflateAgreement& agreement);

    void onData(char* data, std::size_t length) override;
    void onWritable() override;
    void onEnd() override;
    void onTimeout() override;
    void onClose() override;

    bool handleControl(std::string_view payload);
    // Runs the subscription handler for a change that happened (when the route has one); returns whether it did.
    bool reportSubscription(std::string_view topic, TopicTree<WebSocketConnection>::Change change);
    bool deliverMessage(std::string_view message);
    // Fails the connection (RFC 6455 section 7.1.7): a close frame with code, the close handler, and the end.
    void fail(std::uint16_t code, std::string_view reason);
    // Runs the close handler once, then forgets topics and user data.
    void runCloseHandler(int code, std::string_view reason);
    // Writes one frame; compressed payloads carry RSV1.
    void writeFrame(ws::Opcode opcode, std::string_view payload, bool fin, bool compressed);
    // maxBackpressure: false (and `dropped`, and maybe a close) when the message must be dropped.
    bool admit(std::string_view message, OpCode opCode);
    SendStatus statusAfterWrite() const noexcept;
    void restartIdleTimeout() noexcept;
    void armDeadline() noexcept;
    ws::Deflater* deflater();
    ws::Inflater* inflater();

    // What only a connection that needs it has, allocated at first use and kept (an idle connection has none).
    struct Extras {
        ByteBuffer message;  // the message being gathered (compressed bytes, for a compressed one)
        ByteBuffer control;  // a control frame's payload split across reads
        std::unique_ptr<ws::Deflater> deflater;
        std::unique_ptr<ws::Inflater> inflater;
    };
    Extras& extras();
    bool gatheringMessage() const noexcept { return extras_ != nullptr && !extras_->message.empty(); }

    // Ordered for size: one lives in every open WebSocket.
    WebSocketContext& context_;
    std::unique_ptr<Extras> extras_;
    ws::FrameParser parser_;
    std::uint64_t idleDeadlineMs_ = 0;
    std::uint64_t lifetimeDeadlineMs_ = 0;
    std::uint64_t closingDeadlineMs_ = 0;
    std::uint32_t fragments_ = 0;  // frames of the data message in progress
    Utf8Validator utf8_;
    ws::Opcode frameOpcode_ = ws::Opcode::Continuation;  // the opcode of the frame being read
    ws::DeflateAgreement agreement_;
    bool frameFin_ = false;           // the data frame being read is its message's last
    bool wholeMessageFrame_ = false;  // the frame being read is a whole message: deliverable in place
    bool closeSent_ = false;
    bool closeHandlerRan_ = false;
    bool pingOutstanding_ = false;  // an automatic ping went out since the peer last sent anything
    bool sendingFragments_ = false;
    bool userDataConstructed_ = false;
};

}  // namespace loopwire
