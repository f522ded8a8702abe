#include "FanoutLoad.h"

#include "Clock.h"
#include "LoadLimits.h"
#include "WsHandshake.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <sys/epoll.h>

namespace loopwire::lwload {

namespace {

constexpr char kHex[] = "0123456789abcdef";
// socket.io: the event packet around each message's text, and the packets a connection answers.
constexpr std::string_view kEventPrefix = "42[\"m\",\"";
constexpr std::string_view kEventSuffix = "\"]";
constexpr std::string_view kConnectPacket = "40";
constexpr std::string_view kPongPacket = "3";

bool decodeCounter(const std::uint8_t (&digits)[FanoutWorker::kCounterBytes], std::uint64_t& out) noexcept {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < FanoutWorker::kCounterBytes; ++i) {
        const std::uint8_t d = digits[i];
        std::uint64_t nibble = 0;
        if (d >= '0' && d <= '9') {
            nibble = d - '0';
        } else if (d >= 'a' && d <= 'f') {
            nibble = d - 'a' + 10;
        } else {
            return false;
        }
        value |= nibble << (4 * i);
    }
    out = value;
    return true;
}

}  // namespace

std::string fanoutRolePath(std::string_view path, std::string_view role) {
    std::string out(path);
    out.append(path.find('?') == std::string_view::npos ? "?" : "&").append("role=").append(role);
    return out;
}

FanoutWorker::FanoutWorker(const FanoutWorkerConfig& config)
    : config_(config),
      plan_(config.plan),
      random_(config.seed),
      subscribers_(config.subscribers),
      window_(config.window),
      recvBuffer_(new char[limits::kRecvBufferBytes]) {
    const auto bytes = static_cast<std::size_t>(config_.messageBytes);
    if (config_.socketIo) {
        counterOffset_ = kEventPrefix.size();
        pattern_.assign(kEventPrefix.begin(), kEventPrefix.end());
    }
    for (std::size_t i = 0; i < bytes; ++i) {
        pattern_.push_back(config_.text ? static_cast<std::uint8_t>('A' + i % 26)
                                        : static_cast<std::uint8_t>(i * 131 + 17));
    }
    if (config_.socketIo) pattern_.insert(pattern_.end(), kEventSuffix.begin(), kEventSuffix.end());
    const std::uint64_t n = pattern_.size();
    auto pickMask = [this](Connection& c) {
        const std::uint64_t bits = random_.next();
        for (int i = 0; i < 4; ++i)
            c.ws.mask[i] = static_cast<std::uint8_t>(bits >> (8 * i));
    };
    publisher_.publisher = true;
    pickMask(publisher_);
    for (std::size_t i = 0; i < subscribers_.size(); ++i) {
        pickMask(subscribers_[i]);
        subscribers_[i].split = i % 2 == 1;
    }
    closed_ = static_cast<std::uint32_t>(subscribers_.size()) + 1;
    headerBytes_ = clientHeaderLength(n);
    frame_.resize(headerBytes_ + pattern_.size());
    writeClientHeader(frame_.data(), config_.text ? WsOpcode::Text : WsOpcode::Binary, true, n, publisher_.ws.mask);
    applyMask(frame_.data() + headerBytes_, pattern_.data(), pattern_.size(), publisher_.ws.mask, 0);
}

void FanoutWorker::run() {
    running_ = true;
    const std::int64_t start = monotonicNs();
    // Nothing is measured until the publisher starts (progress() places the measured time then); until that
    // moment the run may last its planned time plus the time the subscribers are allowed to take to join.
    plan_.measureStartNs = std::numeric_limits<std::int64_t>::max();
    plan_.deadlineNs = config_.plan.deadlineNs + limits::kMaxFanoutJoinNs;
    measuring_ = false;
    if (!epoll_.valid()) {
        ++stats_.errors.connect;
        endNs_ = start;
        return;
    }
    openDue(start);
    endNs_ = runWorkerLoop(*this, epoll_, plan_, measuring_);
    running_ = false;
    closeSocket(publisher_);
    for (Connection& c : subscribers_)
        closeSocket(c);
}

FanoutWorker::Connection& FanoutWorker::connectionAt(std::size_t index) noexcept {
    return index == 0 ? publisher_ : subscribers_[index - 1];
}

void FanoutWorker::setState(Connection& c, State state) noexcept {
    auto count = [this](State s, int delta) {
        if (s == State::Closed) {
            closed_ += static_cast<std::uint32_t>(delta);
        } else if (s != State::Open) {
            joining_ += static_cast<std::uint32_t>(delta);
        }
    };
    count(c.state, -1);
    count(state, +1);
    c.state = state;
}

void FanoutWorker::openDue(std::int64_t now) {
    // A thousand connections opened at once overflow a server's accept queue, and TCP retries the dropped ones
    // only a second later, so at most kMaxJoiningConnections connect and handshake at a time.
    const std::size_t total = subscribers_.size() + 1;
    for (std::size_t scanned = 0;
         scanned < total && running_ && closed_ > 0 && joining_ < limits::kMaxJoiningConnections; ++scanned) {
        Connection& c = connectionAt(openCursor_);
        openCursor_ = (openCursor_ + 1) % total;
        if (c.state == State::Closed && now >= c.retryAtNs) open(c, now);
    }
}

void FanoutWorker::open(Connection& c, std::int64_t now) {
    const ConnectResult result =
        startConnect(c.split && config_.splitTarget != nullptr ? *config_.splitTarget : *config_.target);
    if (result.fd < 0) {
        ++stats_.errors.connect;
        c.retryAtNs = now + limits::kReconnectBackoffNs;
        return;
    }
    c.fd = result.fd;
    c.sinceNs = now;
    setState(c, State::Connecting);
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

void FanoutWorker::continueOpen(Connection& c, std::uint32_t events, std::int64_t now) {
    driveOpen(
        c, events, now, config_.tls, epoll_, stats_, firstProtocolError_, [&] { startHandshake(c, now); },
        [&] { reopen(c, now, true); }, [&] { closeSocket(c); });
}

void FanoutWorker::closeSocket(Connection& c) {
    closeStream(c.fd, c.tls);
    ++c.generation;
    if (c.publisher) {
        // What happens to the messages in flight is unknown: they are written off, and any that still arrive are
        // published before every subscriber's new firstCounted, so they are ignored.
        frameWriting_ = false;
        for (Slot& slot : window_)
            slot.remaining = 0;
        outstanding_ = 0;
        completed_ = lastSent_;
        for (Connection& s : subscribers_) {
            if (s.member) s.firstCounted = s.next = lastSent_ + 1;
        }
    } else if (c.member) {
        for (; c.next <= lastSent_; ++c.next)
            settle(c.next);
        c.member = false;
        --members_;
    } else if (joined(c)) {
        --pending_;
    }
    setState(c, State::Closed);
    c.wantWrite = false;
    c.mismatch = false;
    c.connected = false;
    c.packetHeadBytes = 0;
    c.received = 0;
    c.stamp = {};
    c.ws.reset();
}

void FanoutWorker::reopen(Connection& c, std::int64_t now, bool backoff) {
    closeSocket(c);
    if (!running_) return;
    ++stats_.reconnects;
    c.retryAtNs = backoff ? now + limits::kReconnectBackoffNs : now;
}

void FanoutWorker::startHandshake(Connection& c, std::int64_t now) {
    c.ws.startHandshake(random_, c.publisher ? config_.publisherPath : config_.subscriberPath, config_.authority,
                        config_.extraHeaders);
    setState(c, State::Handshake);
    c.sinceNs = now;
    flush(c, now);
}

void FanoutWorker::flush(Connection& c, std::int64_t now) {
    SendResult result = SendResult::Done;
    if (c.state == State::Handshake || c.state == State::Open) {
        // Only the publisher has a message frame; a subscriber sends control frames alone.
        bool noFrame = false;
        result = c.ws.flush(c.fd, c.tls, c.state == State::Handshake, frame_.data(), frame_.size(), frameOffset_,
                            c.publisher ? frameWriting_ : noFrame);
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

void FanoutWorker::onEvent(void* data, std::uint32_t events, std::int64_t now) {
    Connection& c = *static_cast<Connection*>(data);
    if (c.state == State::Connecting) {
        continueOpen(c, events, now);
    } else if (c.state != State::Closed) {
        const std::uint32_t generation = c.generation;
        if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0) onReadable(c);
        if (c.generation == generation && (events & EPOLLOUT) != 0) flush(c, now);
    }
    progress(now);
}

void FanoutWorker::onReadable(Connection& c) {
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

bool FanoutWorker::onHandshakeData(Connection& c, std::string_view data, std::int64_t now) {
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
    setState(c, State::Open);
    if (!c.publisher && !config_.socketIo) ++pending_;  // with socket.io, once connected to the namespace
    // Frames the server sent right after its response (a ping, say) came with it.
    return onFrameData(c, head.rest, now);
}

std::string_view FanoutWorker::takeStamp(Connection& c, std::string_view piece) noexcept {
    std::size_t i = 0;
    for (; i < piece.size() && c.stamp.colons < 2; ++i) {
        if (c.stamp.bytes == kMaxStampBytes) {
            c.mismatch = true;  // no stamp: the rest is taken as one, and the message fails
        } else {
            ++c.stamp.bytes;
        }
        const char byte = piece[i];
        if (byte == ':') {
            ++c.stamp.colons;
        } else if (c.stamp.colons == 1) {
            if (byte < '0' || byte > '9') {
                c.mismatch = true;
            } else {
                c.stamp.offset = c.stamp.offset * 10 + static_cast<std::uint64_t>(byte - '0');
            }
        }
    }
    return piece.substr(i);
}

void FanoutWorker::verifyPiece(Connection& c, std::string_view piece) noexcept {
    if (config_.stamped && c.stamp.colons < 2) piece = takeStamp(c, piece);
    const auto* p = reinterpret_cast<const std::uint8_t*>(piece.data());
    std::size_t left = piece.size();
    if (c.received + left > pattern_.size()) c.mismatch = true;
    auto offset = static_cast<std::size_t>(c.received);
    c.received += left;
    const std::size_t counterEnd = counterOffset_ + kCounterBytes;
    while (left > 0 && offset < pattern_.size()) {
        if (offset >= counterOffset_ && offset < counterEnd) {
            c.counter[offset - counterOffset_] = *p;
            ++p;
            ++offset;
            --left;
            continue;
        }
        // The bytes up to the counter, or from it to the end, compared at once.
        const std::size_t run = std::min(left, (offset < counterOffset_ ? counterOffset_ : pattern_.size()) - offset);
        if (!c.mismatch && std::memcmp(p, pattern_.data() + offset, run) != 0) c.mismatch = true;
        p += run;
        offset += run;
        left -= run;
    }
}

void FanoutWorker::onMessage(Connection& c, std::int64_t now) {
    bool intact = !c.mismatch && c.received == pattern_.size();
    if (config_.stamped) {
        intact = intact && c.stamp.colons == 2 && c.stamp.offset > c.lastStampOffset;
        c.lastStampOffset = c.stamp.offset;
        c.stamp = {};
    }
    std::uint64_t counter = 0;
    const bool known = c.received >= counterOffset_ + kCounterBytes && decodeCounter(c.counter, counter);
    c.received = 0;
    c.mismatch = false;
    if (!c.member) return;                          // published before it joined
    if (known && counter < c.firstCounted) return;  // likewise
    if (known && counter < c.next) {                // a duplicate
        ++stats_.errors.verify;
        return;
    }
    if (c.next > lastSent_) {  // nothing is owed to it
        ++stats_.errors.verify;
        return;
    }
    // A message whose counter is unreadable, or not one published, stands for the one owed; the ones a later
    // counter skipped are lost.
    const std::uint64_t which = known && counter <= lastSent_ ? counter : c.next;
    for (; c.next < which; ++c.next) {
        ++stats_.errors.verify;
        settle(c.next);
    }
    if (intact && known && counter == which) {
        if (plan_.requestBudget == 0 || !measuring_ || stats_.requests < plan_.requestBudget) {
            ++stats_.requests;
            stats_.latency.record(static_cast<std::uint64_t>(now - window_[which % window_.size()].sentNs));
        }
    } else {
        ++stats_.errors.verify;
    }
    settle(which);
    ++c.next;
}

void FanoutWorker::settle(std::uint64_t counter) noexcept {
    Slot& slot = window_[counter % window_.size()];
    if (slot.counter != counter || slot.remaining == 0) return;  // written off with the publisher
    --slot.remaining;
    --outstanding_;
    // Every member receives the messages in order, so they complete in order.
    while (completed_ < lastSent_ && window_[(completed_ + 1) % window_.size()].remaining == 0)
        ++completed_;
}

bool FanoutWorker::onFrameData(Connection& c, std::string_view data, std::int64_t now) {
    const WsOpcode expected = config_.text ? WsOpcode::Text : WsOpcode::Binary;
    const std::uint32_t generation = c.generation;
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
                if (config_.socketIo) {
                    for (std::size_t i = 0; i < result.payload.size() && c.packetHeadBytes < 2; ++i)
                        c.packetHead[c.packetHeadBytes++] = static_cast<std::uint8_t>(result.payload[i]);
                    if (!result.messageEnd) {
                        if (!c.publisher) verifyPiece(c, result.payload);
                        break;
                    }
                    const bool event = c.packetHeadBytes == 2 && c.packetHead[0] == '4' && c.packetHead[1] == '2';
                    c.packetHeadBytes = 0;
                    if (!event) {
                        c.received = 0;
                        c.mismatch = false;
                        if (!onSocketIoPacket(c, now)) return false;
                        break;
                    }
                }
                if (c.publisher) {
                    protocolError(c, "the publisher received a message", now);
                    return false;
                }
                if (result.opcode != expected) c.mismatch = true;
                verifyPiece(c, result.payload);
                if (result.messageEnd) onMessage(c, now);
                break;
            case WsOpcode::Ping:
                c.ws.queueControl(WsOpcode::Pong, result.payload);
                break;
            case WsOpcode::Close: {
                // A fan-out server has no reason to close: count it, answer it if nothing is half-sent, reconnect.
                ++stats_.errors.read;
                c.ws.replyToClose(c.fd, c.tls, result.payload, c.publisher && frameWriting_);
                reopen(c, now, true);
                return false;
            }
            default:
                break;  // pongs
        }
    }
    if (c.ws.controlWaiting()) flush(c, now);
    return c.generation == generation;
}

bool FanoutWorker::onSocketIoPacket(Connection& c, std::int64_t now) {
    switch (c.packetHead[0]) {
        case '0':  // engine.io's open: connect to the main namespace
            c.ws.queueControl(WsOpcode::Text, kConnectPacket);
            return true;
        case '2':  // engine.io's ping
            c.ws.queueControl(WsOpcode::Text, kPongPacket);
            return true;
        case '4':
            if (c.packetHead[1] == '0' && !c.connected) {
                c.connected = true;
                if (!c.publisher) ++pending_;
                return true;
            }
            if (c.packetHead[1] == '4') {
                protocolError(c, "socket.io refused the namespace connect", now);
                return false;
            }
            return true;
        case '1':  // engine.io's close
            ++stats_.errors.read;
            reopen(c, now, true);
            return false;
        default:
            return true;
    }
}

void FanoutWorker::protocolError(Connection& c, const char* what, std::int64_t now) {
    ++stats_.errors.protocol;
    if (firstProtocolError_ == nullptr) firstProtocolError_ = what;
    reopen(c, now, true);
}

void FanoutWorker::progress(std::int64_t now) {
    if (!running_) return;
    if (closed_ > 0) openDue(now);
    admitPending();
    if (!started_) {
        if (members_ < subscribers_.size() || !joined(publisher_)) return;
        if (config_.settleNs > 0) {
            // Checked again by every sweep, so the wait ends within kSweepIntervalNs of its end.
            if (settleUntilNs_ == 0) settleUntilNs_ = now + config_.settleNs;
            if (now < settleUntilNs_) return;
        }
        started_ = true;
        const RunPlan& planned = config_.plan;
        if (now >= planned.measureStartNs) {
            // Measuring from now, without the loop's reset, so that errors met while joining stay counted; the
            // bytes of the handshakes are not what bytes_read is for.
            plan_.measureStartNs = now;
            measuring_ = true;
            stats_.bytesRead = 0;
        } else {
            plan_.measureStartNs = planned.measureStartNs;
        }
        plan_.deadlineNs = plan_.measureStartNs + (planned.deadlineNs - planned.measureStartNs);
    }
    publish(now);
}

void FanoutWorker::admitPending() {
    if (pending_ == 0 || completed_ != lastSent_) return;
    for (Connection& c : subscribers_) {
        if (!joined(c) || c.member) continue;
        c.member = true;
        c.firstCounted = c.next = lastSent_ + 1;
        ++members_;
    }
    pending_ = 0;
}

void FanoutWorker::publish(std::int64_t now) {
    const std::uint64_t window = window_.size();
    while (started_ && joined(publisher_) && !frameWriting_ && members_ == subscribers_.size() &&
           lastSent_ - completed_ < window) {
        if (plan_.requestBudget != 0 && measuring_ && stats_.requests + outstanding_ >= plan_.requestBudget) return;
        const std::uint64_t counter = ++lastSent_;
        window_[counter % window] = Slot{counter, members_, now};
        outstanding_ += members_;
        for (std::size_t i = 0; i < kCounterBytes; ++i) {
            const auto digit = static_cast<std::uint8_t>(kHex[(counter >> (4 * i)) & 15]);
            const std::size_t at = counterOffset_ + i;
            frame_[headerBytes_ + at] = static_cast<std::uint8_t>(digit ^ publisher_.ws.mask[at & 3]);
        }
        frameOffset_ = 0;
        frameWriting_ = true;
        flush(publisher_, now);
    }
}

void FanoutWorker::sweep(std::int64_t now) {
    for (std::size_t i = 0; i <= subscribers_.size(); ++i) {
        Connection& c = connectionAt(i);
        switch (c.state) {
            case State::Closed:
                break;  // progress() opens what is due
            case State::Connecting:
                if (now - c.sinceNs > plan_.timeoutNs) {
                    ++stats_.errors.connect;
                    reopen(c, now, true);
                }
                break;
            case State::Handshake:
                if (now - c.sinceNs > plan_.timeoutNs) {
                    ++stats_.errors.timeout;
                    reopen(c, now, true);
                }
                break;
            case State::Open:
                if (!joined(c) && now - c.sinceNs > plan_.timeoutNs) {  // socket.io: never connected
                    ++stats_.errors.timeout;
                    reopen(c, now, true);
                    break;
                }
                if (c.member && c.next <= lastSent_ &&
                    now - window_[c.next % window_.size()].sentNs > plan_.timeoutNs) {
                    ++stats_.errors.timeout;
                    reopen(c, now, false);
                }
                break;
        }
    }
    progress(now);
}

}  // namespace loopwire::lwload
