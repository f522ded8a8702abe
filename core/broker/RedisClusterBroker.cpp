#include "RedisClusterBroker.h"

#include "broker/RedisBroker.h"
#include "broker/RedisSlot.h"
#include "broker/RespFramer.h"
#include "broker/RespReader.h"

#include <algorithm>
#include <iterator>

namespace loopwire::broker {

namespace {

// One master of a CLUSTER SLOTS reply: the slots [first, last] and where they live.
struct SlotRange {
    std::uint16_t first = 0;
    std::uint16_t last = 0;
    std::string_view host;
    std::uint16_t port = 0;
};

// Reads one element of CLUSTER SLOTS: [first, last, [host, port, id, ...], replicas...]. False when it is not one
// (a host of "?", which Redis gives for a node whose address it does not know, is not one either).
bool readSlotRange(const resp::RespValue& element, SlotRange& range) {
    if (element.type != resp::RespType::Array || element.integer < 3) return false;
    resp::RespReader fields = element.elements();
    resp::RespValue first;
    resp::RespValue last;
    resp::RespValue master;
    if (!fields.next(first) || !fields.next(last) || !fields.next(master)) return false;
    if (first.type != resp::RespType::Integer || last.type != resp::RespType::Integer) return false;
    if (first.integer < 0 || first.integer > last.integer || last.integer >= RedisSlot::kSlotCount) return false;
    if (master.type != resp::RespType::Array || master.integer < 2) return false;
    resp::RespReader address = master.elements();
    resp::RespValue host;
    resp::RespValue port;
    if (!address.next(host) || !address.next(port) || !host.isString() || port.type != resp::RespType::Integer)
        return false;
    if (port.integer <= 0 || port.integer > 65535 || host.text == "?") return false;
    range.first = static_cast<std::uint16_t>(first.integer);
    range.last = static_cast<std::uint16_t>(last.integer);
    range.host = host.text;
    range.port = static_cast<std::uint16_t>(port.integer);
    return true;
}

// What a whole publish command is routed by: the channel (second argument) of an SPUBLISH, the first key (fourth
// argument, in the channel's slot) of the history's EVALSHA.
std::string_view channelOf(std::string_view command) {
    resp::RespReader reader(command);
    resp::RespValue array;
    resp::RespValue name;
    resp::RespValue channel;
    if (!reader.next(array) || array.type != resp::RespType::Array) return {};
    resp::RespReader arguments = array.elements();
    if (!arguments.next(name) || !arguments.next(channel)) return {};
    if (name.text == "EVALSHA") {
        resp::RespValue keyCount;
        if (!arguments.next(keyCount) || !arguments.next(channel)) return {};
    }
    return channel.text;
}

}  // namespace

RedisClusterBroker::RedisClusterBroker(Loop& loop, BrokerUrl url, const PubSubOptions& options,
                                       PubSubBrokerListener& listener)
    : loop_(loop),
      url_(std::move(url)),
      options_(options),
      listener_(listener),
      origin_(RedisBroker::newOrigin()),
      epoch_(RedisBroker::newEpoch()),
      owner_(RedisSlot::kSlotCount, 0) {
    links_.push_back(std::make_unique<RedisBroker>(loop_, url_, options_, listener_, origin_, epoch_, shardListener()));
}

RedisClusterBroker::~RedisClusterBroker() { close(); }

void RedisClusterBroker::start() { links_.front()->start(); }

// ---- publishing and subscribing ----

void RedisClusterBroker::publish(std::string_view topic, std::string_view message, bool binary, bool compress) {
    if (closed_) return;
    const std::uint16_t slot = RedisSlot::of(options_.prefix, topic);
    if (!moves_.empty()) {
        const auto move = moves_.find(slot);
        if (move != moves_.end()) {
            ByteBuffer& held = move->second.held;
            const std::size_t start = held.size();
            RedisBroker::appendPublish(held, true, options_, origin_, epoch_, topic, message, binary, compress);
            if (held.size() > options_.maxQueuedBytes) {
                held.truncate(start);
                ++droppedHere_;
                return;
            }
            ++move->second.heldMessages;
            return;
        }
    }
    owner(slot).publish(topic, message, binary, compress);
}

void RedisClusterBroker::readHistory(std::string_view topic, PubSubPosition since, PubSubHistoryHandler handler) {
    if (closed_) return;
    owner(RedisSlot::of(options_.prefix, topic)).readHistory(topic, since, std::move(handler));
}

void RedisClusterBroker::setInterest(std::string_view topic, bool interested) {
    if (closed_) return;
    auto found = topics_.find(topic);
    if (interested) {
        if (found == topics_.end())
            found = topics_.emplace(std::string(topic), Topic{RedisSlot::of(options_.prefix, topic), nullptr}).first;
        place(found->first, found->second, owner(found->second.slot));
        return;
    }
    if (found == topics_.end()) return;
    if (found->second.link != nullptr) found->second.link->setInterest(topic, false);
    topics_.erase(found);
}

void RedisClusterBroker::place(const std::string& name, Topic& topic, RedisBroker& to) {
    if (topic.link == &to) return;
    if (topic.link != nullptr) topic.link->setInterest(name, false);
    topic.link = &to;
    to.setInterest(name, true);
}

void RedisClusterBroker::placeAll() {
    for (auto& [name, topic] : topics_)
        place(name, topic, owner(topic.slot));
}

// ---- the links and the slot map ----

RedisBroker* RedisClusterBroker::linkTo(std::string_view host, std::uint16_t port, const RedisBroker& from) {
    if (host.empty()) host = from.endpoint().host;
    for (const auto& link : links_) {
        if (link->endpoint().port == port && link->endpoint().host == host) return link.get();
    }
    if (links_.size() >= kMaxLinks) return nullptr;
    BrokerUrl url = url_;
    url.endpoints.assign(1, BrokerUrl::Endpoint{std::string(host), port});
    links_.push_back(
        std::make_unique<RedisBroker>(loop_, std::move(url), options_, listener_, origin_, epoch_, shardListener()));
    links_.back()->start();
    return links_.back().get();
}

std::uint16_t RedisClusterBroker::indexOf(const RedisBroker& link) const noexcept {
    for (std::size_t i = 0; i < links_.size(); ++i) {
        if (links_[i].get() == &link) return static_cast<std::uint16_t>(i);
    }
    return 0;
}

void RedisClusterBroker::requestSlotMap() {
    mapWanted_ = true;
    if (mapLink_ != nullptr) return;
    for (const auto& link : links_) {
        if (link->requestSlotMap()) {
            mapLink_ = link.get();
            mapWanted_ = false;
            return;
        }
    }
}

void RedisClusterBroker::onLinkReady(RedisBroker& /*link*/) {
    if (mapWanted_) requestSlotMap();
}

void RedisClusterBroker::onLinkDown(RedisBroker& link) {
    if (mapLink_ == &link) mapLink_ = nullptr;
    // What the link had in flight will not be answered: the moves waiting for it end.
    std::vector<std::uint16_t> ended;
    for (const auto& [slot, move] : moves_) {
        if (move.from == &link) ended.push_back(slot);
    }
    for (const std::uint16_t slot : ended)
        finishMove(slot);
    // A master that went away may have been replaced by one of its replicas: the map says.
    requestSlotMap();
}

void RedisClusterBroker::onSlotMap(RedisBroker& link, const resp::RespValue& reply) {
    if (mapLink_ == &link) mapLink_ = nullptr;
    if (reply.isError()) {
        // Not a cluster node ("cluster support disabled"): that server carries every slot.
        std::fill(owner_.begin(), owner_.end(), indexOf(link));
    } else {
        std::vector<SlotRange> ranges;
        resp::RespReader elements = reply.elements();
        resp::RespValue element;
        while (elements.next(element)) {
            SlotRange range;
            if (readSlotRange(element, range)) ranges.push_back(range);
        }
        for (const SlotRange& range : ranges) {
            RedisBroker* target = linkTo(range.host, range.port, link);
            if (target == nullptr) break;  // past kMaxLinks: the rest keep their links
            std::fill(owner_.begin() + range.first, owner_.begin() + range.last + 1, indexOf(*target));
        }
    }
    placeAll();
    retireIdleLinks(link);
    if (mapWanted_) requestSlotMap();
}

void RedisClusterBroker::retireIdleLinks(const RedisBroker& keep) {
    std::vector<bool> owns(links_.size(), false);
    owns[0] = true;
    owns[indexOf(keep)] = true;
    for (const std::uint16_t index : owner_)
        owns[index] = true;
    for (const auto& [name, topic] : topics_) {
        if (topic.link != nullptr) owns[indexOf(*topic.link)] = true;
    }
    for (const auto& [slot, move] : moves_) {
        owns[indexOf(*move.from)] = true;
        owns[indexOf(*move.to)] = true;
    }
    std::vector<std::uint16_t> renumbered(links_.size(), 0);
    ByteBuffer orphans;
    std::vector<RedisHistoryRead> reads;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < links_.size(); ++i) {
        // A link whose read results wait for its flush is retired by a later map.
        if (owns[i] || links_[i]->ready() || links_[i]->hasAnswers()) {
            renumbered[i] = static_cast<std::uint16_t>(kept);
            if (kept != i) links_[kept] = std::move(links_[i]);
            ++kept;
            continue;
        }
        links_[i]->takeQueued(orphans);
        std::vector<RedisHistoryRead> taken = links_[i]->takeReads();
        std::move(taken.begin(), taken.end(), std::back_inserter(reads));
        if (mapLink_ == links_[i].get()) mapLink_ = nullptr;
        links_[i]->close();
        addCounters(retired_, links_[i]->stats());
        // Not freed here: this runs inside another link's read, and the retired one may be next in the same batch
        // of events (a reply, a refused connection).
        links_[i].release()->closeAndFreeAfterBatch();
    }
    if (kept == links_.size()) return;
    links_.resize(kept);
    for (std::uint16_t& index : owner_)
        index = renumbered[index];
    route(orphans.view());
    for (RedisHistoryRead& read : reads) {
        RedisBroker& to = owner(RedisSlot::of(options_.prefix, read.topic));
        to.adoptRead(std::move(read));
    }
}

void RedisClusterBroker::route(std::string_view commands) {
    resp::RespFramer framer;
    while (!commands.empty()) {
        const resp::RespResult command = framer.next(commands);
        if (command.status != resp::RespStatus::Complete) break;
        const std::string_view whole = commands.substr(0, command.consumed);
        owner(RedisSlot::of({}, channelOf(whole))).publishCommand(whole, false);
        commands.remove_prefix(command.consumed);
    }
}

void RedisClusterBroker::onPublishRedirected(RedisBroker& link, std::uint16_t slot, std::string_view host,
                                             std::uint16_t port, bool ask, std::string_view command) {
    RedisBroker* target = linkTo(host, port, link);
    if (target == nullptr) target = &owner(slot);
    if (target == &link) {
        // A node sending us back to itself: resending would go round for as long as it does.
        ++droppedHere_;
        requestSlotMap();
        return;
    }
    redirected_.clear();
    redirected_.append(command);
    if (!ask) {
        auto [move, fresh] = moves_.try_emplace(slot);
        move->second.to = target;
        if (fresh) {
            // The publishes link still has in flight come back MOVED too, in order, and are resent as they come;
            // until the PING after them is answered, new ones wait.
            move->second.from = &link;
            link.requestBarrier(slot);
            for (auto& [name, topic] : topics_) {
                if (topic.slot == slot) place(name, topic, *target);
            }
            requestSlotMap();
        }
    }
    target->publishCommand(redirected_.view(), ask);
}

void RedisClusterBroker::onBarrier(RedisBroker& link, std::uint16_t slot) {
    const auto move = moves_.find(slot);
    if (move != moves_.end() && move->second.from == &link) finishMove(slot);
}

void RedisClusterBroker::finishMove(std::uint16_t slot) {
    const auto move = moves_.find(slot);
    owner_[slot] = indexOf(*move->second.to);
    const ByteBuffer held = std::move(move->second.held);
    moves_.erase(move);
    route(held.view());
}

void RedisClusterBroker::onSubscriptionMoved(RedisBroker& link, std::uint16_t slot, std::string_view host,
                                             std::uint16_t port) {
    RedisBroker* target = linkTo(host, port, link);
    if (target != nullptr) owner_[slot] = indexOf(*target);
    for (auto& [name, topic] : topics_) {
        if (topic.slot != slot || topic.link != &link) continue;
        topic.link = nullptr;  // the link dropped it already
        place(name, topic, owner(slot));
    }
    requestSlotMap();
}

void RedisClusterBroker::onReadRedirected(RedisBroker& link, std::uint16_t slot, std::string_view host,
                                          std::uint16_t port, RedisHistoryRead read) {
    RedisBroker* target = linkTo(host, port, link);
    if (target == nullptr) target = &owner(slot);
    // MOVED: the map is out of date. ASK: the slot is moving, and the map will say so once it has.
    if (!read.asking) requestSlotMap();
    // Back to the node that answered is allowed: the read's redirect count ends a loop.
    target->adoptRead(std::move(read));
}

void RedisClusterBroker::onSubscriptionLost(RedisBroker& link, std::string_view name) {
    const auto found = topics_.find(name);
    if (found != topics_.end() && found->second.link == &link) {
        found->second.link = nullptr;
        // Where the map says; if it is out of date, that node's MOVED says where the slot went.
        place(found->first, found->second, owner(found->second.slot));
    }
    requestSlotMap();
}

// ---- reporting and closing ----

void RedisClusterBroker::addCounters(PubSubStats& total, const PubSubStats& one) noexcept {
    total.published += one.published;
    total.delivered += one.delivered;
    total.dropped += one.dropped;
    total.reconnects += one.reconnects;
    total.errors += one.errors;
    total.queuedMessages += one.queuedMessages;
    total.queuedBytes += one.queuedBytes;
}

PubSubStats RedisClusterBroker::stats() const noexcept {
    PubSubStats total = retired_;
    total.dropped += droppedHere_;
    for (const auto& [slot, move] : moves_) {
        total.queuedMessages += move.heldMessages;
        total.queuedBytes += move.held.size();
    }
    bool allReady = true;
    bool anyDown = false;
    for (const auto& link : links_) {
        const PubSubStats one = link->stats();
        addCounters(total, one);
        allReady = allReady && one.state == PubSubState::Ready;
        anyDown = anyDown || one.state == PubSubState::Disconnected;
    }
    total.state = closed_    ? PubSubState::Closed
                  : allReady ? PubSubState::Ready
                  : anyDown  ? PubSubState::Disconnected
                             : PubSubState::Connecting;
    return total;
}

void RedisClusterBroker::close() noexcept {
    if (closed_) return;
    closed_ = true;
    mapLink_ = nullptr;
    moves_.clear();
    for (const auto& link : links_)
        link->close();
}

void RedisClusterBroker::finishClose() {
    for (const auto& link : links_)
        link->finishClose();
}

}  // namespace loopwire::broker
