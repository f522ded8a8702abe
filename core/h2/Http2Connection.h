// Http2Connection: one HTTP/2 server connection (RFC 9113), after the client's preface, on a socket taken over from
// the HTTP/1.1 connection that found it: by ALPN "h2" after a TLS handshake, or by the preface itself on cleartext
// (prior knowledge).
//
// Reading: whole frames (FrameReader) from each read, in place in the loop's receive buffer; a partial frame waits
//   in pending_. Header blocks go through the connection's HPACK decoder, and become RequestHeads the server's
//   router dispatches to the same handlers as HTTP/1.1, each with its stream (Http2Stream) as the HttpResponse.
// Writing: every frame goes through the socket's cork: what one read, or one callback, makes leaves in one write,
//   sealed as one TLS record where there is TLS. DATA frames respect the client's windows (the stream's and the
//   connection's) and its SETTINGS_MAX_FRAME_SIZE.
// Errors: a connection error sends GOAWAY with its code and ends the connection (lingering, so that the GOAWAY is
//   read); a stream error sends RST_STREAM and the connection goes on.
// Floods: what no protocol limit bounds has a budget per second (FloodGuard): streams reset before their response
//   was complete, by either side, and frames that carry no request and no body byte; past either, GOAWAY
//   ENHANCE_YOUR_CALM. So does a client that makes the server answer (SETTINGS, PING) while it does not read. Every
//   stream whose response is not complete is aborted (onAborted) when the connection ends.
// Timeouts: a connection without streams closes (GOAWAY NO_ERROR) after ServerOptions::idleTimeoutMs; one whose
//   output waits for the peer (its windows or its reading) is ended after writeTimeoutMs without progress.
// Shutdown: drain() (App::close with drainMs) sends GOAWAY with the last stream id: streams in flight finish, no
//   new one starts, and the connection closes once they are done.
#pragma once

#include "FloodGuard.h"
#include "FrameReader.h"
#include "HpackDecoder.h"
#include "HpackEncoderTable.h"
#include "Http2Settings.h"
#include "Http2Stream.h"
#include "net/Socket.h"

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace loopwire {
class HttpServer;
}

namespace loopwire::h2 {

class Http2Server;

class Http2Connection final : public Socket {
public:
    // Takes predecessor's socket; start() then gives it the bytes received so far.
    Http2Connection(Http2Server& owner, Socket& predecessor) noexcept;
    ~Http2Connection() override;

    // Sends the server's preface (SETTINGS, and a WINDOW_UPDATE opening the connection's window).
    void start();

    HttpServer& server() const noexcept;
    void drain() noexcept;

    // For its streams.
    // The body bytes a stream may send now: its window, the connection's, and room in the socket's output.
    std::size_t sendable(const Http2Stream& stream) const noexcept;
    void writeHeaders(std::uint32_t streamId, std::string_view block, bool endStream);
    void writeData(Http2Stream& stream, std::string_view data, bool endStream);
    void writeReset(std::uint32_t streamId, ErrorCode code);
    // A stream's response completed, was aborted, or wrote its last frame: the stream is reused once finished.
    void streamChanged(Http2Stream& stream);
    // The handler asked to end the connection (Connection: close): GOAWAY, and close once the streams are done.
    void goAwayAfterStreams() noexcept;
    // Body bytes a stream's handler has taken: the windows open again as they are consumed.
    void bodyConsumed(Http2Stream& stream, std::size_t bytes);
    // The same for the connection's window alone (DATA of a stream that is gone, padding).
    void connectionConsumed(std::int64_t bytes);
    // Corks the socket unless it is corked; returns whether it did (uncork then).
    bool corkIfNeeded() noexcept;
    // What the client's decoder holds of the responses' fields: every response's header block is written with it.
    HpackEncoderTable& encoderTable() noexcept { return encoderTable_; }

    // Output a connection holds for a peer before its streams stop sending: as HTTP/1.1's backlog limit.
    static constexpr std::size_t kMaxOutputBacklogBytes = limits::kMaxOutputBacklogBytes;

private:
    void onData(char* data, std::size_t length) override;
    void onWritable() override;
    void onEnd() override;
    void onTimeout() override;
    void onClose() override;

    // Handles the whole frames in [data, data + length); returns the bytes consumed.
    std::size_t process(char* data, std::size_t length);
    void handleFrame(const Frame& frame);
    void onHeaders(const Frame& frame);
    void onDataFrame(const Frame& frame);
    void onSettings(const Frame& frame);
    void onPing(const Frame& frame);
    void onWindowUpdate(const Frame& frame);
    void onRstStream(const Frame& frame);
    void onGoAway(const Frame& frame);
    // Decodes a header block into the server's RequestHead and dispatches it on a new stream.
    void startStream(const Frame& frame);
    // A header block that starts no request (trailers, or one for a stream that is closed): decoded for the HPACK
    // state, its fields checked or dropped. False when it could not be decoded (the connection has ended).
    bool decodeDiscarding(std::string_view block, bool trailers, bool& malformed);
    void connectionError(ErrorCode code);
    // Counts a frame that carries no request and no body byte; false (the connection ended) past the budget.
    bool spendControlFrame();
    // Counts a stream reset before its response was complete; false (the connection ended) past the budget.
    bool spendReset();
    void streamError(std::uint32_t streamId, ErrorCode code);
    Http2Stream* find(std::uint32_t streamId) noexcept;
    Http2Stream& acquireStream();
    void removeStream(Http2Stream& stream) noexcept;
    // Sends what waiting streams hold, and calls onWritable where asked, while the windows allow.
    void resumeStreams();
    void writeGoAway(ErrorCode code);
    void writeWindowUpdate(std::uint32_t streamId, std::uint32_t increment);
    void abortAll();
    void updateDeadline() noexcept;
    void closeIfDone();
    // Ends the connection once what it wrote has gone (Socket::closeLingering), the cork first.
    void linger();

    Http2Server& owner_;
    FrameReader reader_;
    HpackDecoder decoder_;
    HpackEncoderTable encoderTable_;
    ByteBuffer pending_;  // a partial frame, or the preface, waiting for the rest
    PeerSettings peer_;
    std::vector<Http2Stream*> active_;                // streams not yet finished
    std::vector<std::unique_ptr<Http2Stream>> idle_;  // streams to reuse
    std::int64_t sendWindow_ = kDefaultWindow;
    std::int64_t receiveWindow_ = kDefaultWindow;
    std::int64_t receiveConsumed_ = 0;  // since the connection's window was last opened again
    std::uint32_t lastStreamId_ = 0;    // the highest stream id a client opened
    std::uint32_t processingDepth_ = 0;
    bool prefaceReceived_ = false;
    bool settingsReceived_ = false;
    bool goAwaySent_ = false;
    bool peerGoingAway_ = false;
    bool inheritedCork_ = false;  // the predecessor's cork, which this connection must end
    FloodGuard resets_{kMaxStreamResetsPerSecond};
    FloodGuard controlFrames_{kMaxControlFramesPerSecond};
};

}  // namespace loopwire::h2
