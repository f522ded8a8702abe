#include "WsFrameParser.h"

namespace loopwire::lwload {

const char* wsFrameErrorName(WsFrameError error) noexcept {
    switch (error) {
        case WsFrameError::None:
            return "none";
        case WsFrameError::ReservedBits:
            return "reserved bits set";
        case WsFrameError::BadOpcode:
            return "reserved opcode";
        case WsFrameError::MaskedFrame:
            return "masked server frame";
        case WsFrameError::FragmentedControl:
            return "fragmented control frame";
        case WsFrameError::ControlTooLong:
            return "control frame over 125 bytes";
        case WsFrameError::NonMinimalLength:
            return "non-minimal payload length";
        case WsFrameError::LengthTooLarge:
            return "payload length over 2^63";
        case WsFrameError::MessageTooLarge:
            return "message too large";
        case WsFrameError::UnexpectedContinuation:
            return "continuation outside a message";
        case WsFrameError::ExpectedContinuation:
            return "data frame inside a fragmented message";
        case WsFrameError::BadClosePayload:
            return "close payload of 1 byte";
    }
    return "unknown";
}

void WsFrameParser::reset() noexcept {
    remaining_ = 0;
    messageBytes_ = 0;
    state_ = State::Header;
    opcode_ = WsOpcode::Binary;
    messageOpcode_ = WsOpcode::Binary;
    fin_ = false;
    inMessage_ = false;
    error_ = WsFrameError::None;
    headerHave_ = 0;
    headerNeed_ = 2;
    controlHave_ = 0;
}

WsFrameResult WsFrameParser::fail(WsFrameError error, std::size_t consumed) noexcept {
    error_ = error;
    state_ = State::Failed;
    return {WsFrameStatus::Error, error, consumed, {}, opcode_, false, false};
}

WsFrameError WsFrameParser::onHeader() noexcept {
    const std::uint8_t b0 = header_[0];
    const std::uint8_t b1 = header_[1];
    fin_ = (b0 & 0x80) != 0;
    const auto op = static_cast<std::uint8_t>(b0 & 0x0f);

    std::uint64_t length = b1 & 0x7f;
    if (length == 126) {
        length = (std::uint64_t{header_[2]} << 8) | header_[3];
        if (length < 126) return WsFrameError::NonMinimalLength;
    } else if (length == 127) {
        length = 0;
        for (int i = 2; i < 10; ++i)
            length = (length << 8) | header_[i];
        if (length >> 63) return WsFrameError::LengthTooLarge;
        if (length <= 0xffff) return WsFrameError::NonMinimalLength;
    }

    switch (op) {
        case 0:
            if (!inMessage_) return WsFrameError::UnexpectedContinuation;
            opcode_ = messageOpcode_;
            break;
        case 1:
        case 2:
            if (inMessage_) return WsFrameError::ExpectedContinuation;
            inMessage_ = true;
            messageBytes_ = 0;
            messageOpcode_ = static_cast<WsOpcode>(op);
            opcode_ = messageOpcode_;
            break;
        case 8:
        case 9:
        case 10:
            if (!fin_) return WsFrameError::FragmentedControl;
            if (length > 125) return WsFrameError::ControlTooLong;
            if (op == 8 && length == 1) return WsFrameError::BadClosePayload;
            opcode_ = static_cast<WsOpcode>(op);
            remaining_ = length;
            controlHave_ = 0;
            state_ = State::ControlPayload;
            return WsFrameError::None;
        default:
            return WsFrameError::BadOpcode;
    }
    if (length > maxMessageBytes_ - messageBytes_) return WsFrameError::MessageTooLarge;
    messageBytes_ += length;
    remaining_ = length;
    state_ = State::Payload;
    return WsFrameError::None;
}

WsFrameResult WsFrameParser::decode(std::string_view input) noexcept {
    std::size_t pos = 0;
    for (;;) {
        switch (state_) {
            case State::Failed:
                return {WsFrameStatus::Error, error_, 0, {}, opcode_, false, false};

            case State::Header: {
                while (headerHave_ < headerNeed_ && pos < input.size()) {
                    header_[headerHave_++] = static_cast<std::uint8_t>(input[pos++]);
                    if (headerHave_ == 2) {
                        // The first two bytes say how long the header is; check them before waiting for the rest.
                        if (header_[0] & 0x70) return fail(WsFrameError::ReservedBits, pos);
                        if (header_[1] & 0x80) return fail(WsFrameError::MaskedFrame, pos);
                        const std::uint8_t length7 = header_[1] & 0x7f;
                        headerNeed_ = static_cast<std::uint8_t>(2 + (length7 == 126 ? 2 : length7 == 127 ? 8 : 0));
                    }
                }
                if (headerHave_ < headerNeed_)
                    return {WsFrameStatus::NeedMore, WsFrameError::None, pos, {}, opcode_, false, false};
                headerHave_ = 0;
                headerNeed_ = 2;
                const WsFrameError error = onHeader();
                if (error != WsFrameError::None) return fail(error, pos);
                if (remaining_ == 0) {
                    // An empty frame: hand it over at once.
                    const bool data = state_ == State::Payload;
                    state_ = State::Header;
                    const bool messageEnd = data && fin_;
                    if (messageEnd) inMessage_ = false;
                    return {WsFrameStatus::Payload, WsFrameError::None, pos, {}, opcode_, true, messageEnd};
                }
                break;
            }

            case State::Payload: {
                if (pos == input.size())
                    return {WsFrameStatus::NeedMore, WsFrameError::None, pos, {}, opcode_, false, false};
                const std::size_t available = input.size() - pos;
                const std::size_t take = remaining_ < available ? static_cast<std::size_t>(remaining_) : available;
                const std::string_view piece = input.substr(pos, take);
                pos += take;
                remaining_ -= take;
                bool frameEnd = false;
                bool messageEnd = false;
                if (remaining_ == 0) {
                    state_ = State::Header;
                    frameEnd = true;
                    messageEnd = fin_;
                    if (fin_) inMessage_ = false;
                }
                return {WsFrameStatus::Payload, WsFrameError::None, pos, piece, opcode_, frameEnd, messageEnd};
            }

            case State::ControlPayload: {
                while (remaining_ > 0 && pos < input.size()) {
                    control_[controlHave_++] = input[pos++];
                    --remaining_;
                }
                if (remaining_ > 0)
                    return {WsFrameStatus::NeedMore, WsFrameError::None, pos, {}, opcode_, false, false};
                state_ = State::Header;
                return {WsFrameStatus::Payload,
                        WsFrameError::None,
                        pos,
                        std::string_view(control_, controlHave_),
                        opcode_,
                        true,
                        false};
            }
        }
    }
}

}  // namespace loopwire::lwload
