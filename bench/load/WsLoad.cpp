#include "WsLoad.h"

#include "Clock.h"
#include "LoadLimits.h"
#include "WsHandshake.h"

#include <cstring>

#include <sys/epoll.h>

namespace loopwire::lwload {

WsWorker::WsWorker(const WsWorkerConfig& config)
    : config_(config),
      plan_(config.plan),
      random_(config.seed),
      connections_(config.connections),
      recvBuffer_(new char[limits::kRecvBufferBytes]) {
    const std::uint64_t n = config_.messageBytes;
    prefixBytes_ = static_cast<std::size_t>(n < kCounterBytes ? n : kCounterBytes);
    // Text payloads are ASCII, so valid UTF-8 whatever the counter; binary ones use every byte value.
    pattern_.resize(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < pattern_.size(); ++i) {
        pattern_[i] = config_.text ? static_cast<std::uint8_t>('A' + i % 26) : static_cast<std::uint8_t>(i * 131 + 17);
    }
    const WsOpcode op = config_.text ? WsOpcode::Text : WsOpcode::Binary;
    for (Connection& c : connections_) {
        const std::uint64_t bits = random_.next();
        for (int i = 0; i < 4; ++i)
            c.ws.mask[i] = static_cast<std::uint8_t>(bits >> (8 * i));
        c.headerBytes = clientHeaderLength(n);
        c.frame.resize(c.headerBytes + pattern_.size());
        writeClientHeader(c.frame.data(), op, true, n, c.ws.mask);
        applyMask(c.frame.data() + c.headerBytes, pattern_.data(), pattern_.size(), c.ws.mask, 0);
    }
}

void WsWorker::run() {
    running_ = true;
    const std::int64_t start = monotonicNs();
    measuring_ = start >= plan_.measureStartNs;
    if (!epoll_.valid()) {
        ++stats_.errors.connect;
        endNs_ = start;
        return;
    }
    for (Connection& c : connections_)
        open(c, start);
    endNs_ = runWorkerLoop(*this, epoll_, plan_, measuring_);
    running_ = false;
    for (Connection& c : connections_)
        closeSocket(c);
}

void WsWorker::open(Connection& c, std::int64_t now) {
    const ConnectResult result = startConnect(*config_.target);
    if (result.fd < 0) {
        ++stats_.errors.connect;
        c.state = State::Closed;
        c.retryAtNs = now + limits::kReconnectBackoffNs;
        return;
    }
    c.fd = result.fd;
    c.sentNs = now;
    c.state = State::Connecting;
    const bool added = result.inProgress ? epoll_.add(c.fd, EPOLLOUT, &c) : epoll_.add(c.fd, EPOLLIN, &c);
    if (!added) {
        ++stats_.errors.connect;
        closeSocket(c);
        c.retryAtNs = now + limits::kReconnectBackoffNs;
        return;
    }
    c.wantWrite = result.inProgress;
    if (!result.inProgress) continueOpen(c, 0, now);
}

void WsWorker::continueOpen(Connection& c, std::uint32_t events, std::int64_t now) {
    driveOpen(
        c, events, now, config_.tls, epoll_, stats_, firstProtocolError_, [&] { startHandshake(c, now); },
        [&] { reopen(c, now, true); }, [&] { closeSocket(c); });
}

void WsWorker::closeSocket(Connection& c) {
    closeStream(c.fd, c.tls);
    ++c.generation;
    c.state = State::Closed;
    c.wantWrite = false;
    c.frameWriting = false;
    if (c.awaiting) --outstanding_;
    c.awaiting = false;
    c.ws.reset();
}

void WsWorker::reopen(Connection& c, std::int64_t now, bool backoff) {
    closeSocket(c);
    if (!running_) return;
    ++stats_.reconnects;
    if (backoff) {
        c.retryAtNs = now + limits::kReconnectBackoffNs;
        return;
    }
    open(c, now);
}

void WsWorker::startHandshake(Connection& c, std::int64_t now) {
    c.ws.startHandshake(random_, config_.path, config_.authority, config_.extraHeaders);
    c.state = State::Handshake;
    c.sentNs = now;
    flush(c, now);
}

void WsWorker::flush(Connection& c, std::int64_t now) {
    SendResult result = SendResult::Done;
    if (c.state == State::Handshake || c.state == State::Open) {
        result = c.ws.flush(c.fd, c.tls, c.state == State::Handshake, c.frame.data(), c.frame.size(), c.frameOffset,
                            c.frameWriting);
    }
    if (result == SendResult::Failed) {
        ++stats_.errors.write;
        reopen(c, now, true);
        return;
    }
    const bool want = result == SendResult::Blocked;
    if (want != c.wantWrite) {
        c.wantWrite = want;
        epoll_.modify(c.fd, want ? EPOLLIN | EPOLLOUT : EPOLLIN, &c);
    }
}

void WsWorker::sendMessage(Connection& c, std::int64_t now) {
    if (!running_) return;
    if (plan_.requestBudget != 0 && measuring_ && stats_.requests + outstanding_ >= plan_.requestBudget) {
        if (c.ws.controlWaiting()) flush(c, now);
        return;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    ++c.counter;
    for (std::size_t i = 0; i < prefixBytes_; ++i) {
        c.prefix[i] = static_cast<std::uint8_t>(kHex[(c.counter >> (4 * i)) & 15]);
        c.frame[c.headerBytes + i] = static_cast<std::uint8_t>(c.prefix[i] ^ c.ws.mask[i & 3]);
    }
    c.frameOffset = 0;
    c.frameWriting = true;
    c.awaiting = true;
    c.received = 0;
    c.mismatch = false;
    c.sentNs = now;
    ++outstanding_;
    flush(c, now);
}

void WsWorker::onEvent(void* data, std::uint32_t events, std::int64_t now) {
    Connection& c = *static_cast<Connection*>(data);
    if (c.state == State::Connecting) {
        continueOpen(c, events, now);
        return;
    }
    if (c.state == State::Closed) return;
    const std::uint32_t generation = c.generation;
    if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0) {
        onReadable(c);
        if (c.generation != generation) return;
    }
    if ((events & EPOLLOUT) != 0) flush(c, now);
}

void WsWorker::onReadable(Connection& c) {
    const std::uint32_t generation = c.generation;
    const ReadEnd end = readAvailable(c.fd, c.tls, recvBuffer_.get(), stats_, [&](std::string_view data) {
        const std::int64_t now = monotonicNs();
        const bool ok = c.state == State::Handshake ? onHandshakeData(c, data, now) : onFrameData(c, data, now);
        return ok && c.generation == generation;
    });
    if (end == ReadEnd::Drained) return;
    // The end of the connection without a close frame, or a reset: either way the server dropped it.
    if (end == ReadEnd::TlsFailed) {
        countTlsFailure(c.tls, stats_, firstProtocolError_);
    } else {
        ++stats_.errors.read;
    }
    reopen(c, monotonicNs(), true);
}

bool WsWorker::onHandshakeData(Connection& c, std::string_view data, std::int64_t now) {
    WsClientState::HeadRead head = c.ws.readHandshake(data);
    if (head.status == WsClientState::HeadRead::Status::NeedMore) return true;
    if (head.status == WsClientState::HeadRead::Status::TooLarge) {
        protocolError(c, "upgrade response head too large", now);
        return false;
    }
    if (head.result.error != HandshakeError::None) {
        countRefusedHandshake(head.result.error, stats_, firstProtocolError_);
        reopen(c, now, true);
        return false;
    }
    c.state = State::Open;
    // Frames the server sent right after its response (a ping, say) came with it.
    return onFrameData(c, head.rest, now);
}

void WsWorker::verifyPiece(Connection& c, std::string_view piece) noexcept {
    const std::size_t length = piece.size();
    if (!c.mismatch) {
        if (c.received + length > config_.messageBytes) {
            c.mismatch = true;
        } else {
            auto offset = static_cast<std::size_t>(c.received);
            const auto* p = reinterpret_cast<const std::uint8_t*>(piece.data());
            std::size_t left = length;
            for (; left > 0 && offset < prefixBytes_; --left, ++p, ++offset) {
                if (*p != c.prefix[offset]) c.mismatch = true;
            }
            if (left > 0 && std::memcmp(p, pattern_.data() + offset, left) != 0) c.mismatch = true;
        }
    }
    c.received += length;
}

bool WsWorker::onFrameData(Connection& c, std::string_view data, std::int64_t now) {
    const WsOpcode expected = config_.text ? WsOpcode::Text : WsOpcode::Binary;
    while (!data.empty()) {
        const WsFrameResult result = c.ws.parser.decode(data);
        if (result.status == WsFrameStatus::Error) {
            protocolError(c, wsFrameErrorName(result.error), now);
            return false;
        }
        data.remove_prefix(result.consumed);
        if (result.status == WsFrameStatus::NeedMore) break;
        switch (result.opcode) {
            case WsOpcode::Text:
            case WsOpcode::Binary:
                if (!c.awaiting) {
                    protocolError(c, "message received with no message outstanding", now);
                    return false;
                }
                if (result.opcode != expected) c.mismatch = true;
                verifyPiece(c, result.payload);
                if (result.messageEnd) {
                    c.awaiting = false;
                    --outstanding_;
                    if (c.mismatch || c.received != config_.messageBytes) {
                        ++stats_.errors.verify;
                    } else if (plan_.requestBudget == 0 || !measuring_ || stats_.requests < plan_.requestBudget) {
                        ++stats_.requests;
                        stats_.latency.record(static_cast<std::uint64_t>(now - c.sentNs));
                    }
                }
                break;
            case WsOpcode::Ping:
                c.ws.queueControl(WsOpcode::Pong, result.payload);
                break;
            case WsOpcode::Close: {
                // An echo server has no reason to close: count it, answer it if nothing is half-sent, and reconnect.
                ++stats_.errors.read;
                c.ws.replyToClose(c.fd, c.tls, result.payload, c.frameWriting);
                reopen(c, now, true);
                return false;
            }
            default:
                break;  // pongs
        }
    }
    const std::uint32_t generation = c.generation;
    if (!c.awaiting) {
        sendMessage(c, now);
    } else if (c.ws.controlWaiting()) {
        flush(c, now);
    }
    return c.generation == generation;
}

void WsWorker::protocolError(Connection& c, const char* what, std::int64_t now) {
    ++stats_.errors.protocol;
    if (firstProtocolError_ == nullptr) firstProtocolError_ = what;
    reopen(c, now, true);
}

void WsWorker::sweep(std::int64_t now) {
    for (Connection& c : connections_) {
        switch (c.state) {
            case State::Closed:
                if (running_ && now >= c.retryAtNs) open(c, now);
                break;
            case State::Connecting:
                if (now - c.sentNs > plan_.timeoutNs) {
                    ++stats_.errors.connect;
                    reopen(c, now, true);
                }
                break;
            case State::Handshake:
                if (now - c.sentNs > plan_.timeoutNs) {
                    ++stats_.errors.timeout;
                    reopen(c, now, true);
                }
                break;
            case State::Open:
                if (c.awaiting && now - c.sentNs > plan_.timeoutNs) {
                    ++stats_.errors.timeout;
                    reopen(c, now, false);
                }
                break;
        }
    }
}

}  // namespace loopwire::lwload
