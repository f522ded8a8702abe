// HttpResponse: the response to one HTTP request, with the API of uWebSockets v20's HttpResponse.
//
// Who calls it: a route handler receives it; it stays valid until the response is complete (end(),
// endWithoutBody(), a tryEnd() that returned done, or close()) or aborted (the peer went away: the onAborted
// callback runs). Using it after that is a programmer error. A handler that returns without completing the
// response must register onAborted(), or the request is answered with 500 and a warning is printed; after the
// abort callback has run the pointer must not be used again.
//
// Writing: writeStatus() (optional, "200 OK" is the default) comes first, then writeHeader()s, then the body by
// end(), write() (chunked), or tryEnd() (Content-Length known up front, for streaming with backpressure).
// Every method corks the connection if it is not corked, so a response made of several calls leaves in one
// syscall: inside a handler, onData, onWritable or cork() the whole callback is one batch; outside them the batch
// ends with the call that completes or streams the body. The Date header is added to every response.
//
// Response splitting is impossible through this API: writeStatus() and writeHeader() refuse CR, LF and NUL (and a
// header name that is not a token); a refused call writes nothing and sets refusedWrite().
//
// Fields loopwire also writes: a Connection field written by the handler replaces the one loopwire would add
// (and `close` in it closes the connection after the response). A Content-Length written by the handler is held
// back and sent once, by the call that ends the head: it is the length of the answer to HEAD (end() with no
// body, endWithoutBody() with no length); otherwise the body's own length wins, and a different declared value
// (or one that is not a number) is refused (refusedWrite()); a chunked body (write()) drops it.
//
// Callbacks (onAborted, onData, onDataV2, onWritable) are stored inline in the connection (no allocation); each
// setter replaces the previous callback. Threading: loop thread only.
#pragma once

#include <loopwire/InlineFunction.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace loopwire {

class SharedBlock;
class AnyWebSocket;
struct SendFileOptions;
class WebSocketContext;

// Inline capacity of each per-request callback.
inline constexpr std::size_t kCallbackCapacity = 32;

class HttpResponse {
public:
    using AbortedHandler = InlineFunction<void(), kCallbackCapacity>;
    // chunk: body bytes, valid during the call only; isLast: true for the final (possibly empty) call.
    using DataHandler = InlineFunction<void(std::string_view chunk, bool isLast), kCallbackCapacity>;
    // maxRemainingBodyLength: 0 on the final call; for a chunked body, an upper bound (the bytes left in the
    // current chunk plus one), never 0 before the end.
    using DataV2Handler =
        InlineFunction<void(std::string_view chunk, std::uint64_t maxRemainingBodyLength), kCallbackCapacity>;
    // offset: getWriteOffset() now. Return true when done or when the handler wrote what it could; false to
    // be called again at the next writable event.
    using WritableHandler = InlineFunction<bool(std::uint64_t offset), kCallbackCapacity>;

    // "200 OK", "404 Not Found", ... At most once, before any header; later calls are ignored, as is a header after
    // the body began, and the first of each prints a warning on stderr (they change what the client gets).
    HttpResponse* writeStatus(std::string_view status);
    HttpResponse* writeHeader(std::string_view key, std::string_view value);
    HttpResponse* writeHeader(std::string_view key, std::uint64_t value);
    // The same, saying whether the argument was accepted: false when it was refused (nothing is written), for
    // callers that report the refusal themselves (the Node addon throws). The check comes before any other, so
    // a malformed argument is refused even when the call comes too late to write anything.
    bool writeStatusIfValid(std::string_view status);
    bool writeHeaderIfValid(std::string_view key, std::string_view value);

    // Sends a chunk of a chunked body (Transfer-Encoding: chunked). Returns false when the bytes had to be
    // buffered (backpressure): wait for onWritable before writing much more.
    bool write(std::string_view chunk);
    // Completes the response: the body with Content-Length, or the last chunk after write(). closeConnection
    // closes the connection gracefully once the response is sent.
    void end(std::string_view body = {}, bool closeConnection = false);
    // Completes the response without a body, for HEAD and 304: Content-Length is reportedContentLength when
    // given; otherwise 0, except in the answer to HEAD, which then has none.
    void endWithoutBody(std::optional<std::uint64_t> reportedContentLength = std::nullopt,
                        bool closeConnection = false);
    // Sends as much of data as the connection takes now, for a body of totalSize bytes (Content-Length). Returns
    // {ok, done}: ok when all of data was taken, done when the whole body has been sent. When !ok, resend the
    // rest from onWritable(offset) (it starts at offset - the offset before this call). Bytes past totalSize are
    // never sent (they would be read as the next response): data is cut there. A stream that waits for
    // onWritable longer than ServerOptions::writeTimeoutMs (the peer stopped reading) is aborted.
    std::pair<bool, bool> tryEnd(std::string_view data, std::uint64_t totalSize, bool closeConnection = false);
    // tryEnd() for count bytes of the open file fd from fileOffset, sent by the kernel from the page cache with no
    // copy through user space (sendfile(2)) where the connection allows it: plain TCP. Returns nullopt, having
    // written nothing, where it does not (TLS): read the bytes and call tryEnd() then. Otherwise {ok, done} as
    // tryEnd(): when !ok, call again from onWritable(offset) with what is left. fd stays the caller's; a file shorter
    // than fileOffset + count sends fewer bytes (ok is false, and the caller should end the response).
    std::optional<std::pair<bool, bool>> tryEndFromFile(int fd, std::uint64_t fileOffset, std::uint64_t count,
                                                        std::uint64_t totalSize, bool closeConnection = false);
    // Answers with the file at path, as a static mount (App::serveStatic) answers with one of its files: Content-Type
    // from the extension, ETag and Last-Modified, the request's conditions (304, 412), Range (206, multipart, 416),
    // a precompressed or compressed variant the request accepts, and the body from memory, by sendfile(2) or read as
    // the socket drains. No file there (or a folder, a dotfile under DotfilePolicy::Deny, a ".." segment): 404.
    // The request's fields are read when it is called while the request's handler runs; called later (after
    // onAborted, from another callback), the request is gone: it answers as to a request without them (200, the
    // whole file, not compressed), unless options.requestHeaders carries copies. The status is sendFile's to choose:
    // fields of the caller's own go in options.headers, and a status written before (by writeStatus, or by
    // writeHeader, which writes 200) makes it refuse. The response is complete, or streaming on its own, when it
    // returns true; onAborted still runs if the peer goes away before the end, and the response must not be used
    // again either way. Returns false, having written nothing, when path is relative without options.root, a status
    // was written, or the options cannot be used (error says why: a root that is not a folder, a bad media type, too
    // many different options). Allocates only on the first call with given options.
    bool sendFile(std::string_view path);
    bool sendFile(std::string_view path, const SendFileOptions& options, std::string* error = nullptr);
    // Body bytes sent (or taken for sending) so far.
    std::uint64_t getWriteOffset() const noexcept;

    HttpResponse* onWritable(WritableHandler handler);
    // Runs at most once, when the connection closes while this response is not complete.
    HttpResponse* onAborted(AbortedHandler handler);
    HttpResponse* onData(DataHandler handler);
    HttpResponse* onDataV2(DataV2Handler handler);

    // Closes the connection at once (no graceful close); the onAborted callback runs if the response is not
    // complete.
    void close();

    // Runs f with the connection corked: everything it writes, to this response or others, leaves together.
    template <typename F>
    HttpResponse* cork(F&& f) {
        bool corkedHere = beginCork();
        std::forward<F>(f)();
        endCork(corkedHere);
        return this;
    }

    // Switches the connection to a WebSocket of context's route (the context its upgrade handler received),
    // answering 101 Switching Protocols: key is the request's Sec-WebSocket-Key, protocol the subprotocol chosen
    // (a list is cut at its first comma; empty for none), extensions the request's Sec-WebSocket-Extensions (the
    // compression agreement is made from it and the route's settings). userData is moved into the connection
    // (WebSocket<UserData>::getUserData); UserData must be the route's. Call it from the upgrade handler, or later
    // after having set onAborted (the strings must then be copies: the request is gone). The open handler runs
    // before it returns; this response is then finished and must not be used again. A response that can no longer
    // switch (see canUpgrade) gets nothing; an invalid key gets a 400.
    template <typename UserData>
    void upgrade(UserData&& userData, std::string_view key, std::string_view protocol, std::string_view extensions,
                 WebSocketContext* context) {
        using Stored = std::remove_cvref_t<UserData>;
        upgradeWith(
            key, protocol, extensions, context,
            [](void* storage, void* source) { new (storage) Stored(std::move(*static_cast<Stored*>(source))); },
            const_cast<Stored*>(&userData));
    }
    // Whether upgrade() can still switch this response: it is neither complete nor aborted, no request body is
    // being read, and nothing has been written but writeStatus("101 Switching Protocols") and header fields
    // (which the 101 answer then carries).
    bool canUpgrade() const noexcept;
    // The same without a type, for bindings: construct(storage, argument) places the user data. Returns the
    // socket (open already ran; null when it was closed meanwhile or the upgrade was refused).
    AnyWebSocket* upgradeWith(std::string_view key, std::string_view protocol, std::string_view extensions,
                              WebSocketContext* context, void (*construct)(void* storage, void* argument),
                              void* argument);

    // Stops reading the request (body) and its timeouts; resume() starts again.
    void pause();
    void resume();

    // The peer's address in binary (4 or 16 bytes, empty for a Unix socket), as text, and its port.
    std::string_view getRemoteAddress() const noexcept;
    std::string_view getRemoteAddressAsText() const noexcept;
    std::uint16_t getRemotePort() const noexcept;
    // The client a PROXY protocol header named (ServerOptions::proxyProtocol), the same three ways; empty (and
    // port 0) when the connection came without one, or with one that named no client (LOCAL, UNKNOWN, a Unix
    // socket). The text is valid until the next call of a text method on this thread.
    std::string_view getProxiedRemoteAddress() const noexcept;
    std::string_view getProxiedRemoteAddressAsText() const noexcept;
    std::uint16_t getProxiedRemotePort() const noexcept;
    // TLS (SSLApp): the certificate the client presented, PEM; empty when it sent none or the connection is plain
    // TCP. Allocates.
    std::string getX509Certificate() const;
    // TLS: the server name the client asked for (SNI), or empty.
    std::string_view getServerName() const noexcept;

    // For bindings that lend a body chunk beyond its onData/onDataV2 call (the Node addon): the block that holds
    // chunk, when it lies in memory that outlives the connection (the loop's receive buffer); retain it for as
    // long as the chunk is lent. Null when the chunk lies in the connection's own buffer of pipelined bytes,
    // which it frees or reuses: copy the chunk then. chunk must be the one given to the running call.
    SharedBlock* blockHolding(std::string_view chunk) const noexcept;

    // True once the response is complete (or the connection is gone).
    bool hasResponded() const noexcept;
    // True when a writeStatus/writeHeader argument was refused (CR, LF, NUL, or a bad header name).
    bool refusedWrite() const noexcept;

    // What writeHeader() accepts, to tell which argument a refusal was about: a header name is a token
    // (RFC 9110); a header value (or a status line) holds no CR, LF or NUL.
    static bool isValidHeaderName(std::string_view name) noexcept;
    static bool isValidHeaderValue(std::string_view value) noexcept;

    // Internal: whether this is an HTTP/2 stream's response rather than an HTTP/1.1 connection's.
    bool isStream() const noexcept { return (state_ & kStream) != 0; }

protected:
    HttpResponse() = default;
    ~HttpResponse() = default;

    // One byte that says what kind of response this is and, for an HTTP/1.1 connection, whether a response is in
    // progress: the methods most calls make (the callback setters) then tell the common case by one compare.
    static constexpr std::uint8_t kStream = 1;         // an HTTP/2 stream (ResponseStream); never changes
    static constexpr std::uint8_t kHttp11Pending = 2;  // an HTTP/1.1 connection with a response in progress
    void markAsStream() noexcept { state_ = kStream; }
    bool http11Pending() const noexcept { return state_ == kHttp11Pending; }
    // HTTP/1.1 only: a plain store, the stream bit being 0 there.
    void setHttp11Pending(bool pending) noexcept { state_ = pending ? kHttp11Pending : 0; }

private:
    bool beginCork();
    void endCork(bool corkedHere);

    std::uint8_t state_ = 0;
};

}  // namespace loopwire
