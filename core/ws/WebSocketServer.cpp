#include "WebSocketServer.h"

#include "ws/ServerFrameHeader.h"
#include "ws/Utf8Validator.h"
#include "ws/WebSocketConnection.h"
#include "ws/WebSocketContext.h"

#include <cstring>

namespace loopwire {

namespace {

// Scratch buffers that grew past this are freed after use.
constexpr std::size_t kMaxRetainedScratchBytes = 64 * 1024;

// A published message as the topic tree stores it: a small header, the uncompressed frame, then (when it was
// compressed) the compressed frame.
//   byte 0       the opcode
//   bytes 1-4    the uncompressed frame's length (little-endian)
//   byte 5       its header's length
struct RecordHeader {
    static constexpr std::size_t kBytes = 6;
    OpCode opCode;
    std::uint32_t frameBytes;
    std::uint8_t frameHeaderBytes;

    void writeTo(char (&out)[kBytes]) const noexcept {
        out[0] = static_cast<char>(opCode);
        for (int i = 0; i < 4; ++i)
            out[1 + i] = static_cast<char>((frameBytes >> (8 * i)) & 0xFF);
        out[5] = static_cast<char>(frameHeaderBytes);
    }
    static RecordHeader readFrom(std::string_view record) noexcept {
        RecordHeader header;
        header.opCode = static_cast<OpCode>(record[0]);
        header.frameBytes = 0;
        for (int i = 0; i < 4; ++i)
            header.frameBytes |= std::uint32_t{static_cast<unsigned char>(record[1 + i])} << (8 * i);
        header.frameHeaderBytes = static_cast<std::uint8_t>(record[5]);
        return header;
    }
};

}  // namespace

WebSocketServer::WebSocketServer(HttpServer& http) : http_(http), sockets_(http.loop()) {}

WebSocketServer::~WebSocketServer() {
    loop().cancelFlush(*this);
    broker_.reset();
    retiredBrokers_.clear();
    sockets_.closeAll();
}

WebSocketServer& WebSocketServer::of(HttpServer& http) { return http.installedExtension<WebSocketServer>(http); }

WebSocketContext& WebSocketServer::addContext(std::unique_ptr<WebSocketContext> context) {
    contexts_.push_back(std::move(context));
    return *contexts_.back();
}

void WebSocketServer::close() noexcept {
    disconnectBroker();
    sockets_.closeAll();
}

void WebSocketServer::drain() noexcept {
    sockets_.forEach(
        [](Socket& socket) { static_cast<WebSocketConnection&>(socket).end(kDrainCloseCode, kDrainCloseReason); });
}

bool WebSocketServer::publish(std::string_view topic, std::string_view message, OpCode opCode, bool compress,
                              const WebSocketConnection* sender) {
    // The broker's copy first: its order among the publishes of this App is the order they were made in, whatever
    // the local delivery does with them (it may hold them until a drain is over).
    if (broker_) {
        broker_->publish(topic, message, opCode != OpCode::Text, compress);
        // A topic with history: its subscribers here get it when it comes back from the broker, numbered.
        if (broker_->deliversThroughBroker(topic)) return true;
    }
    return publishLocal(topic, message, opCode, compress, sender) || broker_ != nullptr;
}

void WebSocketServer::subscriptionChanged(std::string_view topic, TopicTree<WebSocketConnection>::Change change) {
    if (broker_ && change.changed && (change.oldCount == 0) != (change.newCount == 0)) {
        broker_->setInterest(topic, change.newCount > 0);
    }
}

bool WebSocketServer::connectBroker(const PubSubOptions& options, PubSubEventHandler events, std::string& error) {
    // Options that cannot be used leave the current link as it is.
    std::unique_ptr<PubSubBroker> created = createBroker(loop(), options, *this, error);
    if (!created) return false;
    disconnectBroker();
    broker_ = std::move(created);
    brokerEvents_ = std::move(events);
    topics_.forEachTopicName([this](std::string_view topic) { broker_->setInterest(topic, true); });
    return true;
}

void WebSocketServer::disconnectBroker() noexcept {
    if (!broker_) return;
    broker_->close();
    // Freed after the loop's current flush: this may run inside one of the broker's own callbacks (an error
    // handler that disconnects).
    retiredBrokers_.push_back(std::move(broker_));
    loop().requestFlush(*this);
}

bool WebSocketServer::readHistory(std::string_view topic, PubSubPosition since, PubSubHistoryHandler handler) {
    if (!broker_) return false;
    broker_->readHistory(topic, since, std::move(handler));
    return true;
}

PubSubStats WebSocketServer::brokerStats() const noexcept { return broker_ ? broker_->stats() : PubSubStats{}; }

void WebSocketServer::onBrokerMessage(std::string_view topic, std::string_view message, BrokerMessageKind kind,
                                      bool compress) {
    OpCode opCode = kind == BrokerMessageKind::Text     ? OpCode::Text
                    : kind == BrokerMessageKind::Binary ? OpCode::Binary
                    : Utf8Validator::isValid(message)   ? OpCode::Text
                                                        : OpCode::Binary;
    publishLocal(topic, message, opCode, compress, nullptr);
}

void WebSocketServer::onBrokerEvent(const PubSubEvent& event) {
    if (brokerEvents_) brokerEvents_(event);
}

bool WebSocketServer::publishLocal(std::string_view topic, std::string_view message, OpCode opCode, bool compress,
                                   const WebSocketConnection* sender) {
    if (draining_) {
        // The tree is being walked: this publish follows the batch being delivered.
        queued_.push_back({std::string(topic), std::string(message), opCode, compress, sender});
        return topics_.subscriberCount(topic) > (sender != nullptr && topics_.isSubscribed(sender, topic) ? 1 : 0);
    }
    if (topics_.subscriberCount(topic) == 0) return false;
    auto opcode = opCode == OpCode::Text ? ws::Opcode::Text : ws::Opcode::Binary;
    char header[ws::kMaxServerHeaderBytes];
    std::size_t headerBytes = ws::writeServerHeader(header, opcode, message.size());
    char recordHeader[RecordHeader::kBytes];
    RecordHeader{opCode, static_cast<std::uint32_t>(headerBytes + message.size()),
                 static_cast<std::uint8_t>(headerBytes)}
        .writeTo(recordHeader);
    frameScratch_.clear();
    frameScratch_.append({recordHeader, sizeof recordHeader});
    frameScratch_.append({header, headerBytes});
    frameScratch_.append(message);
    if (compress && !message.empty()) {
        // Compressed once, without context: any subscriber that agreed to no context takeover (and the
        // window) can take these bytes as they are.
        deflateScratch_.clear();
        ws::Deflater* compressor = sharedDeflater(kPublishWindowBits);
        if (compressor != nullptr && compressor->compress(message, deflateScratch_)) {
            std::size_t compressedHeaderBytes =
                ws::writeServerHeader(header, opcode, deflateScratch_.size(), true, true);
            frameScratch_.append({header, compressedHeaderBytes});
            frameScratch_.append(deflateScratch_.view());
        }
    }
    std::size_t recipients = topics_.publish(topic, frameScratch_.view(), sender);
    trimScratch();
    if (frameScratch_.capacity() > kMaxRetainedScratchBytes) frameScratch_.release();
    if (recipients > 0) loop().requestFlush(*this);
    return recipients > 0;
}

void WebSocketServer::closeAfterBatch(WebSocketConnection& connection) {
    closeAfterBatch_.push_back(&connection);
    loop().requestFlush(*this);
}

void WebSocketServer::onFlush() {
    if (!retiredBrokers_.empty()) {
        // A read's handler may connect or disconnect again, which retires the broker it replaces.
        std::vector<std::unique_ptr<PubSubBroker>> retired = std::move(retiredBrokers_);
        retiredBrokers_.clear();
        for (const std::unique_ptr<PubSubBroker>& broker : retired)
            broker->finishClose();
    }
    if (!topics_.hasWaiting() && closeAfterBatch_.empty()) return;
    loop().runBatch([this] {
        if (topics_.hasWaiting()) deliverPublished();
        // Still allocated even if they closed meanwhile: the loop frees sockets after its flushes.
        std::vector<WebSocketConnection*> closing = std::move(closeAfterBatch_);
        closeAfterBatch_.clear();
        for (WebSocketConnection* connection : closing)
            connection->closeIfDropping();
    });
}

void WebSocketServer::deliverPublished() {
    draining_ = true;
    topics_.drain([](WebSocketConnection* subscriber, const std::vector<std::string_view>& records) {
        if (subscriber->closedForApplication()) return;
        // All of a subscriber's messages of the batch leave in one write.
        subscriber->cork();
        for (std::string_view record : records) {
            RecordHeader header = RecordHeader::readFrom(record);
            std::string_view frame = record.substr(RecordHeader::kBytes, header.frameBytes);
            std::string_view compressed = record.substr(RecordHeader::kBytes + header.frameBytes);
            std::string_view payload = frame.substr(header.frameHeaderBytes);
            // Every message refused for backpressure is reported (`dropped`), as uWebSockets reports each. Once one
            // is refused, so is the rest of the batch: nothing is written in between, so the backlog stays over.
            subscriber->deliverPublished(
                !compressed.empty() && subscriber->takesSharedCompressedFrames() ? compressed : frame, payload,
                header.opCode);
        }
        subscriber->uncork();
    });
    draining_ = false;
    if (!queued_.empty()) {
        std::vector<QueuedPublish> queued = std::move(queued_);
        queued_.clear();
        for (QueuedPublish& publish : queued)
            publishLocal(publish.topic, publish.message, publish.opCode, publish.compress, publish.sender);
    }
}

ws::Deflater* WebSocketServer::sharedDeflater(std::uint8_t windowBits) {
    if (windowBits < ws::kMinCompressorWindowBits) windowBits = ws::kMinCompressorWindowBits;
    if (windowBits > kPublishWindowBits) windowBits = kPublishWindowBits;
    std::unique_ptr<ws::Deflater>& deflater = sharedDeflaters_[windowBits];
    if (!deflater) deflater = std::make_unique<ws::Deflater>(windowBits, 8, false);
    return deflater->ready() ? deflater.get() : nullptr;
}

ws::Inflater* WebSocketServer::sharedInflater() {
    if (!sharedInflater_) sharedInflater_ = std::make_unique<ws::Inflater>(ws::kMaxWindowBits, false);
    return sharedInflater_->ready() ? sharedInflater_.get() : nullptr;
}

void WebSocketServer::trimScratch() noexcept {
    if (deflateScratch_.capacity() > kMaxRetainedScratchBytes) deflateScratch_.release();
    if (inflateScratch_.capacity() > kMaxRetainedScratchBytes) inflateScratch_.release();
}

}  // namespace loopwire
