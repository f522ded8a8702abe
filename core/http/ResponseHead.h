// ResponseHead: what is decided about the head of the response in progress, whatever protocol carries it.
//
// A response's head goes one way: Open (nothing written) → Status (a status line written, fields may follow) →
// Ended (the head is out; the body, or nothing, follows). The kind of status (one that forbids a body: 1xx, 204,
// 304; 101 Switching Protocols) is fixed when the status is written, the body's framing when the head ends; a
// Content-Length or Connection field the handler wrote, and a refused argument, are noted as they come. Every change
// goes through the methods below, and a new response starts from begin(), so that no flag outlives its response.
//
// The protocol's writer (HttpConnection for HTTP/1.1) asks it what to write and tells it what it wrote; the head
// itself writes nothing. A plain value: 16 bytes, no allocation. Loop thread only.
#pragma once

#include <cstdint>
#include <string_view>

namespace loopwire {

class ResponseHead {
public:
    enum class Stage : std::uint8_t {
        Open,    // nothing of the head written
        Status,  // the status written, header fields may follow
        Ended,   // the head is out
    };
    // How the body is delimited; decided when the head ends.
    enum class Framing : std::uint8_t {
        Undecided,   // the head has not ended
        Length,      // Content-Length (also the head of a response without a body)
        Chunked,     // Transfer-Encoding: chunked
        UntilClose,  // the connection's end (HTTP/1.0 without a length)
    };

    // The head of a new response, to a HEAD request (its answer never carries body bytes) or not.
    // The declared length is left as it is: it means nothing until declareLength() sets the flag.
    void begin(bool answersHead) noexcept {
        stage_ = Stage::Open;
        framing_ = Framing::Undecided;
        bodilessStatus_ = switchingProtocols_ = hasDeclaredLength_ = connectionFieldWritten_ = refusedWrite_ = false;
        answersHead_ = answersHead;
    }

    bool statusWritten() const noexcept { return stage_ != Stage::Open; }
    bool ended() const noexcept { return stage_ == Stage::Ended; }
    bool chunked() const noexcept { return framing_ == Framing::Chunked; }

    bool answersHead() const noexcept { return answersHead_; }
    // The status written forbids a body (1xx, 204, 304).
    bool bodilessStatus() const noexcept { return bodilessStatus_; }
    // The status written is 101 Switching Protocols.
    bool switchingProtocols() const noexcept { return switchingProtocols_; }
    // No body bytes go out, whatever the handler gives: the answer to HEAD, or a status that forbids a body.
    bool omitsBody() const noexcept { return answersHead_ || bodilessStatus_; }

    // A Content-Length the handler wrote, held back until the head ends (the writer sends one).
    bool hasDeclaredLength() const noexcept { return hasDeclaredLength_; }
    std::uint64_t declaredLength() const noexcept { return declaredLength_; }
    // The handler wrote a Connection field: the writer adds none of its own.
    bool connectionFieldWritten() const noexcept { return connectionFieldWritten_; }
    // An argument of the response's calls was refused (HttpResponse::refusedWrite).
    bool refusedWrite() const noexcept { return refusedWrite_; }

    // A status of the handler's; its first three characters are the code (the caller checked there are three).
    void writeStatus(std::string_view status) noexcept {
        const std::string_view code = status.substr(0, 3);
        stage_ = Stage::Status;
        bodilessStatus_ = status[0] == '1' || code == "204" || code == "304";
        switchingProtocols_ = code == "101";
    }
    // The default status, 200, when no status was written (the status's flags are still begin()'s then).
    void writeDefaultStatus() noexcept { stage_ = Stage::Status; }
    void declareLength(std::uint64_t length) noexcept {
        declaredLength_ = length;
        hasDeclaredLength_ = true;
    }
    void noteConnectionField() noexcept { connectionFieldWritten_ = true; }
    void refuseWrite() noexcept { refusedWrite_ = true; }
    // The head is out, its body delimited by framing (the status was written before).
    void end(Framing framing) noexcept {
        stage_ = Stage::Ended;
        framing_ = framing;
    }

private:
    std::uint64_t declaredLength_ = 0;
    Stage stage_ = Stage::Open;
    Framing framing_ = Framing::Undecided;
    bool bodilessStatus_ = false;
    bool switchingProtocols_ = false;
    bool hasDeclaredLength_ = false;
    bool connectionFieldWritten_ = false;
    bool refusedWrite_ = false;
    bool answersHead_ = false;
};

static_assert(sizeof(ResponseHead) == 16);

}  // namespace loopwire
