// WsFrameParser: the incremental parser of the frames a WebSocket server sends (RFC 6455 section 5).
//
// Pure: bytes in, results out; no allocation (a control frame's payload, at most 125 bytes, is gathered in the
// parser itself). Strict as a client must be: server frames are never masked; RSV bits are zero (lwload offers
// no extension); lengths use the fewest bytes; control frames are final and at most 125 bytes; continuation
// frames follow a non-final data frame and only then; a close payload is empty or at least 2 bytes.
//
// Contract
// - decode(input) consumes a prefix of input and returns as soon as it has something to hand over:
//   * Payload: result.payload is the next piece of the current frame's payload. For a data frame it is a view
//     into input (possibly empty for an empty frame) and several pieces may make up one frame; for a control
//     frame it is the whole payload, a view into the parser valid until the next decode(). result.opcode is Text
//     or Binary for data frames (the message's opcode, continuation frames included), else Close, Ping or Pong.
//     result.frameEnd marks the last piece of a frame, result.messageEnd the last piece of a data message.
//   * NeedMore: all of input was consumed and nothing is ready (a partial header or control payload is kept).
//   * Error: result.error says why; the parser stays in error until reset().
//   Call decode() again with input.substr(result.consumed) while input remains.
// - reset() prepares it for a new connection.
#pragma once

#include "LoadLimits.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::lwload {

enum class WsOpcode : std::uint8_t { Continuation = 0, Text = 1, Binary = 2, Close = 8, Ping = 9, Pong = 10 };

enum class WsFrameStatus : std::uint8_t { Payload, NeedMore, Error };

enum class WsFrameError : std::uint8_t {
    None,
    ReservedBits,            // RSV1, RSV2 or RSV3 set
    BadOpcode,               // a reserved opcode
    MaskedFrame,             // a server frame with the MASK bit
    FragmentedControl,       // a control frame without FIN
    ControlTooLong,          // a control frame over 125 bytes
    NonMinimalLength,        // a 16- or 64-bit length that would have fitted in fewer bytes
    LengthTooLarge,          // a 64-bit length with its top bit set
    MessageTooLarge,         // a message over the parser's limit
    UnexpectedContinuation,  // a continuation frame outside a fragmented message
    ExpectedContinuation,    // a new data frame inside a fragmented message
    BadClosePayload,         // a close frame with a 1-byte payload
};

const char* wsFrameErrorName(WsFrameError error) noexcept;

struct WsFrameResult {
    WsFrameStatus status;
    WsFrameError error;        // meaningful when status == Error
    std::size_t consumed;      // bytes of input consumed by this call
    std::string_view payload;  // status == Payload: see the contract
    WsOpcode opcode;           // status == Payload: Text, Binary, Close, Ping or Pong
    bool frameEnd;
    bool messageEnd;
};

class WsFrameParser {
public:
    explicit WsFrameParser(std::uint64_t maxMessageBytes = limits::kMaxMessageBytes) noexcept
        : maxMessageBytes_(maxMessageBytes) {}

    WsFrameResult decode(std::string_view input) noexcept;
    void reset() noexcept;

private:
    enum class State : std::uint8_t { Header, Payload, ControlPayload, Failed };

    WsFrameError onHeader() noexcept;
    WsFrameResult fail(WsFrameError error, std::size_t consumed) noexcept;

    std::uint64_t maxMessageBytes_;
    std::uint64_t remaining_ = 0;     // payload bytes of the current frame still to come
    std::uint64_t messageBytes_ = 0;  // payload bytes of the current data message so far
    State state_ = State::Header;
    WsOpcode opcode_ = WsOpcode::Binary;         // of the current frame, continuation resolved
    WsOpcode messageOpcode_ = WsOpcode::Binary;  // of the data message in progress
    bool fin_ = false;
    bool inMessage_ = false;
    WsFrameError error_ = WsFrameError::None;
    std::uint8_t headerHave_ = 0;
    std::uint8_t headerNeed_ = 2;
    std::uint8_t controlHave_ = 0;
    std::uint8_t header_[14] = {};
    char control_[125] = {};
};

}  // namespace loopwire::lwload
