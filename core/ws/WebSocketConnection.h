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
// write when it ends. What the read made the connection write counts against maxBackpressure like the
// application's messages: past it, reading stops until the peer has read (holdReadingWhileBacklogged), so a peer
// that sends and never reads costs at most the limit and one read. Steady state: no allocation per message.
// Closing: one Status (open, dropping, closing, closed), moved forward in changeStatus only, which runs the close
// handler exactly once.
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
    // True once the close handler has run (or runs now): the application sees the WebSocket closed.
    bool closedForApplication() const noexcept { return status_ >= Status::Closing; }
    // True while a fragmented message is being sent (sendFirstFragment came, sendLastFragment has not yet).
    bool isSendingFragments() const noexcept { return sendingFragments_; }

    // Writes a frame formatted by the WebSocketServer's publish: the drain of the topic tree. Checks
    // maxBackpressure like send() (payload and opCode describe the message for `dropped`); false when dropped.
    // While a fragmented message is being sent, the frame waits for its last fragment.
    bool deliverPublished(std::string_view frames, std::string_view payload, OpCode opCode);
    // For the WebSocketServer's flush: closes a connection that closeOnBackpressureLimit set dropping.
    void closeIfDropping() noexcept;
    // Whether a frame compressed without context, with kPublishWindowBits, suits this connection.
    bool takesSharedCompressedFrames() const noexcept;

    // FrameParser's visitor.
    bool onFrame(const ws::FrameHeader& header);
    bool onPayload(std::string_view payload, bool endsFrame);

private:
    // The connection's closing state: one value, changed in one place (changeStatus), always forward.
    enum class Status : std::uint8_t {
        Open,      // messages flow both ways
        Dropping,  // closeOnBackpressureLimit dropped a message: every send is dropped, nothing more is read or
                   // delivered, and the connection closes once the loop's current batch is over (as uWebSockets
                   // closes it after the handler); the application still sees it open until then
        Closing,   // our close frame is out and the close handler has run: the peer's data frames are read and
                   // dropped until its close frame comes, or the closing deadline passes
        Closed,    // the close handler has run; the socket is closed, or closes before this callback returns
    };

    WebSocketConnection(Socket& predecessor, WebSocketContext& context, const ws::DeflateAgreement& agreement);

    // Moves the status forward. The first move to Closing or Closed runs the close handler with code and reason
    // (after the subscriptions have ended); a move to Dropping stops reading and asks the server to close the
    // connection after the batch. Moving backwards, or to the same status, is a programmer error.
    void changeStatus(Status next, int code = 0, std::string_view reason = {});
    // Writes our close frame (code 0 and the codes RFC 6455 keeps off the wire give an empty one) and moves to
    // Closing, running the close handler with handlerCode and reason. From Open or Dropping only.
    void sendCloseFrame(std::uint16_t code, std::string_view reason, int handlerCode);

    void onData(char* data, std::size_t length) override;
    void onWritable() override;
    void onEnd() override;
    void onTimeout() override;
    void onClose() override;

    bool handleControl(std::string_view payload);
    // Runs the subscription handler for a change that happened (when the route has one); returns whether it did.
    bool reportSubscription(std::string_view topic, TopicTree<WebSocketConnection>::Change change);
    bool deliverMessage(std::string_view message);
    // Fails the connection (RFC 6455 section 7.1.7): a close frame with code, the close handler, and the end once
    // the peer has stopped sending (Socket::closeLingering(), within kClosingTimeoutMs).
    void fail(std::uint16_t code, std::string_view reason);
    // Runs the close handler, then forgets topics and user data (changeStatus calls it, once).
    void runCloseHandler(int code, std::string_view reason);
    // Writes one frame; compressed payloads carry RSV1.
    void writeFrame(ws::Opcode opcode, std::string_view payload, bool fin, bool compressed);
    // Whether a message the application sends may go out: the connection is open and under maxBackpressure.
    // false (and `dropped`, and with closeOnBackpressureLimit the move to Dropping) when it must be dropped.
    bool admit(std::string_view message, OpCode opCode);
    // After a read: what the peer's frames made us write (pongs, echoes) counts against the backlog as the
    // application's messages do; past it, reading stops until the peer has read (or, with
    // closeOnBackpressureLimit, the connection starts dropping).
    void holdReadingWhileBacklogged() noexcept;
    std::size_t backlogLimit() const noexcept;
    SendStatus statusAfterWrite() const noexcept;
    void restartIdleTimeout() noexcept;
    void armDeadline() noexcept;
    ws::Deflater* deflater();
    ws::Inflater* inflater();

    // What only a connection that needs it has, allocated at first use and kept (an idle connection has none).
    struct Extras {
        ByteBuffer message;  // the message being gathered (compressed bytes, for a compressed one)
        ByteBuffer control;  // a control frame's payload split across reads
        ByteBuffer held;     // published frames waiting for the end of the fragmented message being sent
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
    Status status_ = Status::Open;
    bool frameFin_ = false;           // the data frame being read is its message's last
    bool wholeMessageFrame_ = false;  // the frame being read is a whole message: deliverable in place
    bool pingOutstanding_ = false;    // an automatic ping went out since the peer last sent anything
    bool sendingFragments_ = false;   // between sendFirstFragment and sendLastFragment
    bool userDataConstructed_ = false;
};

}  // namespace loopwire
