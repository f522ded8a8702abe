// FrameReader: splits the bytes a client sends into whole HTTP/2 frames (RFC 9113 sections 4 and 6), and checks
// every rule that needs no stream state.
//
// Contract
// - read(data, length) looks at the unread bytes, which start at a frame's first byte:
//   * Frame: result.frame is the next frame and result.consumed the bytes it took. Frames of extension types
//     (past kLastKnownFrameType) are frames too, which the connection ignores. The payload is a view into data:
//       DATA: its data without padding (header.length keeps the padded length, which flow control counts);
//       HEADERS: the whole header block: its fragment and those of the CONTINUATION frames that follow it, joined
//         in place in data, without padding or priority fields (header.length is then the block's length, and
//         END_HEADERS is set);
//       the others: the payload as sent, its length checked for the type.
//   * NeedMore: no whole frame yet (for HEADERS: not yet the CONTINUATION with END_HEADERS); call again with the
//     same bytes followed by more. data is not changed.
//   * ConnectionError: result.error is what the connection's GOAWAY says; nothing more may be read.
//   * StreamError: the frame (result.consumed bytes) breaks a rule that RFC 9113 makes a stream error (a PRIORITY
//     frame that is not 5 bytes): result.frame.header names the stream, result.error the RST_STREAM's code.
// - Frames are at most kDefaultMaxFrameSize bytes (what loopwire announces), and a header block with its frames at
//   most maxHeaderBlockBytes (CONTINUATION floods, CVE-2024-27983): past it, ConnectionError EnhanceYourCalm,
//   as soon as the bytes that prove it have arrived.
// - No PUSH_PROMISE (a client may not send one) and no CONTINUATION outside a header block.
// Pure: no allocation, no I/O.
#pragma once

#include "FrameHeader.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::h2 {

struct Frame {
    FrameHeader header;
    std::string_view payload;
    // HEADERS with the PRIORITY flag, and PRIORITY: the stream it depends on (RFC 9113 keeps the fields, deprecates
    // their meaning; a stream that depends on itself is a stream error).
    std::uint32_t dependency = 0;
};

enum class ReadStatus : std::uint8_t { Frame, NeedMore, ConnectionError, StreamError };

struct FrameRead {
    ReadStatus status = ReadStatus::NeedMore;
    std::size_t consumed = 0;
    Frame frame;
    ErrorCode error = ErrorCode::NoError;
};

class FrameReader {
public:
    explicit FrameReader(std::size_t maxHeaderBlockBytes) noexcept : maxHeaderBlockBytes_(maxHeaderBlockBytes) {}

    FrameRead read(char* data, std::size_t length) const noexcept;

private:
    // A HEADERS frame at data: finds the CONTINUATION frames that end its block and joins the fragments.
    FrameRead readHeaderBlock(char* data, std::size_t length, const FrameHeader& header) const noexcept;

    std::size_t maxHeaderBlockBytes_;
};

}  // namespace loopwire::h2
