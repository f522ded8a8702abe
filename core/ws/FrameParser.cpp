#include "ws/FrameParser.h"

#include "ws/Unmask.h"

#include <cstring>

namespace loopwire::ws {

namespace {

constexpr std::uint8_t kFin = 0x80;
constexpr std::uint8_t kRsv1 = 0x40;
constexpr std::uint8_t kRsv2And3 = 0x30;
constexpr std::uint8_t kOpcodeBits = 0x0F;
constexpr std::uint8_t kMasked = 0x80;
constexpr std::uint8_t kLengthBits = 0x7F;
constexpr std::uint8_t kLength16 = 126;
constexpr std::uint8_t kLength64 = 127;

bool isKnownOpcode(std::uint8_t opcode) noexcept { return opcode <= 0x2 || (opcode >= 0x8 && opcode <= 0xA); }

}  // namespace

std::uint16_t closeCode(FrameError error) noexcept {
    switch (error) {
        case FrameError::None:
            return 1000;
        case FrameError::MessageTooBig:
            return 1009;
        default:
            return 1002;
    }
}

std::string_view describe(FrameError error) noexcept {
    switch (error) {
        case FrameError::None:
            return "no error";
        case FrameError::Unmasked:
            return "client frames must be masked";
        case FrameError::ReservedBits:
            return "reserved bits set without an extension that defines them";
        case FrameError::ReservedOpcode:
            return "reserved opcode";
        case FrameError::ControlTooLong:
            return "control frame longer than 125 bytes";
        case FrameError::FragmentedControl:
            return "fragmented control frame";
        case FrameError::UnexpectedContinuation:
            return "continuation frame with no message in progress";
        case FrameError::ExpectedContinuation:
            return "new data frame before the fragmented message ended";
        case FrameError::NonMinimalLength:
            return "payload length not in its shortest form";
        case FrameError::LengthTooLarge:
            return "payload length over 2^63 - 1";
        case FrameError::MessageTooBig:
            return "message longer than the maximum payload length";
    }
    return "unknown frame error";
}

std::size_t FrameParser::headerSize() const noexcept {
    const std::uint8_t lengthCode = header_[1] & kLengthBits;
    const std::size_t lengthBytes = lengthCode == kLength16 ? 2 : lengthCode == kLength64 ? 8 : 0;
    // An unmasked frame is refused on its first two bytes: its header is taken to end there.
    if ((header_[1] & kMasked) == 0) return 2;
    return 2 + lengthBytes + 4;
}

FrameError FrameParser::acceptHeader() noexcept {
    const std::uint8_t first = header_[0];
    const std::uint8_t second = header_[1];
    const std::uint8_t code = first & kOpcodeBits;
    // The order of the checks decides which error a frame breaking several rules gets; each is a 1002 but the
    // message too big, which is checked last, once the frame is known to be well formed.
    if ((second & kMasked) == 0) return FrameError::Unmasked;
    if (!isKnownOpcode(code)) return FrameError::ReservedOpcode;
    const auto opcode = static_cast<Opcode>(code);
    const bool fin = (first & kFin) != 0;
    const bool rsv1 = (first & kRsv1) != 0;
    if ((first & kRsv2And3) != 0) return FrameError::ReservedBits;
    // RSV1 marks a compressed message: set on its first frame only, never on control frames.
    if (rsv1 && (!rsv1Allowed_ || isControl(opcode) || opcode == Opcode::Continuation)) {
        return FrameError::ReservedBits;
    }

    std::uint64_t length = second & kLengthBits;
    std::size_t at = 2;
    if (length == kLength16) {
        length = static_cast<std::uint64_t>(header_[2]) << 8 | header_[3];
        if (length < kLength16) return FrameError::NonMinimalLength;
        at = 4;
    } else if (length == kLength64) {
        length = 0;
        for (std::size_t i = 2; i < 10; ++i)
            length = length << 8 | header_[i];
        if ((length >> 63) != 0) return FrameError::LengthTooLarge;
        if (length <= 0xFFFF) return FrameError::NonMinimalLength;
        at = 10;
    }
    std::memcpy(mask_, header_ + at, sizeof mask_);
    maskOffset_ = 0;

    if (isControl(opcode)) {
        if (!fin) return FrameError::FragmentedControl;
        if (length > kMaxControlPayloadBytes) return FrameError::ControlTooLong;
    } else if (opcode == Opcode::Continuation) {
        if (!inMessage()) return FrameError::UnexpectedContinuation;
        if (length > maxMessageBytes_ - messageBytes_) return FrameError::MessageTooBig;
        messageBytes_ += length;
    } else {
        if (inMessage()) return FrameError::ExpectedContinuation;
        if (length > maxMessageBytes_) return FrameError::MessageTooBig;
        messageOpcode_ = opcode;
        messageCompressed_ = rsv1;
        messageBytes_ = length;
    }
    current_ = FrameHeader{opcode, fin, rsv1, length};
    payloadLeft_ = length;
    return FrameError::None;
}

void FrameParser::endFrame() noexcept {
    if (current_.fin && !isControl(current_.opcode)) {
        messageOpcode_ = Opcode::Continuation;
        messageCompressed_ = false;
        messageBytes_ = 0;
    }
}

void FrameParser::unmask(char* data, std::size_t length) noexcept {
    ws::unmask(data, length, mask_, maskOffset_);
    maskOffset_ = static_cast<std::uint8_t>((maskOffset_ + length) & 3);
}

}  // namespace loopwire::ws
