#include "HttpLoad.h"

#include "Clock.h"
#include "LoadLimits.h"
#include "Stream.h"

#include <sys/epoll.h>

namespace loopwire::lwload {

HttpWorker::HttpWorker(const HttpWorkerConfig& config)
    : config_(config),
      plan_(config.plan),
      connections_(config.connections),
      recvBuffer_(new char[limits::kRecvBufferBytes]) {
    for (Connection& c : connections_)
        c.parser.setHeadRequest(config.headRequest);
}

void HttpWorker::run() {
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

void HttpWorker::open(Connection& c, std::int64_t now) {
    const ConnectResult result = startConnect(*config_.target);
    if (result.fd < 0) {
        ++stats_.errors.connect;
        c.state = State::Closed;
        c.retryAtNs = now + limits::kReconnectBackoffNs;
        return;
    }
    c.fd = result.fd;
    c.sentNs = now;
    c.openedNs = now;
    c.state = State::Connecting;
    c.wantWrite = result.inProgress;
    if (!epoll_.add(c.fd, result.inProgress ? EPOLLOUT : EPOLLIN, &c)) {
        ++stats_.errors.connect;
        closeSocket(c);
        c.retryAtNs = now + limits::kReconnectBackoffNs;
        return;
    }
    if (!result.inProgress) continueOpen(c, 0, now);
}

void HttpWorker::continueOpen(Connection& c, std::uint32_t events, std::int64_t now) {
    driveOpen(
        c, events, now, config_.tls, epoll_, stats_, firstProtocolError_, [&] { onConnected(c, now); },
        [&] { reopen(c, now, true); }, [&] { closeSocket(c); });
}

void HttpWorker::onConnected(Connection& c, std::int64_t now) {
    c.state = State::Open;
    issue(c, now);
}

void HttpWorker::closeSocket(Connection& c) {
    closeStream(c.fd, c.tls);
    ++c.generation;
    c.state = State::Closed;
    c.wantWrite = false;
    outstanding_ -= c.pending;
    c.pending = 0;
    c.writeOffset = 0;
    c.writeLength = 0;
    c.parser.reset();
}

void HttpWorker::reopen(Connection& c, std::int64_t now, bool backoff) {
    closeSocket(c);
    if (!running_) return;
    ++stats_.reconnects;
    if (backoff) {
        c.retryAtNs = now + limits::kReconnectBackoffNs;
        return;
    }
    open(c, now);
}

void HttpWorker::startOver(Connection& c, std::int64_t now) {
    // --reconnect: the connection has done its work. Not counted in reconnects, which are the reopenings that the
    // server or an error caused.
    closeSocket(c);
    if (running_) open(c, now);
}

void HttpWorker::issue(Connection& c, std::int64_t now) {
    std::uint32_t count = config_.pipeline;
    if (plan_.requestBudget != 0 && measuring_) {
        const std::uint64_t used = stats_.requests + outstanding_;
        if (used >= plan_.requestBudget) return;
        if (plan_.requestBudget - used < count) count = static_cast<std::uint32_t>(plan_.requestBudget - used);
    }
    c.pending = count;
    outstanding_ += count;
    c.writeOffset = 0;
    c.writeLength = count * config_.requestBytes;
    c.sentNs = now;
    flush(c, now);
}

void HttpWorker::flush(Connection& c, std::int64_t now) {
    const auto* batch = reinterpret_cast<const std::uint8_t*>(config_.requestBatch.data());
    const SendResult result = sendSome(c.fd, c.tls, batch, c.writeLength, c.writeOffset);
    if (result == SendResult::Failed) {
        ++stats_.errors.write;
        reopen(c, now, true);  // with a pause, so that a peer that resets every connection cannot spin us
        return;
    }
    const bool want = result == SendResult::Blocked;
    if (want != c.wantWrite) {
        c.wantWrite = want;
        epoll_.modify(c.fd, want ? EPOLLIN | EPOLLOUT : EPOLLIN, &c);
    }
}

void HttpWorker::onEvent(void* data, std::uint32_t events, std::int64_t now) {
    Connection& c = *static_cast<Connection*>(data);
    if (c.state == State::Connecting) {
        continueOpen(c, events, now);
        return;
    }
    if (c.state != State::Open) return;
    const std::uint32_t generation = c.generation;
    if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0) {
        onReadable(c);
        if (c.generation != generation) return;
    }
    if ((events & EPOLLOUT) != 0) flush(c, now);
}

void HttpWorker::onReadable(Connection& c) {
    const std::uint32_t generation = c.generation;
    const ReadEnd end = readAvailable(c.fd, c.tls, recvBuffer_.get(), stats_, [&](std::string_view data) {
        return onData(c, data, monotonicNs()) && c.generation == generation;
    });
    switch (end) {
        case ReadEnd::Drained:
            return;
        case ReadEnd::Closed:
            onEof(c, monotonicNs());
            return;
        case ReadEnd::Failed:
            ++stats_.errors.read;
            break;
        case ReadEnd::TlsFailed:
            countTlsFailure(c.tls, stats_, firstProtocolError_);
            break;
    }
    reopen(c, monotonicNs(), true);
}

bool HttpWorker::onData(Connection& c, std::string_view data, std::int64_t now) {
    while (!data.empty()) {
        if (c.pending == 0) {
            protocolError(c, "bytes received with no request outstanding", now);
            return false;
        }
        const ResponseResult result = c.parser.feed(data);
        if (result.status == ResponseStatus::Error) {
            protocolError(c, responseErrorName(result.error), now);
            return false;
        }
        data.remove_prefix(result.consumed);
        if (result.status == ResponseStatus::NeedMore) break;
        const bool keepAlive = c.parser.keepAlive();
        countResponse(c, now);
        if (!keepAlive) {
            // The server closes after this response; requests pipelined behind it are not answered.
            if (config_.reconnect) {
                startOver(c, now);
            } else {
                reopen(c, now, false);
            }
            return false;
        }
    }
    if (c.pending == 0) {
        if (config_.reconnect) {
            startOver(c, now);
            return false;
        }
        issue(c, now);
    }
    return true;
}

void HttpWorker::countResponse(Connection& c, std::int64_t now) {
    const int status = c.parser.statusCode();
    c.parser.reset();
    --c.pending;
    --outstanding_;
    if (plan_.requestBudget != 0 && measuring_ && stats_.requests >= plan_.requestBudget) return;
    ++stats_.requests;
    if (status < 200 || status > 299) ++stats_.non2xx;
    // With --reconnect, from the connect: the TCP and TLS handshakes are part of what each request costs.
    const std::int64_t since = config_.reconnect ? c.openedNs : c.sentNs;
    stats_.latency.record(static_cast<std::uint64_t>(now - since));
}

void HttpWorker::onEof(Connection& c, std::int64_t now) {
    const ResponseResult result = c.parser.finish();
    if (result.status == ResponseStatus::Complete) {
        countResponse(c, now);  // a body delimited by the end of the connection
        reopen(c, now, false);
        return;
    }
    if (result.status == ResponseStatus::Error || c.pending > 0) {
        ++stats_.errors.read;  // closed inside a response, or with requests unanswered
        reopen(c, now, true);
        return;
    }
    reopen(c, now, false);  // closed between responses with nothing outstanding: not an error
}

void HttpWorker::protocolError(Connection& c, const char* what, std::int64_t now) {
    ++stats_.errors.protocol;
    if (firstProtocolError_ == nullptr) firstProtocolError_ = what;
    reopen(c, now, true);
}

void HttpWorker::sweep(std::int64_t now) {
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
            case State::Open:
                if (c.pending > 0 && now - c.sentNs > plan_.timeoutNs) {
                    ++stats_.errors.timeout;
                    reopen(c, now, false);
                }
                break;
        }
    }
}

}  // namespace loopwire::lwload
