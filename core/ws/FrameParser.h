// FrameParser: reads the frames a WebSocket client sends (RFC 6455 section 5), incrementally, from reads of any
// size and split, unmasking payloads in place.
//
// parse() walks the bytes it is given and reports to a visitor, in order:
//   onFrame(const FrameHeader&)          a frame's header is complete (its payload follows, possibly empty);
//   onPayload(std::string_view, bool)    bytes of the payload, unmasked in the caller's buffer (no copy), and
//                                        whether they end the frame.
// Every rule of RFC 6455 a server must enforce is checked on the header, before any of its payload is reported:
// client frames are masked; RSV1 only on the first frame of a data message and only when an extension (per-
// message deflate) was negotiated, RSV2 and RSV3 never; no reserved opcode; control frames are final and carry
// at most 125 bytes; continuations only inside a fragmented message and data frames only outside one; lengths in
// their shortest form, below 2^63; and the message (all its fragments) no longer than maxMessageBytes. A broken
// rule ends the parse with a FrameError, whose closeCode() is what the server closes with (1002 or 1009).
//
// The visitor may stop the parse by returning false from either call (the connection closed): parse() then
// returns at once. Pure: no allocation, no I/O.
#pragma once

#include <cstddef>
#include <loopwire/WebSocket.h>

#include <cstdint>
#include <string_view>

namespace loopwire::ws {

// The opcodes of RFC 6455 section 5.2: the codec's name for the public OpCode, so that the values an
// application sends and receives need no conversion.
using Opcode = OpCode;

constexpr bool isControl(Opcode opcode) noexcept { return (static_cast<std::uint8_t>(opcode) & 0x8) != 0; }

// Control frames carry at most this much (RFC 6455 section 5.5).
constexpr std::size_t kMaxControlPayloadBytes = 125;
// The longest frame header: 2 bytes, an 8-byte length and a 4-byte mask.
constexpr std::size_t kMaxFrameHeaderBytes = 14;

struct FrameHeader {
    Opcode opcode = Opcode::Continuation;
    bool fin = false;
    bool rsv1 = false;         // compressed (permessage-deflate), on the first frame of a message only
    std::uint64_t length = 0;  // of this frame's payload
};

enum class FrameError : std::uint8_t {
    None,
    Unmasked,                // a client frame without a mask
    ReservedBits,            // RSV2/RSV3, or RSV1 where no extension allows it
    ReservedOpcode,          // 0x3-0x7, 0xB-0xF
    ControlTooLong,          // a control frame over 125 bytes
    FragmentedControl,       // a control frame without FIN
    UnexpectedContinuation,  // a continuation with no message in progress
    ExpectedContinuation,    // a new data frame while a fragmented message is in progress
    NonMinimalLength,        // a length in a longer form than it needs
    LengthTooLarge,          // a 64-bit length with its top bit set
    MessageTooBig,           // the message would exceed maxMessageBytes: 1009
};

// The close code a server sends for error (RFC 6455 section 7.4.1): 1009 for MessageTooBig, else 1002.
std::uint16_t closeCode(FrameError error) noexcept;
std::string_view describe(FrameError error) noexcept;

class FrameParser {
public:
    // maxMessageBytes: the longest message accepted, summed over its fragments (uWebSockets' maxPayloadLength).
    // rsv1Allowed: permessage-deflate was negotiated.
    explicit FrameParser(std::uint64_t maxMessageBytes, bool rsv1Allowed = false) noexcept
        : maxMessageBytes_(maxMessageBytes), rsv1Allowed_(rsv1Allowed) {}

    // Parses data (mutable: payloads are unmasked in place) as the continuation of earlier calls. Returns
    // FrameError::None when every byte was taken (or the visitor stopped the parse); the error otherwise, after
    // which the parser must not be given more bytes.
    template <typename Visitor>
    FrameError parse(char* data, std::size_t length, Visitor& visitor);

    // True from the header of a data message's first frame to the end of its final frame's payload.
    bool inMessage() const noexcept { return messageOpcode_ != Opcode::Continuation; }
    // The opcode of the data message in progress (Text or Binary; Continuation when none), and whether its first
    // frame had RSV1. Visitors read them in onFrame and onPayload, a continuation frame's included.
    Opcode messageOpcode() const noexcept { return messageOpcode_; }
    bool messageCompressed() const noexcept { return messageCompressed_; }

private:
    // Validates the header in header_ once it is complete; fills current_.
    FrameError acceptHeader() noexcept;
    // How many header bytes the header in header_ needs, given its first two (2, 4, 10, plus 4 for the mask).
    std::size_t headerSize() const noexcept;
    void unmask(char* data, std::size_t length) noexcept;
    // The payload of current_ is over: a final data frame ends its message.
    void endFrame() noexcept;

    // Ordered for size: a parser lives in every open WebSocket.
    std::uint64_t maxMessageBytes_;
    std::uint64_t payloadLeft_ = 0;   // of the frame being read; its header is complete when headerBytes_ == 0
    std::uint64_t messageBytes_ = 0;  // of the data message in progress, headers excluded
    FrameHeader current_;
    std::uint8_t header_[kMaxFrameHeaderBytes] = {};
    std::uint8_t headerBytes_ = 0;  // of the header being read
    std::uint8_t maskOffset_ = 0;   // position in the mask of the next payload byte
    std::uint8_t mask_[4] = {};
    bool rsv1Allowed_;
    bool inPayload_ = false;
    Opcode messageOpcode_ = Opcode::Continuation;  // the fragmented data message in progress
    bool messageCompressed_ = false;
};

template <typename Visitor>
FrameError FrameParser::parse(char* data, std::size_t length, Visitor& visitor) {
    std::size_t at = 0;
    while (at < length) {
        if (!inPayload_) {
            // Header bytes: take what is needed, as far as this read goes.
            while (headerBytes_ < 2 && at < length)
                header_[headerBytes_++] = static_cast<std::uint8_t>(data[at++]);
            if (headerBytes_ < 2) break;
            const auto needed = static_cast<std::uint8_t>(headerSize());
            while (headerBytes_ < needed && at < length)
                header_[headerBytes_++] = static_cast<std::uint8_t>(data[at++]);
            if (headerBytes_ < needed) break;
            if (FrameError error = acceptHeader(); error != FrameError::None) return error;
            headerBytes_ = 0;
            inPayload_ = true;
            if (!visitor.onFrame(current_)) return FrameError::None;
            if (payloadLeft_ == 0) {
                inPayload_ = false;
                const bool goOn = visitor.onPayload(std::string_view(), true);
                endFrame();
                if (!goOn) return FrameError::None;
            }
            continue;
        }
        const std::size_t available = length - at;
        const std::size_t taken = payloadLeft_ < available ? static_cast<std::size_t>(payloadLeft_) : available;
        unmask(data + at, taken);
        payloadLeft_ -= taken;
        const bool ends = payloadLeft_ == 0;
        if (ends) inPayload_ = false;
        const std::string_view chunk(data + at, taken);
        at += taken;
        const bool goOn = visitor.onPayload(chunk, ends);
        if (ends) endFrame();
        if (!goOn) return FrameError::None;
    }
    return FrameError::None;
}

}  // namespace loopwire::ws
