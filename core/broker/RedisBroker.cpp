#include "RedisBroker.h"

#include "base/Check.h"
#include "broker/BrokerEnvelope.h"
#include "broker/RedisClusterBroker.h"
#include "broker/RedisHistory.h"
#include "broker/RedisRedirection.h"
#include "broker/RedisSlot.h"
#include "broker/RespReader.h"
#include "broker/RespWriter.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <openssl/evp.h>
#include <random>
#include <thread>

namespace loopwire {

std::string_view nameOf(PubSubState state) noexcept {
    switch (state) {
        case PubSubState::Connecting:
            return "connecting";
        case PubSubState::Ready:
            return "ready";
        case PubSubState::Disconnected:
            return "disconnected";
        case PubSubState::Closed:
            return "closed";
    }
    return "closed";
}

std::unique_ptr<PubSubBroker> createBroker(Loop& loop, const PubSubOptions& options, PubSubBrokerListener& listener,
                                           std::string& error) {
    broker::BrokerUrl url;
    error = url.parse(options.url);
    if (!error.empty()) return nullptr;
    if (options.reconnectMinDelayMs == 0 || options.reconnectMaxDelayMs < options.reconnectMinDelayMs) {
        error = "reconnectMinDelayMs must be at least 1 and at most reconnectMaxDelayMs";
        return nullptr;
    }
    if (options.connectTimeoutMs == 0 || options.pingIntervalMs == 0) {
        error = "connectTimeoutMs and pingIntervalMs must be at least 1";
        return nullptr;
    }
    if (options.history.size > PubSubHistoryOptions::kMaxSize ||
        options.history.ttlSeconds > PubSubHistoryOptions::kMaxTtlSeconds) {
        error = "history.size must be at most 1000000 and history.ttlSeconds at most one year";
        return nullptr;
    }
    if (options.sharded) {
        auto cluster = std::make_unique<broker::RedisClusterBroker>(loop, std::move(url), options, listener);
        cluster->start();
        return cluster;
    }
    auto link = std::make_unique<broker::RedisBroker>(
        loop, std::move(url), options, listener, broker::RedisBroker::newOrigin(), broker::RedisBroker::newEpoch());
    link->start();
    return link;
}

namespace broker {

// A name lookup in flight on its own thread. getaddrinfo blocks, so it never runs on the loop; the thread hands
// the result back with Loop::defer. The broker may end first: it then clears `loop` (under the mutex, so the
// thread never defers onto a loop that is going away) and sets `cancelled`, which the deferred task reads on the
// loop thread before it touches the broker.
struct ResolveRequest {
    std::mutex mutex;
    Loop* loop = nullptr;
    bool cancelled = false;
    int error = 0;
    sockaddr_storage address{};
    socklen_t length = 0;
};

namespace {

std::string errnoCode(int error) {
    const char* name = ::strerrorname_np(error);
    return name != nullptr ? name : "EIO";
}

// The first word of an error reply ("WRONGPASS invalid username-password pair"): Redis's error code.
std::string_view errorCode(std::string_view text) noexcept { return text.substr(0, text.find(' ')); }

// Lower-case hex of bytes, a byte's high digit first.
std::string hexOf(const unsigned char* bytes, std::size_t count) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (std::size_t i = 0; i < count; ++i) {
        hex += kHex[bytes[i] >> 4];
        hex += kHex[bytes[i] & 15];
    }
    return hex;
}

// The SHA-1 of a script, in hex, as EVALSHA names it.
std::string scriptSha(std::string_view script) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_Digest(script.data(), script.size(), digest, &length, EVP_sha1(), nullptr);
    return hexOf(digest, length);
}

const std::string& publishScriptSha() {
    static const std::string sha = scriptSha(RedisHistory::publishScript());
    return sha;
}

const std::string& readScriptSha() {
    static const std::string sha = scriptSha(RedisHistory::readScript());
    return sha;
}

// PUBLISH, SPUBLISH, or the history's publish script.
bool startsWithPublish(std::string_view command) noexcept {
    resp::RespReader reader(command);
    resp::RespValue array;
    resp::RespValue name;
    if (!reader.next(array) || array.type != resp::RespType::Array) return false;
    resp::RespReader arguments = array.elements();
    if (!arguments.next(name)) return false;
    if (name.text == "PUBLISH" || name.text == "SPUBLISH") return true;
    resp::RespValue sha;
    return name.text == "EVALSHA" && arguments.next(sha) && sha.text == publishScriptSha();
}

}  // namespace

RedisBroker::RedisBroker(Loop& loop, BrokerUrl url, const PubSubOptions& options, PubSubBrokerListener& listener,
                         std::uint64_t origin, std::string epoch, RedisShardListener* shard)
    : loop_(loop),
      url_(std::move(url)),
      options_(options),
      listener_(listener),
      origin_(origin),
      epoch_(std::move(epoch)),
      attemptTimer_(loop, [this] { onTimer(); }),
      pingTimer_(loop, [this] { onPingTick(); }),
      backoff_(options.reconnectMinDelayMs, options.reconnectMaxDelayMs,
               static_cast<std::uint32_t>(url_.endpoints.size()), static_cast<std::uint32_t>(origin)),
      shard_(shard),
      readTimer_(loop, [this] { onReadTick(); }) {
    stats_.state = PubSubState::Connecting;
    if (shard_ != nullptr) pending_.reserve(kInitialPendingCommands);
}

std::uint64_t RedisBroker::newOrigin() {
    std::random_device device;
    return (std::uint64_t{device()} << 32) ^ device();
}

std::string RedisBroker::newEpoch() {
    unsigned char bits[RedisHistory::kEpochBytes / 2];
    std::uint64_t random = newOrigin();
    for (unsigned char& byte : bits) {
        byte = static_cast<unsigned char>(random & 0xFF);
        random >>= 8;
    }
    return hexOf(bits, sizeof bits);
}

RedisBroker::~RedisBroker() { close(); }

void RedisBroker::start() { beginAttempt(); }

void RedisBroker::changeStatus(Status next) noexcept {
    LW_CHECK(status_ != Status::Closed);
    status_ = next;
    switch (next) {
        case Status::Resolving:
        case Status::Connecting:
        case Status::Handshaking:
            stats_.state = PubSubState::Connecting;
            break;
        case Status::Ready:
            stats_.state = PubSubState::Ready;
            break;
        case Status::Waiting:
            stats_.state = PubSubState::Disconnected;
            break;
        case Status::Closed:
            stats_.state = PubSubState::Closed;
            break;
    }
}

// ---- connecting ----

void RedisBroker::beginAttempt() {
    changeStatus(Status::Resolving);
    attemptTimer_.start(options_.connectTimeoutMs);
    const BrokerUrl::Endpoint& target = url_.endpoints[endpoint_];
    const std::string port = std::to_string(target.port);
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    if (::getaddrinfo(target.host.c_str(), port.c_str(), &hints, &found) == 0) {
        onResolved(0, found->ai_addr, found->ai_addrlen);
        ::freeaddrinfo(found);
        return;
    }
    // A name: looked up on a thread of its own, so that a slow resolver never stalls the loop.
    auto request = std::make_shared<ResolveRequest>();
    request->loop = &loop_;
    resolving_ = request;
    std::thread([request, broker = this, host = target.host, port] {
        addrinfo nameHints{};
        nameHints.ai_socktype = SOCK_STREAM;
        nameHints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
        addrinfo* result = nullptr;
        const int status = ::getaddrinfo(host.c_str(), port.c_str(), &nameHints, &result);
        std::lock_guard lock(request->mutex);
        request->error = status;
        if (status == 0) {
            std::memcpy(&request->address, result->ai_addr, result->ai_addrlen);
            request->length = result->ai_addrlen;
            ::freeaddrinfo(result);
        }
        if (request->loop == nullptr) return;
        request->loop->defer([request, broker] {
            // Not cancelled: the broker that asked still exists (its end cancels the request first).
            if (request->cancelled) return;
            broker->resolving_.reset();
            broker->onResolved(request->error, reinterpret_cast<const sockaddr*>(&request->address), request->length);
        });
    }).detach();
}

void RedisBroker::onResolved(int error, const sockaddr* address, unsigned length) {
    if (error != 0) {
        fail(error == EAI_NONAME ? "EAI_NONAME" : "EAI_FAIL",
             describe(std::string("cannot resolve the host: ") + ::gai_strerror(error)));
        return;
    }
    const int fd = ::socket(address->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        const int socketError = errno;
        fail(errnoCode(socketError), describe(std::string("cannot create a socket: ") + std::strerror(socketError)));
        return;
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    changeStatus(Status::Connecting);
    if (::connect(fd, address, static_cast<socklen_t>(length)) != 0 && errno != EINPROGRESS) {
        const int connectError = errno;
        ::close(fd);
        fail(errnoCode(connectError), describe(std::string("cannot connect: ") + std::strerror(connectError)));
        return;
    }
    loop_.watch(*this, fd, io::kWritable);
    watchingWritable_ = true;
}

void RedisBroker::onConnectFinished() {
    int error = 0;
    socklen_t size = sizeof error;
    if (::getsockopt(fd(), SOL_SOCKET, SO_ERROR, &error, &size) != 0) error = errno;
    if (error != 0) {
        fail(errnoCode(error), describe(std::string("cannot connect: ") + std::strerror(error)));
        return;
    }
    changeStatus(Status::Handshaking);
    loop_.setWatchedEvents(*this, io::kReadable);
    watchingWritable_ = false;
    if (url_.tls) {
        TlsClient::Options tlsOptions;
        tlsOptions.serverName = url_.endpoints[endpoint_].host;
        tlsOptions.caFile = options_.tlsCaFile;
        tlsOptions.verify = options_.tlsVerify;
        std::string problem;
        tls_ = TlsClient::create(tlsOptions, problem);
        if (!tls_) {
            fail("TLS", describe(problem));
            return;
        }
        if (!cipherBuffer_) cipherBuffer_ = std::make_unique<char[]>(kReadChunkBytes);
        tls_->start();
        writeOut();  // the ClientHello; HELLO follows once the handshake is done (receiveCipher)
        return;
    }
    sendHello();
}

void RedisBroker::sendHello() {
    // HELLO 3 switches to RESP3 (pushes and replies on one connection), authenticates when the URL says so, and
    // names the connection for CLIENT LIST.
    LW_CHECK(out_.empty());
    helloSent_ = true;
    if (url_.hasPassword) {
        const std::string_view user = url_.user.empty() ? std::string_view("default") : std::string_view(url_.user);
        resp::RespWriter::appendCommand(
            out_, {"HELLO", "3", "AUTH", user, std::string_view(url_.password), "SETNAME", "loopwire"});
    } else {
        resp::RespWriter::appendCommand(out_, {"HELLO", "3", "SETNAME", "loopwire"});
    }
    writeOut();
}

void RedisBroker::becomeReady() {
    attemptTimer_.stop();
    changeStatus(Status::Ready);
    if (everReady_) ++stats_.reconnects;
    everReady_ = true;
    backoff_.succeeded();
    heardSinceTick_ = true;
    pingOutstanding_ = false;
    // Before anything that runs them.
    if (options_.history.size > 0) appendScriptLoads();
    appendSubscriptions(true);
    // What was published while the link was away follows the subscriptions, in the order it was published.
    if (shard_ == nullptr) {
        out_.append(queued_.view());
    } else {
        std::string_view commands = queued_.view();
        resp::RespFramer framer;
        while (!commands.empty()) {
            const resp::RespResult command = framer.next(commands);
            if (command.status != resp::RespStatus::Complete) break;
            appendPublishCommand(commands.substr(0, command.consumed));
            commands.remove_prefix(command.consumed);
        }
    }
    outPublishes_ += queuedMessages_;
    stats_.published += queuedMessages_;
    queued_.clear();
    queuedMessages_ = 0;
    if (queued_.capacity() > kMaxRetainedBufferBytes) queued_.release();
    appendReads();
    pingTimer_.start(options_.pingIntervalMs, options_.pingIntervalMs);
    report(PubSubEventKind::Ready, "", describe("connected"));
    writeOut();
    if (shard_ != nullptr && status_ == Status::Ready) shard_->onLinkReady(*this);
}

// The replies say only the SHA-1s that are already known here; the read script's, last, ends a reload.
void RedisBroker::appendScriptLoads() {
    for (const std::string_view script : {RedisHistory::publishScript(), RedisHistory::readScript()}) {
        resp::RespWriter::appendCommand(out_, {"SCRIPT", "LOAD", script});
        if (shard_ != nullptr) expect(Awaiting::Script);
    }
}

// Redis has lost the scripts while connected (an operator's SCRIPT FLUSH, or a node that took the slot without
// them): they are loaded again at once, once until that load is answered, and every read not answered yet is sent
// again after them (a read refused NOSCRIPT is waiting; one answered twice takes the first answer). A publish
// refused NOSCRIPT is lost, counted in errors and reported as any refusal.
void RedisBroker::reloadScripts() {
    if (reloadingScripts_ || status_ != Status::Ready || options_.history.size == 0) return;
    reloadingScripts_ = true;
    appendScriptLoads();
    for (RedisHistoryRead& read : reads_)
        read.sent = false;
    loop_.requestFlush(*this);
}

void RedisBroker::onTimer() {
    if (status_ == Status::Waiting) {
        beginAttempt();
        return;
    }
    if (status_ == Status::Resolving || status_ == Status::Connecting || status_ == Status::Handshaking) {
        fail("ETIMEDOUT", describe("no connection within connectTimeoutMs"));
    }
}

void RedisBroker::onPingTick() {
    if (status_ != Status::Ready) return;
    if (heardSinceTick_) {
        heardSinceTick_ = false;
        pingOutstanding_ = false;
        return;
    }
    if (pingOutstanding_) {
        fail("ETIMEDOUT", describe("no reply to PING for two ping intervals"));
        return;
    }
    pingOutstanding_ = true;
    resp::RespWriter::appendCommand(out_, {"PING"});
    expect(Awaiting::Ping);
    writeOut();
}

// ---- failing and closing ----

void RedisBroker::fail(std::string_view code, std::string_view message) {
    if (status_ == Status::Closed || status_ == Status::Waiting) return;
    const bool wasReady = status_ == Status::Ready;
    closeConnection();
    if (!wasReady) ++stats_.errors;
    report(wasReady ? PubSubEventKind::Disconnected : PubSubEventKind::Error, code, message);
    changeStatus(Status::Waiting);
    if (shard_ != nullptr) shard_->onLinkDown(*this);
    // The next host of the URL is tried next; a full round of them counts as one step of the backoff.
    endpoint_ = (endpoint_ + 1) % url_.endpoints.size();
    attemptTimer_.start(backoff_.nextDelayMs());
}

void RedisBroker::closeConnection() noexcept {
    pingTimer_.stop();
    attemptTimer_.stop();
    if (resolving_) {
        std::lock_guard lock(resolving_->mutex);
        resolving_->loop = nullptr;
        resolving_->cancelled = true;
    }
    resolving_.reset();
    if (isWatched()) {
        const int descriptor = fd();
        loop_.unwatch(*this);
        ::close(descriptor);
    }
    watchingWritable_ = false;
    tls_.reset();
    helloSent_ = false;
    reloadingScripts_ = false;  // the next connection loads them first
    requeueUnsent();
    in_.clear();
    if (in_.capacity() > kMaxRetainedBufferBytes) in_.release();
    framer_.reset();
    for (auto& [topic, state] : topics_)
        state.sent = false;
    pending_.clear();
    pendingHead_ = 0;
    inflight_.clear();
    if (inflight_.capacity() > kMaxRetainedBufferBytes) inflight_.release();
    // Their replies will not come: the next connection sends them again.
    for (RedisHistoryRead& read : reads_)
        read.sent = false;
}

// The whole PUBLISH commands not yet sent go back to the front of the queue (a command partly sent is lost with
// the connection: Redis discards a command it did not receive whole). SUBSCRIBE and PING are not kept: the next
// connection subscribes afresh.
void RedisBroker::requeueUnsent() {
    if (out_.empty()) return;
    ByteBuffer kept;
    std::size_t keptMessages = 0;
    std::string_view unsent = out_.view().substr(std::min(outPartialBytes_, out_.size()));
    resp::RespFramer framer;
    while (!unsent.empty()) {
        resp::RespResult command = framer.next(unsent);
        if (command.status != resp::RespStatus::Complete) break;
        if (startsWithPublish(unsent.substr(0, command.consumed))) {
            kept.append(unsent.substr(0, command.consumed));
            ++keptMessages;
        }
        unsent.remove_prefix(command.consumed);
    }
    stats_.published -= std::min<std::uint64_t>(stats_.published, keptMessages);
    kept.append(queued_.view());
    queued_ = std::move(kept);
    queuedMessages_ += keptMessages;
    out_.clear();
    if (out_.capacity() > kMaxRetainedBufferBytes) out_.release();
    outPublishes_ = 0;
    outPartialBytes_ = 0;
}

void RedisBroker::close() noexcept {
    if (status_ == Status::Closed) return;
    closeConnection();
    loop_.cancelFlush(*this);
    changeStatus(Status::Closed);
    events_.clear();
    readTimer_.stop();
    // Ended here, handed to their handlers by finishClose(): this may run inside a handler of the App's.
    std::reverse(reads_.begin(), reads_.end());  // ended from the back, handed over in the order they were made
    while (!reads_.empty())
        failRead(reads_.size() - 1, "DISCONNECTED", describe("pub/sub was disconnected before the read was answered"));
}

void RedisBroker::closeAndFreeAfterBatch() noexcept {
    close();
    loop_.deferDelete(this);
}

void RedisBroker::finishClose() {
    if (answered_.empty()) return;
    std::vector<AnsweredRead> answered = std::move(answered_);
    answered_.clear();
    loop_.runBatch([&answered] { handOver(answered); });
}

// ---- publishing and subscribing ----

void RedisBroker::appendPublish(ByteBuffer& out, bool sharded, const PubSubOptions& options, std::uint64_t origin,
                                std::string_view epoch, std::string_view topic, std::string_view message, bool binary,
                                bool compress) {
    const bool numbered = options.history.covers(topic);
    char envelopeBytes[BrokerEnvelope::kBytes];
    const std::string_view envelope = BrokerEnvelope{binary, compress, numbered, origin}.writeTo(envelopeBytes);
    const std::string_view command = sharded ? "SPUBLISH" : "PUBLISH";
    if (numbered) {
        RedisHistory::appendPublish(out, publishScriptSha(), command, options.history, epoch, options.prefix, topic,
                                    envelope, message);
        return;
    }
    resp::RespWriter::appendCommand(out, {command, {options.prefix, topic}, {envelope, message}});
}

void RedisBroker::publish(std::string_view topic, std::string_view message, bool binary, bool compress) {
    if (status_ == Status::Closed) return;
    const bool ready = status_ == Status::Ready;
    ByteBuffer& target = ready ? out_ : queued_;
    const std::size_t start = target.size();
    appendPublish(target, shard_ != nullptr, options_, origin_, epoch_, topic, message, binary, compress);
    if (target.size() > options_.maxQueuedBytes) {
        target.truncate(start);
        ++stats_.dropped;
        if (!dropping_) {
            dropping_ = true;
            report(PubSubEventKind::Dropped, "QUEUE_FULL",
                   describe(ready ? "the broker does not read fast enough: publishes are being dropped"
                                  : "the broker is away and the queue is full: publishes are being dropped"));
        }
        return;
    }
    dropping_ = false;
    if (ready && shard_ != nullptr) {
        // Written, and now remembered until its reply (appendPublishCommand's work, without a second copy in out_).
        inflight_.append(out_.view().substr(start));
        expect(Awaiting::Publish, static_cast<std::uint32_t>(out_.size() - start));
    }
    if (ready) {
        ++outPublishes_;
        ++stats_.published;
        loop_.requestFlush(*this);
    } else {
        ++queuedMessages_;
    }
}

void RedisBroker::setInterest(std::string_view topic, bool interested) {
    if (status_ == Status::Closed) return;
    auto found = topics_.find(topic);
    if (found == topics_.end()) {
        if (!interested) return;
        found = topics_.emplace(std::string(topic), TopicState{}).first;
        if (shard_ != nullptr) found->second.slot = RedisSlot::of(options_.prefix, topic);
    }
    found->second.wanted = interested;
    if (!found->second.changed) {
        found->second.changed = true;
        changed_.push_back(&found->first);
    }
    loop_.requestFlush(*this);
}

// Sharded mode: one command per slot (Redis refuses channels of several slots in one), each followed by a PING
// whose PONG says it succeeded.
void RedisBroker::appendChannelCommand(std::string_view command, std::vector<const std::string*>& topics) {
    auto slotOf = [this](const std::string* topic) { return topics_.find(*topic)->second.slot; };
    if (shard_ != nullptr) {
        std::sort(topics.begin(), topics.end(),
                  [&](const std::string* a, const std::string* b) { return slotOf(a) < slotOf(b); });
    }
    for (std::size_t first = 0; first < topics.size();) {
        std::size_t count = std::min(kMaxChannelsPerCommand, topics.size() - first);
        if (shard_ != nullptr) {
            const std::uint16_t slot = slotOf(topics[first]);
            std::size_t sameSlot = 1;
            while (sameSlot < count && slotOf(topics[first + sameSlot]) == slot)
                ++sameSlot;
            count = sameSlot;
        }
        resp::RespWriter::appendCommandHeader(out_, count + 1);
        resp::RespWriter::appendArgument(out_, command);
        for (std::size_t i = first; i < first + count; ++i)
            resp::RespWriter::appendArgument(out_, {options_.prefix, *topics[i]});
        if (shard_ != nullptr) {
            resp::RespWriter::appendCommand(out_, {"PING"});
            expect(command == "SSUBSCRIBE" ? Awaiting::Subscribe : Awaiting::Unsubscribe);
            expect(Awaiting::Ping);
        }
        first += count;
    }
}

// all: every topic of interest (a new connection); else the changes of this batch.
void RedisBroker::appendSubscriptions(bool all) {
    std::vector<const std::string*> subscribe;
    std::vector<const std::string*> unsubscribe;
    auto consider = [&](const std::string& topic, TopicState& state) {
        state.changed = false;
        if (state.wanted && !state.sent) subscribe.push_back(&topic);
        if (!state.wanted && state.sent) unsubscribe.push_back(&topic);
        state.sent = state.wanted;
    };
    if (all) {
        for (auto& [topic, state] : topics_)
            consider(topic, state);
    } else {
        for (const std::string* topic : changed_)
            consider(*topic, topics_.find(*topic)->second);
    }
    appendChannelCommand(shard_ != nullptr ? "SSUBSCRIBE" : "SUBSCRIBE", subscribe);
    appendChannelCommand(shard_ != nullptr ? "SUNSUBSCRIBE" : "UNSUBSCRIBE", unsubscribe);
    changed_.clear();
    std::erase_if(topics_, [](const auto& entry) { return !entry.second.wanted; });
}

void RedisBroker::onFlush() {
    if (status_ == Status::Ready) {
        if (!changed_.empty()) appendSubscriptions(false);
        appendReads();
        writeOut();
    } else if (!changed_.empty()) {
        // Away: only the wanted set matters, and the next connection subscribes it whole.
        for (const std::string* topic : changed_)
            topics_.find(*topic)->second.changed = false;
        changed_.clear();
        std::erase_if(topics_, [](const auto& entry) { return !entry.second.wanted; });
    }
    if (events_.empty() && answered_.empty()) return;
    std::vector<PendingEvent> events = std::move(events_);
    events_.clear();
    std::vector<AnsweredRead> answered = std::move(answered_);
    answered_.clear();
    loop_.runBatch([this, &events, &answered] {
        for (const PendingEvent& event : events) {
            if (status_ == Status::Closed) break;  // the handler of an earlier event closed the link
            listener_.onBrokerEvent(PubSubEvent{event.kind, event.code, event.message});
        }
        // Answered before any close: each gets its own result.
        handOver(answered);
    });
}

void RedisBroker::handOver(std::vector<AnsweredRead>& answered) {
    for (AnsweredRead& read : answered) {
        std::size_t start = 0;
        for (std::size_t i = 0; i < read.messages.size(); ++i) {
            read.messages[i].message = std::string_view(read.stamped).substr(start, read.ends[i] - start);
            start = read.ends[i];
        }
        PubSubHistory history;
        history.error = read.error;
        history.errorMessage = read.errorMessage;
        history.position = PubSubPosition{read.epoch, read.offset};
        history.recovered = read.recovered;
        history.messages = read.messages.data();
        history.messageCount = read.messages.size();
        read.handler(history);
    }
}

bool RedisBroker::sendSome(std::string_view bytes, std::size_t& written) {
    for (;;) {
        const ssize_t sent = ::send(fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent >= 0) {
            written = static_cast<std::size_t>(sent);
            return true;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (!watchingWritable_) {
                loop_.setWatchedEvents(*this, io::kReadable | io::kWritable);
                watchingWritable_ = true;
            }
            return false;
        }
        const int sendError = errno;
        fail(errnoCode(sendError), describe(std::string("the connection broke: ") + std::strerror(sendError)));
        return false;
    }
}

void RedisBroker::writeOut() {
    if (tls_) {
        writeOutTls();
        return;
    }
    while (!out_.empty() && isWatched() && status_ != Status::Connecting) {
        std::size_t written = 0;
        if (!sendSome(out_.view(), written)) return;
        if (written < out_.size()) {
            // Where the first command not sent whole begins, so that a failure can put the unsent ones back.
            std::size_t boundary = outPartialBytes_;
            resp::RespFramer framer;
            while (boundary < written) {
                resp::RespResult command = framer.next(out_.view().substr(boundary));
                LW_CHECK(command.status == resp::RespStatus::Complete);
                if (command.status != resp::RespStatus::Complete) break;
                boundary += command.consumed;
            }
            outPartialBytes_ = boundary >= written ? boundary - written : 0;
        } else {
            outPartialBytes_ = 0;
        }
        out_.consume(written);
    }
    if (out_.empty()) {
        outPublishes_ = 0;
        if (out_.capacity() > kMaxRetainedBufferBytes) out_.release();
        if (watchingWritable_ && isWatched() && status_ != Status::Connecting) {
            loop_.setWatchedEvents(*this, io::kReadable);
            watchingWritable_ = false;
        }
    }
}

// With TLS, commands are encrypted only once the ciphertext of the last ones has left, so that what is not sent
// yet stays plaintext commands in out_, which a failure can put back in the queue.
void RedisBroker::writeOutTls() {
    ByteBuffer& cipher = tls_->output();
    for (;;) {
        if (cipher.empty()) {
            if (out_.empty() || !tls_->established()) break;
            if (!tls_->send(out_.view())) {
                fail("TLS", describe("cannot encrypt: " + tls_->error()));
                return;
            }
            out_.clear();
            outPublishes_ = 0;
            outPartialBytes_ = 0;
            if (out_.capacity() > kMaxRetainedBufferBytes) out_.release();
        }
        std::size_t written = 0;
        if (!sendSome(cipher.view(), written)) return;
        cipher.consume(written);
    }
    if (cipher.capacity() > kMaxRetainedBufferBytes) cipher.release();
    if (watchingWritable_ && isWatched()) {
        loop_.setWatchedEvents(*this, io::kReadable);
        watchingWritable_ = false;
    }
}

bool RedisBroker::receiveCipher(std::string_view cipher) {
    const TlsClient::Status status = tls_->receive(cipher, in_);
    if (status == TlsClient::Status::Failed) {
        fail("TLS", describe(tls_->error()));
        return false;
    }
    if (status == TlsClient::Status::Closed) {
        fail("CLOSED", describe("the broker closed the TLS connection"));
        return false;
    }
    if (tls_->established() && !helloSent_)
        sendHello();
    else
        writeOut();  // handshake records, or what waited for the ciphertext to leave
    return isWatched();
}

// ---- reading ----

void RedisBroker::onIo(std::uint32_t events) {
    if (status_ == Status::Connecting) {
        onConnectFinished();
        return;
    }
    if ((events & io::kWritable) != 0) writeOut();
    if (!isWatched()) return;
    if ((events & (io::kReadable | io::kError | io::kHangup)) != 0) readAvailable();
}

void RedisBroker::readAvailable() {
    for (;;) {
        // Plain: straight into the input buffer, whose room after a reply's start is used before the buffer grows.
        const std::span<char> room = tls_ ? std::span<char>(cipherBuffer_.get(), kReadChunkBytes)
                                          : in_.prepareAtLeast(in_.empty() ? kReadChunkBytes : kMinReadRoomBytes);
        const ssize_t received = ::recv(fd(), room.data(), room.size(), MSG_DONTWAIT);
        if (received == 0) {
            fail("CLOSED", describe("the broker closed the connection"));
            return;
        }
        if (received < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            const int readError = errno;
            fail(errnoCode(readError), describe(std::string("the connection broke: ") + std::strerror(readError)));
            return;
        }
        if (tls_) {
            if (!receiveCipher({room.data(), static_cast<std::size_t>(received)})) return;
        } else {
            in_.commit(static_cast<std::size_t>(received));
        }
        heardSinceTick_ = true;
        for (;;) {
            resp::RespResult result = framer_.next(in_.view());
            if (result.status == resp::RespStatus::NeedMore) {
                if (in_.size() > kMaxReplyBytes) {
                    fail("PROTOCOL", describe("the broker sent a reply longer than 64 MiB"));
                    return;
                }
                break;
            }
            if (result.status == resp::RespStatus::Error) {
                fail("PROTOCOL", describe(std::string("the broker sent something that is not RESP (") +
                                          std::string(resp::nameOf(result.error)) + ")"));
                return;
            }
            handleReply(in_.view().substr(0, result.consumed));
            if (status_ == Status::Closed || status_ == Status::Waiting) return;
            in_.consume(result.consumed);
        }
        if (in_.empty() && in_.capacity() > kMaxRetainedBufferBytes) in_.release();
        if (static_cast<std::size_t>(received) < room.size()) return;
    }
}

void RedisBroker::handleReply(std::string_view reply) {
    resp::RespReader reader(reply);
    resp::RespValue value;
    if (!reader.next(value)) return;
    if (value.type == resp::RespType::Push) {
        if (status_ == Status::Ready) handlePush(reply);
        return;
    }
    if (status_ == Status::Handshaking) {
        handleHelloReply(value.isError() ? errorCode(value.text) : std::string_view{}, value.text,
                         value.type == resp::RespType::Map);
        return;
    }
    // In-band replies come in order: every NOSCRIPT of a command sent before the reload has come before this.
    if (reloadingScripts_ && value.isString() && value.text == readScriptSha()) reloadingScripts_ = false;
    if (shard_ != nullptr && frontPending() != nullptr) {
        handleShardedReply(value);
        return;
    }
    if (RedisHistory::isReadReply(value)) {
        handleReadReply(value);
        return;
    }
    if (value.isError()) reportRefusal(value.text);
}

void RedisBroker::reportRefusal(std::string_view error) {
    const std::string_view code = errorCode(error);
    if (code == "NOSCRIPT") reloadScripts();
    ++stats_.errors;
    const std::uint64_t now = loop_.nowMs();
    if (lastErrorReportMs_ == 0 || now - lastErrorReportMs_ >= kErrorReportIntervalMs) {
        lastErrorReportMs_ = now;
        std::string text = "the broker refused a command: " + std::string(error);
        // Only a history command names keys, which a cluster node may not hold.
        if (shard_ == nullptr && (code == "MOVED" || code == "ASK"))
            text += " (a node of a Redis Cluster: history there needs the sharded option)";
        report(PubSubEventKind::Error, code, describe(text));
    }
}

void RedisBroker::handleHelloReply(std::string_view code, std::string_view text, bool isMap) {
    if (!code.empty()) {
        const bool tooOld =
            code == "NOPROTO" || (code == "ERR" && text.find("unknown command") != std::string_view::npos);
        if (tooOld) {
            fail("PROTOCOL", describe(std::string("the broker refused HELLO 3 (loopwire needs Redis 6 or newer): ") +
                                      std::string(text)));
        } else {
            fail(code, describe(std::string("the broker refused the connection: ") + std::string(text)));
        }
        return;
    }
    if (!isMap) {
        fail("PROTOCOL", describe("the broker did not answer HELLO 3 as Redis 6 or newer does"));
        return;
    }
    becomeReady();
}

void RedisBroker::handlePush(std::string_view reply) {
    resp::RespReader reader(reply);
    resp::RespValue push;
    reader.next(push);
    resp::RespReader fields = push.elements();
    resp::RespValue kind;
    resp::RespValue channel;
    resp::RespValue payload;
    if (!fields.next(kind) || !fields.next(channel) || !channel.isString()) return;
    if (!channel.text.starts_with(options_.prefix)) return;
    if (shard_ != nullptr && kind.text == "sunsubscribe") {
        // The reply to our own SUNSUBSCRIBE (the oldest command not answered is one), or the node telling us that
        // the channel's slot moved away: then the topic is to be subscribed where the slot went.
        const Pending* oldest = frontPending();
        if (oldest != nullptr && oldest->what == Awaiting::Unsubscribe) return;
        const std::string_view topic = channel.text.substr(options_.prefix.size());
        const auto found = topics_.find(topic);
        if (found == topics_.end() || !found->second.wanted || !found->second.sent) return;
        const std::string lost = found->first;
        if (found->second.changed) std::erase(changed_, &found->first);
        topics_.erase(found);
        shard_->onSubscriptionLost(*this, lost);
        return;
    }
    if ((kind.text != "message" && kind.text != "smessage") || !fields.next(payload) || !payload.isString()) return;
    const std::string_view topic = channel.text.substr(options_.prefix.size());
    std::string_view message = payload.text;
    BrokerEnvelope envelope;
    BrokerMessageKind messageKind = BrokerMessageKind::Unmarked;
    if (envelope.readFrom(message)) {
        // This App's own publish, back from Redis: its subscribers had it already, unless it is numbered (on a
        // topic with history), which is delivered only now, stamped.
        if (envelope.origin == origin_ && !envelope.numbered) return;
        messageKind = envelope.binary ? BrokerMessageKind::Binary : BrokerMessageKind::Text;
    }
    ++stats_.delivered;
    listener_.onBrokerMessage(topic, message, messageKind, envelope.compress);
}

// ---- sharded mode ----

void RedisBroker::expect(Awaiting what, std::uint32_t bytes, std::uint16_t slot) {
    if (pendingHead_ == pending_.size()) {
        pending_.clear();
        pendingHead_ = 0;
    } else if (pendingHead_ > 0 && pending_.size() == pending_.capacity()) {
        // The answered entries at the front make room before the vector grows, so that it grows only with what is
        // in flight, never with the length of a stream that is never wholly answered between two commands.
        pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(pendingHead_));
        pendingHead_ = 0;
    }
    pending_.push_back(Pending{what, slot, bytes});
}

void RedisBroker::popPending() noexcept {
    const Pending& answered = pending_[pendingHead_++];
    if (answered.what == Awaiting::Publish) inflight_.consume(answered.bytes);
}

void RedisBroker::appendPublishCommand(std::string_view command) {
    out_.append(command);
    if (shard_ == nullptr) return;
    inflight_.append(command);
    expect(Awaiting::Publish, static_cast<std::uint32_t>(command.size()));
}

bool RedisBroker::requestSlotMap() {
    if (status_ != Status::Ready) return false;
    resp::RespWriter::appendCommand(out_, {"CLUSTER", "SLOTS"});
    expect(Awaiting::SlotMap);
    loop_.requestFlush(*this);
    return true;
}

void RedisBroker::publishCommand(std::string_view command, bool asking) {
    if (status_ == Status::Closed) return;
    const bool ready = status_ == Status::Ready;
    ByteBuffer& target = ready ? out_ : queued_;
    if (target.size() + command.size() > options_.maxQueuedBytes) {
        ++stats_.dropped;
        return;
    }
    if (!ready) {
        queued_.append(command);
        ++queuedMessages_;
        return;
    }
    if (asking) {
        resp::RespWriter::appendCommand(out_, {"ASKING"});
        expect(Awaiting::Asking);
    }
    appendPublishCommand(command);
    ++outPublishes_;
    loop_.requestFlush(*this);
}

bool RedisBroker::requestBarrier(std::uint16_t slot) {
    if (status_ != Status::Ready) return false;
    resp::RespWriter::appendCommand(out_, {"PING"});
    expect(Awaiting::Barrier, 0, slot);
    loop_.requestFlush(*this);
    return true;
}

void RedisBroker::takeQueued(ByteBuffer& into) {
    into.append(queued_.view());
    queued_.clear();
    queuedMessages_ = 0;
}

// An in-band reply in sharded mode answers the oldest command in pending_.
void RedisBroker::handleShardedReply(const resp::RespValue& value) {
    const Pending answered = *frontPending();
    RedisRedirection redirection;
    switch (answered.what) {
        case Awaiting::Publish:
            if (value.isError() && redirection.read(value.text)) {
                const std::string_view command = inflight_.view().substr(0, answered.bytes);
                shard_->onPublishRedirected(*this, redirection.slot, redirection.host, redirection.port,
                                            redirection.ask, command);
                if (frontPending() != nullptr) popPending();
                return;
            }
            break;
        case Awaiting::Subscribe:
        case Awaiting::Unsubscribe:
            popPending();
            if (!value.isError()) {
                popPending();  // the reply is the PONG after it: the command succeeded
                return;
            }
            if (value.text.starts_with("MOVED ")) {
                // A node that does not have the slot has no subscription of ours in it to end, and the owner is
                // to subscribe where the slot is.
                if (answered.what == Awaiting::Subscribe) handleMovedSubscription(value.text);
                return;
            }
            break;
        case Awaiting::SlotMap:
            popPending();
            shard_->onSlotMap(*this, value);
            return;
        case Awaiting::Barrier:
            popPending();
            shard_->onBarrier(*this, answered.slot);
            return;
        case Awaiting::Read:
            popPending();
            if (!value.isError()) {
                handleReadReply(value);
                return;
            }
            if (errorCode(value.text) == "NOSCRIPT") {
                reloadScripts();  // the read waits, sent again after the scripts
                return;
            }
            for (std::size_t i = 0; i < reads_.size(); ++i) {
                if (reads_[i].id != answered.bytes) continue;
                if (redirection.read(value.text)) {
                    redirectRead(i, redirection, value.text);
                } else {
                    failRead(i, errorCode(value.text),
                             describe("the broker refused a history read: " + std::string(value.text)));
                }
                break;
            }
            return;
        case Awaiting::Ping:
        case Awaiting::Asking:
        case Awaiting::Script:
            break;
    }
    if (answered.what == Awaiting::Publish || answered.what == Awaiting::Ping || answered.what == Awaiting::Asking ||
        answered.what == Awaiting::Script)
        popPending();
    if (value.isError()) reportRefusal(value.text);
}

// An SSUBSCRIBE answered MOVED: this node does not have the slot (any more). The topics of that slot leave this
// link for the owner to subscribe where the reply points.
void RedisBroker::handleMovedSubscription(std::string_view error) {
    RedisRedirection redirection;
    if (!redirection.read(error)) return;
    std::erase_if(changed_,
                  [&](const std::string* topic) { return topics_.find(*topic)->second.slot == redirection.slot; });
    std::erase_if(topics_, [&](const auto& entry) { return entry.second.slot == redirection.slot; });
    shard_->onSubscriptionMoved(*this, redirection.slot, redirection.host, redirection.port);
}

// ---- history ----

void RedisBroker::readHistory(std::string_view topic, PubSubPosition since, PubSubHistoryHandler handler) {
    RedisHistoryRead read;
    read.topic.assign(topic);
    read.sinceEpoch.assign(since.epoch);
    read.sinceOffset = since.offset;
    read.handler = std::move(handler);
    read.deadlineMs = loop_.nowMs() + PubSubHistoryOptions::kReadTimeoutMs;
    if (!options_.history.covers(topic)) {
        reads_.push_back(std::move(read));
        failRead(reads_.size() - 1, "NOHISTORY",
                 "pub/sub: the topic has no history (see the history option of connectPubSub)");
        return;
    }
    adoptRead(std::move(read));
}

void RedisBroker::adoptRead(RedisHistoryRead read) {
    read.id = nextReadId_++;
    if (nextReadId_ == 0) nextReadId_ = 1;
    read.sent = false;
    reads_.push_back(std::move(read));
    if (status_ == Status::Closed) {
        failRead(reads_.size() - 1, "DISCONNECTED", describe("pub/sub was disconnected before the read was sent"));
        return;
    }
    if (!readTimer_.isActive()) readTimer_.start(kReadTickMs, kReadTickMs);
    loop_.requestFlush(*this);
}

std::vector<RedisHistoryRead> RedisBroker::takeReads() {
    std::vector<RedisHistoryRead> taken = std::move(reads_);
    reads_.clear();
    readTimer_.stop();
    return taken;
}

void RedisBroker::appendReads() {
    for (RedisHistoryRead& read : reads_) {
        if (read.sent) continue;
        if (read.asking && shard_ != nullptr) {
            resp::RespWriter::appendCommand(out_, {"ASKING"});
            expect(Awaiting::Asking);
        }
        RedisHistory::appendRead(out_, readScriptSha(), options_.prefix, read.topic, read.id,
                                 PubSubPosition{read.sinceEpoch, read.sinceOffset});
        if (shard_ != nullptr) expect(Awaiting::Read, read.id);
        read.sent = true;
    }
}

// The node that answered is not (or no longer, or not yet) the one for the read's slot: the owner sends it on.
void RedisBroker::redirectRead(std::size_t at, const RedisRedirection& redirection, std::string_view error) {
    if (reads_[at].redirects >= RedisHistoryRead::kMaxRedirects) {
        failRead(at, errorCode(error),
                 describe("a history read was redirected too many times, the last time by " + std::string(error)));
        return;
    }
    RedisHistoryRead read = std::move(reads_[at]);
    reads_.erase(reads_.begin() + static_cast<std::ptrdiff_t>(at));
    ++read.redirects;
    read.asking = redirection.ask;
    shard_->onReadRedirected(*this, redirection.slot, redirection.host, redirection.port, std::move(read));
}

void RedisBroker::handleReadReply(const resp::RespValue& value) {
    RedisHistory::Reply reply;
    const bool wellFormed = RedisHistory::readReply(value, reply);
    const auto found =
        std::find_if(reads_.begin(), reads_.end(), [&](const RedisHistoryRead& read) { return read.id == reply.id; });
    if (found == reads_.end()) return;  // answered already (it timed out)
    if (!wellFormed) {
        failRead(static_cast<std::size_t>(found - reads_.begin()), "PROTOCOL",
                 describe("the broker's answer to a history read is not the read script's"));
        return;
    }
    AnsweredRead answer;
    answer.handler = std::move(found->handler);
    answer.epoch.assign(reply.epoch);
    answer.offset = reply.offset;
    answer.recovered = RedisHistory::recovered(reply, PubSubPosition{found->sinceEpoch, found->sinceOffset});
    // Each message as WebSockets were sent it: stamped with its position, after its envelope is taken off. The
    // views into `stamped` are made when the answer is handed over, once it no longer moves.
    for (const RedisHistory::Entry& entry : reply.entries) {
        std::string_view envelopeBytes = entry.envelope;
        BrokerEnvelope envelope;
        const bool marked = envelope.readFrom(envelopeBytes);
        answer.stamped.append(reply.epoch);
        answer.stamped += ':';
        answer.stamped += std::to_string(entry.offset);
        answer.stamped += ':';
        answer.stamped.append(entry.message);
        answer.ends.push_back(answer.stamped.size());
        answer.messages.push_back(
            PubSubHistoryMessage{entry.offset, {}, marked && envelope.binary, marked && envelope.compress});
    }
    reads_.erase(found);
    answered_.push_back(std::move(answer));
    loop_.requestFlush(*this);
}

void RedisBroker::failRead(std::size_t at, std::string_view code, std::string_view message) {
    AnsweredRead answer;
    answer.handler = std::move(reads_[at].handler);
    answer.error.assign(code);
    answer.errorMessage.assign(message);
    reads_.erase(reads_.begin() + static_cast<std::ptrdiff_t>(at));
    answered_.push_back(std::move(answer));
    if (status_ != Status::Closed) loop_.requestFlush(*this);  // closed: finishClose() hands it over
}

void RedisBroker::onReadTick() {
    const std::uint64_t now = loop_.nowMs();
    for (std::size_t i = 0; i < reads_.size();) {
        if (reads_[i].deadlineMs <= now) {
            failRead(i, "ETIMEDOUT", describe("no answer to a history read within 10 s"));
        } else {
            ++i;
        }
    }
    if (reads_.empty()) readTimer_.stop();
}

// ---- reporting ----

PubSubStats RedisBroker::stats() const noexcept {
    PubSubStats stats = stats_;
    stats.queuedMessages = queuedMessages_ + outPublishes_;
    stats.queuedBytes = queued_.size() + out_.size();
    return stats;
}

void RedisBroker::report(PubSubEventKind kind, std::string_view code, std::string_view message) {
    if (status_ == Status::Closed) return;
    events_.push_back(PendingEvent{kind, std::string(code), std::string(message)});
    loop_.requestFlush(*this);
}

std::string RedisBroker::describe(std::string_view what) const {
    std::string text = "pub/sub broker ";
    const BrokerUrl::Endpoint& target = url_.endpoints[endpoint_];
    const bool ipv6 = target.host.find(':') != std::string::npos;
    text += ipv6 ? "[" + target.host + "]" : target.host;
    text += ":" + std::to_string(target.port) + ": ";
    text += what;
    return text;
}

}  // namespace broker
}  // namespace loopwire
