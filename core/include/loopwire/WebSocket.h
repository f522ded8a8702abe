// WebSocket<UserData>: one open WebSocket connection, with the API of uWebSockets v20's WebSocket.
//
// Who calls it: the handlers of a WebSocketBehavior receive it, from `open` to `close`. It stays valid until its
// close handler has returned; using it after that is a programmer error (the Node addon turns it into an
// exception). Loop thread only.
//
// Sending: send() frames the message and writes it at once, or into the cork buffer while the connection is
// corked. Every handler runs corked, so what a handler sends (to this socket) leaves in one write when it
// returns; outside handlers, cork(f) does the same for f. A message is dropped, not buffered, when the socket's
// unsent bytes already exceed maxBackpressure: send() returns SendStatus::Dropped and the `dropped` handler
// runs (then, with closeOnBackpressureLimit, the connection is closed). SendStatus::Backpressure means the
// message was taken but waits in the socket's buffer: wait for `drain` before sending much more.
//
// Closing: end(code, reason) sends a close frame, runs the close handler at once with that code and reason, and
// then waits a short while for the peer's close frame before closing the connection; close() closes at once
// (the close handler gets 1006). When the peer closes, fails the protocol or goes away, the close handler runs
// once, with the peer's code and reason (1005 for a close frame without a code), the code loopwire sent for a
// protocol violation (1002, 1007, 1009), or 1006 when the connection just ended.
//
// Pub/sub: subscribe() and the others manage the socket's topics in its App's topic tree; publish() sends to
// every subscriber of a topic but this socket. Published messages are delivered after the current batch of
// callbacks, all the messages of a batch for one subscriber in one write, and never after a later direct send
// to that subscriber (a direct send first delivers what was published before it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

namespace loopwire {

class SharedBlock;

// The opcodes of RFC 6455 section 5.2 that an application sees or sends.
enum class OpCode : std::uint8_t {
    Continuation = 0x0,
    Text = 0x1,
    Binary = 0x2,
    Close = 0x8,
    Ping = 0x9,
    Pong = 0xA,
};

// What send() did with a message; the values are uWebSockets'.
enum class SendStatus : std::uint8_t {
    Backpressure = 0,  // taken, but (part of it) waits in the socket's buffer
    Success = 1,       // taken and handed to the kernel (or the cork buffer)
    Dropped = 2,       // not sent: the socket is closed, or its buffer is over maxBackpressure
};

// A WebSocket without its user data's type: what the typed WebSocket<UserData> is, and what bindings use.
class AnyWebSocket {
public:
    // Sends one message (a final frame). compress: permessage-deflate it, when the client agreed to compression
    // and the behaviour has a compressor; otherwise it is sent as it is.
    SendStatus send(std::string_view message, OpCode opCode = OpCode::Binary, bool compress = false);
    // A message in fragments: the first frame carries the opcode, the last one FIN. Fragments are never
    // compressed, and nothing else (but control frames) may be sent between the first and the last: send() then,
    // a second sendFirstFragment(), or a sendFragment()/sendLastFragment() without a first one are refused
    // (SendStatus::Dropped, nothing written), since the peer would have to fail the connection. Messages published
    // to the socket meanwhile wait, and follow the last fragment.
    SendStatus sendFirstFragment(std::string_view fragment, OpCode opCode = OpCode::Binary, bool compress = false);
    SendStatus sendFragment(std::string_view fragment, bool compress = false);
    SendStatus sendLastFragment(std::string_view fragment, bool compress = false);
    // True between sendFirstFragment() and sendLastFragment().
    bool isSendingFragments() const noexcept;
    // A ping (at most 125 bytes; longer is cut).
    SendStatus ping(std::string_view message = {});

    // Sends a close frame with code (0: none) and reason (cut to 123 bytes on a character boundary), runs the close
    // handler with them, and closes the connection once the peer answered (or after a short timeout). A code no
    // endpoint may put on the wire (1005, 1006, 1015, and anything outside 1000-1003, 1007-1014 and 3000-4999) is
    // left out of the frame, which the peer then reads as 1005; the close handler still gets the code as given.
    void end(int code = 0, std::string_view reason = {});
    // Closes the connection at once, without a close frame; the close handler gets 1006.
    void close();

    // Subscribes to topic; false when already subscribed (or closed). The `subscription` handler runs when the
    // subscription changed.
    bool subscribe(std::string_view topic);
    bool unsubscribe(std::string_view topic);
    bool isSubscribed(std::string_view topic) const;
    // Calls f(std::string_view topic) for each topic, in subscription order.
    template <typename F>
    void forEachTopic(F&& f) const {
        visitTopics(
            [](void* context, std::string_view topic) { (*static_cast<std::remove_reference_t<F>*>(context))(topic); },
            &f);
    }
    // Sends message to every subscriber of topic except this socket. Returns whether anybody else subscribes to
    // topic (the message will be delivered).
    bool publish(std::string_view topic, std::string_view message, OpCode opCode = OpCode::Binary,
                 bool compress = false);

    // Runs f with the connection corked: what it sends leaves in one write.
    template <typename F>
    AnyWebSocket* cork(F&& f) {
        bool corkedHere = beginCork();
        std::forward<F>(f)();
        endCork(corkedHere);
        return this;
    }

    // Bytes sent but not yet taken by the kernel: the frames as written (over TLS their plaintext, not the records'
    // bytes), which is also what maxBackpressure is compared with.
    std::size_t getBufferedAmount() const noexcept;
    // The peer's address in binary (4 or 16 bytes; empty for a Unix socket), as text, and its port.
    std::string_view getRemoteAddress() const noexcept;
    std::string_view getRemoteAddressAsText() const noexcept;
    std::uint16_t getRemotePort() const noexcept;
    // The client the connection's PROXY protocol header named (see HttpResponse::getProxiedRemoteAddress).
    std::string_view getProxiedRemoteAddress() const noexcept;
    std::string_view getProxiedRemoteAddressAsText() const noexcept;
    std::uint16_t getProxiedRemotePort() const noexcept;

    // True from the moment the close handler has run (after end(), close(), or the peer's leaving).
    bool isClosed() const noexcept;

    // The user data given to HttpResponse::upgrade, stored inline in the connection.
    void* userData() noexcept;

    // For bindings that lend a message beyond its handler's call (the Node addon): the block that holds bytes
    // (a message delivered in place from the loop's receive buffer), to retain while lent; null when they lie in
    // a buffer the connection reuses (copy them then). See HttpResponse::blockHolding.
    SharedBlock* blockHolding(std::string_view bytes) const noexcept;

protected:
    AnyWebSocket() = default;
    ~AnyWebSocket() = default;

private:
    void visitTopics(void (*visit)(void* context, std::string_view topic), void* context) const;
    bool beginCork();
    void endCork(bool corkedHere);
};

template <typename UserData>
class WebSocket final : public AnyWebSocket {
public:
    UserData* getUserData() noexcept { return static_cast<UserData*>(userData()); }

private:
    WebSocket() = delete;
    ~WebSocket() = delete;
};

}  // namespace loopwire
