// ResponseStream: a response that is not an HTTP/1.1 connection's own: an HTTP/2 stream.
//
// HttpResponse is the public face of both. An HTTP/1.1 response is its HttpConnection, and its methods forward
// there directly; a response made as a ResponseStream says so by one flag in HttpResponse, tested first by each
// method, and forwards to these virtual functions instead. HTTP/1.1 pays the test, never a virtual call.
//
// The contract of each function is that of the HttpResponse method of the same purpose (loopwire/HttpResponse.h);
// what differs on a protocol is documented by its implementation.
#pragma once

#include <loopwire/HttpResponse.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

namespace loopwire {

class HttpServer;
class Socket;
struct ResponseCoding;

class ResponseStream : public HttpResponse {
public:
    AbortedHandler onAborted_;
    DataHandler onData_;
    DataV2Handler onDataV2_;
    WritableHandler onWritable_;

    virtual bool writeStatusLine(std::string_view status) = 0;
    virtual bool writeHeaderField(std::string_view key, std::string_view value) = 0;
    // write(): false when bytes wait (backpressure or flow control).
    virtual bool writeChunk(std::string_view chunk) = 0;
    virtual void endResponse(std::string_view body, bool closeConnection) = 0;
    virtual void endWithoutBody(std::optional<std::uint64_t> reportedLength, bool closeConnection) = 0;
    virtual std::pair<bool, bool> tryEnd(std::string_view data, std::uint64_t totalSize, bool closeConnection) = 0;
    virtual std::uint64_t writeOffset() const noexcept = 0;
    // HttpResponse::close(): ends this response at once (on HTTP/2, the stream, not the connection).
    virtual void closeNow() = 0;
    virtual void pauseRequest() = 0;
    virtual void resumeRequest() = 0;
    virtual bool responseComplete() const noexcept = 0;
    virtual bool refusedWrite() const noexcept = 0;
    virtual bool hasWrittenStatus() const noexcept = 0;
    virtual bool answersHead() const noexcept = 0;

    // The connection the response travels on, for its cork, addresses and TLS session.
    virtual Socket& socket() const noexcept = 0;
    virtual HttpServer& server() const noexcept = 0;
    // App::compress's state for this response, or null where responses are not compressed.
    virtual ResponseCoding* coding() noexcept { return nullptr; }

protected:
    ResponseStream() noexcept { markAsStream(); }
    ~ResponseStream() = default;
};

// What layers beside http/ (static files, WebSockets, the server's dispatch) ask of a response of either kind.
namespace any_response {
HttpServer& server(HttpResponse& response) noexcept;
Socket& socket(HttpResponse& response) noexcept;
bool hasWrittenStatus(const HttpResponse& response) noexcept;
bool answersHead(const HttpResponse& response) noexcept;
ResponseCoding* coding(HttpResponse& response) noexcept;
HttpResponse::AbortedHandler& abortedHandler(HttpResponse& response) noexcept;
}  // namespace any_response

}  // namespace loopwire
