// HttpConnection: one HTTP/1.1 connection: the request parser, the body reader, and the response in progress.
//
// It is the Socket the listener accepted and, at the same time, the HttpResponse handed to handlers (one
// response at a time per connection, so the response needs no object of its own). Created by HttpServer at
// accept; freed by the loop after it closes.
//
// Requests are handled one at a time in order: while a response is pending, later pipelined bytes stay in
// `pending_` (and reading pauses once that holds a full head's worth), and processing resumes when the response
// completes. Likewise while the peer leaves more than limits::kMaxOutputBacklogBytes of responses unread: no
// further request is parsed and reading pauses until that backlog has drained. So one connection holds at most
// one read of input and one response past the backlog limit, whatever the peer sends. Everything written while
// the connection processes one read is corked and leaves in one syscall.
#pragma once

#include "ChunkedDecoder.h"
#include "HttpParser.h"
#include "ResponseCoder.h"
#include "ResponseHead.h"
#include "base/Limits.h"
#include "net/Socket.h"

#include <loopwire/HttpResponse.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace loopwire {

class HttpServer;

class HttpConnection final : public Socket, public HttpResponse {
public:
    HttpConnection(HttpServer& server, int fd, const SocketAddress& remote) noexcept;
    ~HttpConnection() override;

    // Inside the connection, these names mean the socket's operations, not the response API.
    using Socket::canSendFile;
    using Socket::close;
    using Socket::cork;
    using Socket::write;

    // The implementation of HttpResponse's methods (HttpResponse.cpp forwards here).
    // Return false when the argument is refused (nothing written, refusedWrite() set); true otherwise, also when
    // the call comes too late to write anything.
    bool writeStatusLine(std::string_view status);
    bool writeHeaderField(std::string_view key, std::string_view value);
    bool writeChunk(std::string_view chunk);
    void endResponse(std::string_view body, bool closeConnection);
    void endWithoutBody(std::optional<std::uint64_t> reportedLength, bool closeConnection);
    std::pair<bool, bool> tryEnd(std::string_view data, std::uint64_t totalSize, bool closeConnection);
    // canSendFile() must be true.
    std::pair<bool, bool> tryEndFromFile(int fd, std::uint64_t fileOffset, std::uint64_t count, std::uint64_t totalSize,
                                         bool closeConnection);
    void closeNow();
    // App::close(options): an idle connection closes now; one with a request in progress closes after its response,
    // which says Connection: close when its head has not gone out yet.
    void drain() noexcept;
    void pauseRequest();
    void resumeRequest();
    bool beginCork();
    // Ends the cork of a response call (HttpResponse); may arm the write timeout (see the .cpp).
    void endCork(bool corkedHere);
    // For writeStatus/writeHeader: corks when nothing is corked, and leaves it to the completing call.
    void corkForHeaders();

    // For a protocol upgrade (the WebSocket layer): whether the response can still switch protocols (pending, no
    // request body being read, nothing written but a 101 status line and header fields, which the 101 answer
    // then carries: engine.io and crossws write them before upgrading, as uWebSockets allows).
    bool canSwitchProtocols() const noexcept {
        return http11Pending() && (!head_.statusWritten() || head_.switchingProtocols()) && !head_.ended() &&
               !isClosed() && phase_ == Phase::Head;
    }
    bool hasWrittenStatus() const noexcept { return head_.statusWritten(); }
    // Whether the request being answered is a HEAD (its answer carries no body).
    bool answersHead() const noexcept { return head_.answersHead(); }
    HttpServer& server() const noexcept { return server_; }
    bool isHttp10() const noexcept { return http10_; }
    // Ends the HTTP life of a connection whose socket successor has taken over (Socket's takeover constructor),
    // after its 101 response: the bytes received after the request head go to successor, at once or, inside
    // process(), once the head's handler has returned.
    void handOver(Socket& successor) noexcept;
    // Whether data (a head the parser refused for its version) begins with HTTP/2's preface where the server speaks
    // HTTP/2.
    bool startsHttp2(const char* data, std::size_t length) const noexcept;

    std::uint64_t writeOffset() const noexcept { return writeOffset_; }
    bool responseComplete() const noexcept { return !http11Pending() || isClosed(); }
    bool refusedWrite() const noexcept { return head_.refusedWrite(); }
    std::string_view remoteAddressText() noexcept;
    // App::compress's state for the response in progress.
    ResponseCoding& coding() noexcept { return coding_; }

    AbortedHandler onAborted_;
    DataHandler onData_;
    DataV2Handler onDataV2_;
    WritableHandler onWritable_;
    // Set by HttpResponse's setters when they store one of the four: only then are they released.
    bool callbacksHeld_ = false;

private:
    friend class HttpServer;

    enum class Phase : std::uint8_t {
        Head,     // waiting for (the rest of) a request head
        Body,     // reading a request body
        Closing,  // the last response is out; draining until the peer closes or the linger deadline
    };

    void onTransportReady() override;
    void onData(char* data, std::size_t length) override;
    void onWritable() override;
    void onDrainProgress() override;
    void onEnd() override;
    void onTimeout() override;
    void onClose() override;

    // Parses and handles requests in [data, data+length); returns the bytes consumed.
    std::size_t process(char* data, std::size_t length);
    void processPending();
    // Ends a cork begun by the connection's own callbacks, which arm their deadline themselves.
    void uncorkIfCorkedHere(bool corkedHere);
    // Pauses or resumes reading from the socket, by the one rule for it (see the .cpp).
    void updateReading() noexcept;
    void setReading(bool reading) noexcept;
    bool outputBacklogged() const noexcept { return bufferedBytes() > limits::kMaxOutputBacklogBytes; }
    void beginRequest(RequestHead& head, bool hasBody);
    // Returns bytes consumed from the body in [data, data+length).
    std::size_t readBody(char* data, std::size_t length);
    void deliverBody(std::string_view chunk, bool isLast, std::uint64_t remaining);
    void finishResponse(bool closeConnection);
    // After a response completed: handles pipelined requests already received, or finishes a half-closed peer.
    void continueAfterResponse();
    void refuse(HttpError error);
    void answerUnhandled(std::string_view cannedResponse);
    void startLingeringClose();
    // The fields every head ends with (Date, Connection, Transfer-Encoding for a chunked body) and the blank line.
    void writeHeadEnd(ResponseHead::Framing framing);
    // A body of known length (tryEnd, tryEndFromFile): its head, once; then what the socket took of wanted bytes.
    void beginSizedBody(std::uint64_t totalSize, bool closeConnection);
    std::pair<bool, bool> sizedBodyProgress(std::size_t taken, std::size_t wanted, std::uint64_t totalSize,
                                            bool closeConnection);
    void writeContentLength(std::uint64_t length);
    void ensureStatus();
    // A chunked (or, for HTTP/1.0, close-delimited) body's head, once.
    void beginChunkedBody();
    // bytes as one chunk of the body (as they are on HTTP/1.0), without counting them in writeOffset_. Returns
    // whether the socket took everything so far.
    bool writeChunkFraming(std::string_view bytes);

    // App::compress (coding_.matched(): a rule matched the request's path). The handler's fields as they are
    // written: false when the field was written here (a strong ETag made weak).
    bool noteFieldForCoding(std::string_view key, std::string_view value);
    // Whether a body of bodyBytes (UINT64_MAX: unknown) may go out coded, by the head written so far.
    bool codable(std::uint64_t bodyBytes) const noexcept;
    // Ends the head's part that depends on the coding: Vary for a compressible type, Content-Encoding when coded.
    // From then on coding_ is cleared unless a stream codes the body (codingStream_).
    void writeCodingFields(bool coded);
    void endCoded(std::string_view body, bool closeConnection);
    bool writeCodedChunk(std::string_view chunk);
    std::pair<bool, bool> tryEndCoded(std::string_view data, std::uint64_t totalSize, bool closeConnection);
    // Starts the coded stream of a body whose head is not ended; false when it cannot (the body goes out plain).
    bool beginCodedStream(std::uint64_t bodyBytes);
    // The stream's last bytes (input and the trailer) and the end of the chunked body; false when the coder failed
    // (the connection is closed then).
    bool finishCodedStream(std::string_view input);
    void releaseCodingStream() noexcept;
    void armDeadline() noexcept;
    // The same, never inlined: for rare paths inside hot functions.
    void armDeadlineOutOfLine() noexcept;
    void armWriteDeadline() noexcept;
    // Frees the per-request callbacks once the response is over and none of them is running. Most handlers answer
    // without a callback: they pay this one test, inline.
    void releaseCallbacksIfDone() noexcept {
        if (callbacksHeld_ && callbackDepth_ == 0 && (!http11Pending() || isClosed())) releaseCallbacks();
    }
    void releaseCallbacks() noexcept;

    HttpServer& server_;
    HttpParser parser_;
    ChunkedDecoder chunked_;
    ByteBuffer pending_;

    std::uint64_t bodyRemaining_ = 0;
    std::uint64_t writeOffset_ = 0;
    std::uint64_t headDeadlineMs_ = 0;
    std::uint64_t bodyDeadlineMs_ = 0;
    std::uint64_t writeDeadlineMs_ = 0;  // while output waits for the peer; moved on progress only
    std::uint32_t callbackDepth_ = 0;    // our callbacks running right now (they must not be destroyed)
    ResponseHead head_;                  // the response in progress: begun for each request
    Phase phase_ = Phase::Head;

    bool processing_ = false;  // inside process(): completions must not re-enter it
    bool chunkedBody_ = false;
    bool keepAlive_ = true;
    bool paused_ = false;
    bool closeAfterResponse_ = false;
    bool http10_ = false;
    bool autoCorked_ = false;               // corked by a write outside any callback; the completing call uncorks
    ResponseCoding coding_;                 // App::compress: filled by HttpServer::dispatch, reset for each request
    CodingStream* codingStream_ = nullptr;  // the compressor of a body coded as it is written
    char addressText_[SocketAddress::kMaxTextLength] = {};
    bool queuedToResume_ = false;
    HttpConnection* nextToResume_ = nullptr;  // HttpServer's queue of connections to resume
    Socket* successor_ = nullptr;             // the socket that took over from inside process()
};

}  // namespace loopwire
