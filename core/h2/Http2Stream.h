// Http2Stream: one request of an HTTP/2 connection and the HttpResponse that answers it (RFC 9113 section 8).
//
// Handlers see it as any HttpResponse: the same methods, the same rules (loopwire/HttpResponse.h). What differs:
// - writeStatus keeps the code and drops the reason phrase; header names go out lower-case; the connection-specific
//   fields a handler writes (Connection, Keep-Alive, Transfer-Encoding, Upgrade, Proxy-Connection) are dropped, and
//   `Connection: close`, or end(..., true), ends the connection gracefully (GOAWAY) once its streams are done.
// - The head is held until the body starts (a HEADERS frame cannot go out in pieces), and the body goes out as DATA
//   frames within the stream's and the connection's flow-control windows. end() and write() keep what the windows
//   do not take and send it as they open (write() then returns false); tryEnd() takes only what they allow, and
//   onWritable runs when they open again.
// - close() resets this stream (RST_STREAM CANCEL), not the connection; onAborted runs as on HTTP/1.1, and also when
//   the client resets the stream.
// - A response complete before the request's body has all arrived leaves the rest of the body undelivered: the
//   stream takes it (checked against its content-length and the windows) until its window is spent, then tells the
//   client to stop (RST_STREAM NO_ERROR, RFC 9113 section 8.1).
// - No sendfile(2) (tryEndFromFile returns nullopt), no upgrade to a WebSocket.
// - App::compress codes bodies as on HTTP/1.1 (the same rules, fields and flushes); a body of unknown length is
//   simply DATA frames, not chunks.
//
// Owned by its Http2Connection, which reuses it for later streams once the response is over (complete or aborted)
// and every frame of it has been written: nothing is allocated per request once the connection is warm.
#pragma once

#include "FrameHeader.h"
#include "base/ByteBuffer.h"
#include "http/ResponseCoder.h"
#include "http/ResponseStream.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

namespace loopwire::h2 {

class Http2Connection;

class Http2Stream final : public ResponseStream {
public:
    explicit Http2Stream(Http2Connection& connection) noexcept : connection_(connection) {}
    Http2Stream(const Http2Stream&) = delete;
    Http2Stream& operator=(const Http2Stream&) = delete;
    ~Http2Stream() = default;

    // A new request on this object: the stream's id, whether the request ends with its head (END_STREAM on its
    // HEADERS), whether it is a HEAD, the send window the client's settings give a stream.
    void begin(std::uint32_t id, bool requestEnded, bool answersHead, std::int64_t sendWindow) noexcept;

    std::uint32_t id() const noexcept { return id_; }

    // ResponseStream
    bool writeStatusLine(std::string_view status) override;
    bool writeHeaderField(std::string_view key, std::string_view value) override;
    bool writeChunk(std::string_view chunk) override;
    void endResponse(std::string_view body, bool closeConnection) override;
    void endWithoutBody(std::optional<std::uint64_t> reportedLength, bool closeConnection) override;
    std::pair<bool, bool> tryEnd(std::string_view data, std::uint64_t totalSize, bool closeConnection) override;
    std::uint64_t writeOffset() const noexcept override { return writeOffset_; }
    void closeNow() override;
    void pauseRequest() override;
    void resumeRequest() override;
    bool responseComplete() const noexcept override { return complete_ || aborted_; }
    bool refusedWrite() const noexcept override { return refused_; }
    bool hasWrittenStatus() const noexcept override { return status_ != 0; }
    bool answersHead() const noexcept override { return answersHead_; }
    Socket& socket() const noexcept override;
    HttpServer& server() const noexcept override;
    ResponseCoding* coding() noexcept override { return &coding_; }

    // For the connection.
    // The request's body: a DATA frame's payload (the last when ended), delivered or kept while paused.
    void receiveBody(std::string_view chunk, bool ended);
    // The request ended without a body to deliver (END_STREAM on its HEADERS, or on trailers).
    bool requestEnded() const noexcept { return requestEnded_; }
    // The client reset the stream, or the connection is going away: onAborted runs if the response is not complete.
    void abort();
    // The windows opened or the socket drained: sends what waits, then calls onWritable if it asked.
    void resumeOutput();
    // Whether every frame of the response has been written (END_STREAM included) and no callback of it runs.
    bool finished() const noexcept { return complete_ && output_.empty() && endStreamSent_ && callbackDepth_ == 0; }
    bool waitsForOutput() const noexcept { return !output_.empty() || wantsWritable_; }
    std::int64_t& sendWindow() noexcept { return sendWindow_; }
    std::int64_t sendWindowLeft() const noexcept { return sendWindow_; }
    // Bytes of the request's body received since the stream's window was last opened again.
    std::int64_t& receiveConsumed() noexcept { return receiveConsumed_; }
    std::int64_t& receiveWindow() noexcept { return receiveWindow_; }
    // The request's declared content-length, checked against its DATA (RFC 9113 section 8.1.1).
    void expectBodyLength(std::optional<std::uint64_t> length) noexcept { expectedLength_ = length; }
    // Counts body bytes received; false when they exceed the declared length, or end short of it.
    bool countBody(std::size_t bytes, bool ended) noexcept;
    bool isAborted() const noexcept { return aborted_; }
    // Frees what the request's callbacks hold, before the object waits for reuse.
    void release() noexcept;

private:
    // Writes the HEADERS frame: the status, the handler's fields, content-length when known, the date.
    void endHead(std::optional<std::uint64_t> contentLength, bool endStream);
    // Sends as much of data as the windows allow now; the rest is for the caller. END_STREAM goes with the last
    // byte when ends is set and all of data went.
    std::size_t sendNow(std::string_view data, bool ends);
    // The response is complete from the handler's side: the stream ends once its frames are out.
    void complete(bool closeConnection);
    void ensureStatus();
    // The content-length the head announces: length, or none for a status whose response has no content (the status
    // made 200 when the handler wrote none).
    std::optional<std::uint64_t> announcedLength(std::optional<std::uint64_t> length);
    // A field into the head block as it is, checks and App::compress passed.
    void appendField(std::string_view key, std::string_view value, std::string_view valuePrefix = {});
    // Body bytes after the head: sent as the windows allow, the rest kept for them. Returns write()'s answer.
    bool sendBody(std::string_view bytes);
    // The body's last bytes, END_STREAM after them, and the response complete.
    void finishBody(std::string_view bytes, bool closeConnection);

    // App::compress (coding_.matched(): a rule matched the request's path), as HttpConnection does it: the handler's
    // fields are read as written, the call that ends the head decides, and a body given in pieces goes through one
    // compressor. writeOffset_ counts the handler's plain bytes.
    bool noteFieldForCoding(std::string_view key, std::string_view value);
    bool codable(std::uint64_t bodyBytes) const noexcept;
    void writeCodingFields(bool coded);
    void endCoded(std::string_view body, bool closeConnection);
    bool beginCodedStream(std::uint64_t bodyBytes);
    bool writeCodedChunk(std::string_view chunk);
    std::pair<bool, bool> tryEndCoded(std::string_view data, std::uint64_t totalSize, bool closeConnection);
    void releaseCodingStream() noexcept;

    Http2Connection& connection_;
    ByteBuffer headBlock_;                         // the handler's fields, HPACK-coded, until the head goes out
    ByteBuffer output_;                            // body bytes the windows have not taken yet
    ByteBuffer pausedInput_;                       // body bytes received while the handler paused the request
    std::optional<std::uint64_t> declaredLength_;  // a Content-Length the handler wrote
    std::optional<std::uint64_t> expectedLength_;  // the request's content-length
    ResponseCoding coding_;                        // App::compress: filled by HttpServer::dispatch
    CodingStream* codingStream_ = nullptr;         // the compressor of a body written in pieces
    std::uint64_t receivedBytes_ = 0;
    std::uint64_t writeOffset_ = 0;
    std::int64_t sendWindow_ = 0;
    std::int64_t receiveWindow_ = 0;
    std::int64_t receiveConsumed_ = 0;
    std::uint32_t id_ = 0;
    std::uint32_t callbackDepth_ = 0;
    std::uint16_t status_ = 0;  // 0 until written
    bool headEnded_ = false;
    bool complete_ = false;
    bool aborted_ = false;
    bool refused_ = false;
    bool answersHead_ = false;
    bool requestEnded_ = false;
    bool outputEnds_ = false;  // END_STREAM goes after output_
    bool endStreamSent_ = false;
    bool wantsWritable_ = false;
    bool paused_ = false;
    bool pausedInputEnds_ = false;
    bool bodyless_ = false;  // HEAD, 1xx, 204, 304: no DATA
};

}  // namespace loopwire::h2
