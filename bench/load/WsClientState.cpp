#include "WsClientState.h"

namespace loopwire::lwload {

void countRefusedHandshake(HandshakeError error, RunStats& stats, const char*& firstProtocolError) noexcept {
    if (error == HandshakeError::NotSwitching) {
        ++stats.non2xx;
    } else {
        ++stats.errors.protocol;
    }
    if (firstProtocolError == nullptr) firstProtocolError = handshakeErrorName(error);
}

void WsClientState::reset() noexcept {
    controlOffset = 0;
    controlLength = 0;
    controlTried = false;
    handshakeOut.clear();
    handshakeIn.clear();
    parser.reset();
}

void WsClientState::startHandshake(Random& random, std::string_view path, std::string_view authority,
                                   std::string_view extraHeaders) {
    std::uint8_t nonce[16];
    const std::uint64_t a = random.next();
    const std::uint64_t b = random.next();
    for (int i = 0; i < 8; ++i) {
        nonce[i] = static_cast<std::uint8_t>(a >> (8 * i));
        nonce[8 + i] = static_cast<std::uint8_t>(b >> (8 * i));
    }
    const std::string key = makeKey(nonce);
    expectedAccept = computeAccept(key);
    handshakeOut = buildUpgradeRequest(path, authority, key, extraHeaders);
    handshakeOffset = 0;
    handshakeIn.clear();
}

WsClientState::HeadRead WsClientState::readHandshake(std::string_view data) {
    HeadRead read;
    const std::size_t searchFrom = handshakeIn.size() >= 3 ? handshakeIn.size() - 3 : 0;
    handshakeIn.append(data);
    const std::size_t end = handshakeIn.find("\r\n\r\n", searchFrom);
    if (end == std::string::npos) {
        if (handshakeIn.size() > limits::kMaxHandshakeBytes) read.status = HeadRead::Status::TooLarge;
        return read;
    }
    const std::size_t headBytes = end + 4;
    read.status = HeadRead::Status::Complete;
    read.result = validateUpgradeResponse(std::string_view(handshakeIn).substr(0, headBytes), expectedAccept);
    read.rest = handshakeIn.substr(headBytes);
    handshakeIn.clear();
    handshakeOut.clear();
    return read;
}

void WsClientState::queueControl(WsOpcode op, std::string_view payload) noexcept {
    if (controlStarted()) return;
    controlOffset = 0;
    controlTried = false;
    controlLength = writeClientControlFrame(control, op, payload, mask);
}

SendResult WsClientState::flush(int fd, TlsSession& tls, bool handshaking, const std::uint8_t* frame,
                                std::size_t frameSize, std::size_t& frameOffset, bool& frameWriting) noexcept {
    if (handshaking) {
        return sendSome(fd, tls, reinterpret_cast<const std::uint8_t*>(handshakeOut.data()), handshakeOut.size(),
                        handshakeOffset);
    }
    SendResult result = SendResult::Done;
    for (;;) {
        // Frames never interleave: a control frame begun is finished before the message frame resumes.
        if (!controlStarted() && frameWriting) {
            result = sendSome(fd, tls, frame, frameSize, frameOffset);
            if (result == SendResult::Done) frameWriting = false;
        } else if (controlWaiting()) {
            result = sendSome(fd, tls, control, controlLength, controlOffset);
            controlTried = result != SendResult::Done;
            if (result == SendResult::Done) controlOffset = controlLength = 0;
        } else {
            break;
        }
        if (result != SendResult::Done) break;
    }
    return result;
}

void WsClientState::replyToClose(int fd, TlsSession& tls, std::string_view payload, bool frameBusy) const noexcept {
    if (frameBusy || controlWaiting()) return;
    std::uint8_t reply[kMaxControlFrameBytes];
    const std::size_t n = writeClientControlFrame(reply, WsOpcode::Close, payload.substr(0, 2), mask);
    std::size_t sent = 0;
    sendSome(fd, tls, reply, n, sent);
}

}  // namespace loopwire::lwload
