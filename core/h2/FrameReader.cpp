// The HTTP/2 frame reader; see FrameReader.h.
//
// Frames are taken whole, never in parts: a frame is at most 16 KiB and the connection's flow-control window bounds
// how much a client may have in flight, so holding a partial frame in the receive buffer costs no more than a
// partial HTTP/1.1 head, and every frame is handled in one place.
//
// A header block split over CONTINUATION frames is left in the receive buffer until its last frame has arrived,
// then its fragments are moved together over the frame headers between them. That needs no buffer of its own, and
// the whole sequence is bounded by maxHeaderBlockBytes before any of it is decoded.
#include "FrameReader.h"

#include <cstring>

namespace loopwire::h2 {

std::string_view describe(ErrorCode code) noexcept {
    switch (code) {
        case ErrorCode::NoError:
            return "NO_ERROR";
        case ErrorCode::ProtocolError:
            return "PROTOCOL_ERROR";
        case ErrorCode::InternalError:
            return "INTERNAL_ERROR";
        case ErrorCode::FlowControlError:
            return "FLOW_CONTROL_ERROR";
        case ErrorCode::SettingsTimeout:
            return "SETTINGS_TIMEOUT";
        case ErrorCode::StreamClosed:
            return "STREAM_CLOSED";
        case ErrorCode::FrameSizeError:
            return "FRAME_SIZE_ERROR";
        case ErrorCode::RefusedStream:
            return "REFUSED_STREAM";
        case ErrorCode::Cancel:
            return "CANCEL";
        case ErrorCode::CompressionError:
            return "COMPRESSION_ERROR";
        case ErrorCode::ConnectError:
            return "CONNECT_ERROR";
        case ErrorCode::EnhanceYourCalm:
            return "ENHANCE_YOUR_CALM";
        case ErrorCode::InadequateSecurity:
            return "INADEQUATE_SECURITY";
        case ErrorCode::Http11Required:
            return "HTTP_1_1_REQUIRED";
    }
    return "unknown";
}

namespace {

constexpr std::size_t kPriorityFieldBytes = 5;  // a stream dependency and a weight
constexpr std::size_t kSettingBytes = 6;

FrameRead connectionError(ErrorCode code) noexcept {
    FrameRead result;
    result.status = ReadStatus::ConnectionError;
    result.error = code;
    return result;
}

// Strips the padding of a DATA or HEADERS payload (RFC 9113 sections 6.1, 6.2), and for HEADERS the priority
// fields; false when they do not fit.
bool stripPadding(const FrameHeader& header, std::string_view& payload, std::uint32_t& dependency,
                  ErrorCode& error) noexcept {
    std::size_t padding = 0;
    if (header.has(flags::kPadded)) {
        if (payload.empty()) {
            error = ErrorCode::FrameSizeError;
            return false;
        }
        padding = static_cast<unsigned char>(payload[0]);
        payload.remove_prefix(1);
    }
    if (header.frameType() == FrameType::Headers && header.has(flags::kPriority)) {
        if (payload.size() < kPriorityFieldBytes) {
            error = ErrorCode::FrameSizeError;
            return false;
        }
        dependency = readUint32(reinterpret_cast<const unsigned char*>(payload.data())) & 0x7fffffffu;
        payload.remove_prefix(kPriorityFieldBytes);
    }
    if (padding > payload.size()) {
        error = ErrorCode::ProtocolError;
        return false;
    }
    payload.remove_suffix(padding);
    return true;
}

// The rules of RFC 9113 section 6 on a frame's stream and length, for the types without padding.
ErrorCode checkShape(const FrameHeader& h) noexcept {
    switch (h.frameType()) {
        case FrameType::Priority:
            return h.streamId == 0 ? ErrorCode::ProtocolError : ErrorCode::NoError;
        case FrameType::RstStream:
            if (h.streamId == 0) return ErrorCode::ProtocolError;
            return h.length == 4 ? ErrorCode::NoError : ErrorCode::FrameSizeError;
        case FrameType::Settings:
            if (h.streamId != 0) return ErrorCode::ProtocolError;
            if (h.has(flags::kAck) && h.length != 0) return ErrorCode::FrameSizeError;
            return h.length % kSettingBytes == 0 ? ErrorCode::NoError : ErrorCode::FrameSizeError;
        case FrameType::PushPromise:
            return ErrorCode::ProtocolError;
        case FrameType::Ping:
            if (h.streamId != 0) return ErrorCode::ProtocolError;
            return h.length == 8 ? ErrorCode::NoError : ErrorCode::FrameSizeError;
        case FrameType::GoAway:
            if (h.streamId != 0) return ErrorCode::ProtocolError;
            return h.length >= 8 ? ErrorCode::NoError : ErrorCode::FrameSizeError;
        case FrameType::WindowUpdate:
            return h.length == 4 ? ErrorCode::NoError : ErrorCode::FrameSizeError;
        case FrameType::Continuation:
            return ErrorCode::ProtocolError;  // only inside a header block
        case FrameType::Data:
        case FrameType::Headers:
            return h.streamId == 0 ? ErrorCode::ProtocolError : ErrorCode::NoError;
    }
    return ErrorCode::NoError;
}

}  // namespace

FrameRead FrameReader::read(char* data, std::size_t length) const noexcept {
    FrameRead result;
    if (length < kFrameHeaderBytes) return result;
    const FrameHeader header = readFrameHeader(reinterpret_cast<const unsigned char*>(data));
    if (header.length > kDefaultMaxFrameSize) return connectionError(ErrorCode::FrameSizeError);
    if (header.type <= kLastKnownFrameType) {
        if (const ErrorCode error = checkShape(header); error != ErrorCode::NoError) return connectionError(error);
        if (header.frameType() == FrameType::Headers && !header.has(flags::kEndHeaders))
            return readHeaderBlock(data, length, header);
    }
    if (header.frameType() == FrameType::Headers && kFrameHeaderBytes + header.length > maxHeaderBlockBytes_)
        return connectionError(ErrorCode::EnhanceYourCalm);
    if (length < kFrameHeaderBytes + header.length) return result;

    result.status = ReadStatus::Frame;
    result.consumed = kFrameHeaderBytes + header.length;
    result.frame.header = header;
    result.frame.payload = std::string_view(data + kFrameHeaderBytes, header.length);
    switch (header.frameType()) {
        case FrameType::Data:
        case FrameType::Headers: {
            ErrorCode error = ErrorCode::NoError;
            if (!stripPadding(header, result.frame.payload, result.frame.dependency, error))
                return connectionError(error);
            if (header.frameType() == FrameType::Headers)
                result.frame.header.length = static_cast<std::uint32_t>(result.frame.payload.size());
            break;
        }
        case FrameType::Priority:
            if (header.length != kPriorityFieldBytes) {
                result.status = ReadStatus::StreamError;
                result.error = ErrorCode::FrameSizeError;
                break;
            }
            result.frame.dependency =
                readUint32(reinterpret_cast<const unsigned char*>(result.frame.payload.data())) & 0x7fffffffu;
            break;
        default:
            break;
    }
    return result;
}

FrameRead FrameReader::readHeaderBlock(char* data, std::size_t length, const FrameHeader& header) const noexcept {
    // First pass: find the frame with END_HEADERS, checking each CONTINUATION and the sequence's size as it goes.
    std::size_t end = kFrameHeaderBytes + header.length;  // of the frames seen so far
    bool complete = false;
    while (!complete) {
        if (end > maxHeaderBlockBytes_) return connectionError(ErrorCode::EnhanceYourCalm);
        if (length < end + kFrameHeaderBytes) return FrameRead{};
        const FrameHeader next = readFrameHeader(reinterpret_cast<const unsigned char*>(data + end));
        if (next.frameType() != FrameType::Continuation || next.streamId != header.streamId)
            return connectionError(ErrorCode::ProtocolError);
        if (next.length > kDefaultMaxFrameSize) return connectionError(ErrorCode::FrameSizeError);
        end += kFrameHeaderBytes + next.length;
        complete = next.has(flags::kEndHeaders);
    }
    if (end > maxHeaderBlockBytes_) return connectionError(ErrorCode::EnhanceYourCalm);
    if (length < end) return FrameRead{};

    FrameRead result;
    result.status = ReadStatus::Frame;
    result.consumed = end;
    result.frame.header = header;
    std::string_view first(data + kFrameHeaderBytes, header.length);
    ErrorCode error = ErrorCode::NoError;
    if (!stripPadding(header, first, result.frame.dependency, error)) return connectionError(error);
    // Second pass: move each CONTINUATION fragment to the end of the block so far.
    char* blockEnd = data + (first.data() - data) + first.size();
    std::size_t at = kFrameHeaderBytes + header.length;
    while (at < end) {
        const FrameHeader next = readFrameHeader(reinterpret_cast<const unsigned char*>(data + at));
        std::memmove(blockEnd, data + at + kFrameHeaderBytes, next.length);
        blockEnd += next.length;
        at += kFrameHeaderBytes + next.length;
    }
    result.frame.payload = std::string_view(first.data(), static_cast<std::size_t>(blockEnd - first.data()));
    result.frame.header.length = static_cast<std::uint32_t>(result.frame.payload.size());
    result.frame.header.flags |= flags::kEndHeaders;
    return result;
}

}  // namespace loopwire::h2
