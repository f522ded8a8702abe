// TopicTree<Subscriber>: WebSocket pub/sub bookkeeping, as uWebSockets v20 does it: exact topic names (no
// wildcards), subscriptions per subscriber, and publishes batched so that each subscriber gets all the messages
// of a loop iteration in one delivery, in the order they were published.
//
// publish() stores the message's bytes once, whatever the number of subscribers (the caller gives them already
// formatted, a WebSocket frame compressed or not, so formatting is once per message too), and notes it for every
// subscriber of the topic at that moment but the sender. drain() then calls deliver(subscriber, messages) once per
// subscriber with messages waiting, messages being the views of its messages in publish order. A caller that sends
// to a subscriber directly drains first, so that a direct send never overtakes an earlier publish.
//
// Pure: no sockets, no loop; Subscriber is only ever used by pointer, as a key. Subscribing allocates (a topic's
// first subscriber creates it; a subscriber's first subscription creates its entry); publishing and draining do
// not once the buffers have grown to the largest batch. Not thread-safe: one tree per loop.
#pragma once

#include "base/ByteBuffer.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace loopwire {

template <typename Subscriber>
class TopicTree {
public:
    // What a subscription change did: the topic's subscriber count before and after (equal when nothing changed,
    // as for a second subscribe() to the same topic). The caller reports it (uWebSockets' `subscription` event).
    struct Change {
        bool changed = false;
        std::size_t oldCount = 0;
        std::size_t newCount = 0;
    };

    Change subscribe(Subscriber* subscriber, std::string_view topicName) {
        Topic* topic = findTopic(topicName);
        if (topic == nullptr) {
            auto created = std::make_unique<Topic>();
            created->name.assign(topicName);
            topic = created.get();
            topics_.emplace(std::string_view(topic->name), std::move(created));
        }
        const std::size_t before = topic->subscribers.size();
        State& state = stateOf(subscriber);
        if (std::find(state.topics.begin(), state.topics.end(), topic) != state.topics.end()) {
            return {false, before, before};
        }
        state.topics.push_back(topic);
        topic->subscribers.push_back(subscriber);
        return {true, before, before + 1};
    }

    Change unsubscribe(Subscriber* subscriber, std::string_view topicName) {
        Topic* topic = findTopic(topicName);
        if (topic == nullptr) return {};
        const std::size_t before = topic->subscribers.size();
        auto state = states_.find(subscriber);
        if (state == states_.end() || !eraseValue(state->second.topics, topic)) return {false, before, before};
        eraseValue(topic->subscribers, subscriber);
        removeIfUnused(topic);
        return {true, before, before - 1};
    }

    bool isSubscribed(const Subscriber* subscriber, std::string_view topicName) const {
        auto state = states_.find(const_cast<Subscriber*>(subscriber));
        if (state == states_.end()) return false;
        for (const Topic* topic : state->second.topics) {
            if (topic->name == topicName) return true;
        }
        return false;
    }

    // Calls f(std::string_view topic) for each topic the subscriber is subscribed to, in subscription order.
    template <typename F>
    void forEachTopic(const Subscriber* subscriber, F&& f) const {
        auto state = states_.find(const_cast<Subscriber*>(subscriber));
        if (state == states_.end()) return;
        for (const Topic* topic : state->second.topics)
            f(std::string_view(topic->name));
    }

    // Calls f(std::string_view topic) for every topic that has subscribers.
    template <typename F>
    void forEachTopicName(F&& f) const {
        for (const auto& entry : topics_)
            f(entry.first);
    }

    std::size_t subscriberCount(std::string_view topicName) const {
        const Topic* topic = findTopic(topicName);
        return topic == nullptr ? 0 : topic->subscribers.size();
    }

    // Forgets a subscriber that is going away: unsubscribes it from everything (calling
    // onChange(std::string_view topic, Change) for each) and drops what was waiting for it.
    template <typename F>
    void remove(Subscriber* subscriber, F&& onChange) {
        auto state = states_.find(subscriber);
        if (state == states_.end()) return;
        std::vector<Topic*> topics = std::move(state->second.topics);
        states_.erase(state);
        for (Topic* topic : topics) {
            const std::size_t before = topic->subscribers.size();
            eraseValue(topic->subscribers, subscriber);
            onChange(std::string_view(topic->name), Change{true, before, before - 1});
            removeIfUnused(topic);
        }
    }
    void remove(Subscriber* subscriber) {
        remove(subscriber, [](std::string_view, Change) {});
    }

    // Stores message for every subscriber of topicName but sender (null: the app publishes, everyone gets it).
    // Returns how many subscribers it is waiting for.
    std::size_t publish(std::string_view topicName, std::string_view message, const Subscriber* sender = nullptr) {
        Topic* topic = findTopic(topicName);
        if (topic == nullptr) return 0;
        const auto index = static_cast<std::uint32_t>(messages_.size());
        std::size_t recipients = 0;
        for (Subscriber* subscriber : topic->subscribers) {
            if (subscriber == sender) continue;
            State& state = states_.find(subscriber)->second;
            if (state.waiting.empty()) waitingSubscribers_.push_back(subscriber);
            state.waiting.push_back(index);
            ++recipients;
        }
        if (recipients > 0) {
            messages_.push_back(Message{bytes_.size(), message.size()});
            bytes_.append(message);
        }
        return recipients;
    }

    bool hasWaiting() const noexcept { return !waitingSubscribers_.empty(); }

    // Calls deliver(Subscriber*, const std::vector<std::string_view>& messages) once per subscriber with messages
    // waiting, in the order the subscribers first got one, then forgets the batch. deliver must not publish,
    // subscribe or remove (a publish made while delivering belongs to the next batch: queue it and publish after).
    template <typename Deliver>
    void drain(Deliver&& deliver) {
        for (Subscriber* subscriber : waitingSubscribers_) {
            auto state = states_.find(subscriber);
            if (state == states_.end()) continue;  // removed since
            views_.clear();
            for (std::uint32_t index : state->second.waiting) {
                const Message& message = messages_[index];
                views_.emplace_back(bytes_.data() + message.offset, message.size);
            }
            state->second.waiting.clear();
            if (!views_.empty()) deliver(subscriber, views_);
        }
        waitingSubscribers_.clear();
        messages_.clear();
        bytes_.clear();
    }

    std::size_t topicCount() const noexcept { return topics_.size(); }

private:
    struct Topic {
        std::string name;
        std::vector<Subscriber*> subscribers;
    };
    struct State {
        std::vector<Topic*> topics;
        std::vector<std::uint32_t> waiting;  // indexes into messages_, in publish order
    };
    struct Message {
        std::size_t offset;
        std::size_t size;
    };

    Topic* findTopic(std::string_view name) const {
        auto found = topics_.find(name);
        return found == topics_.end() ? nullptr : found->second.get();
    }

    State& stateOf(Subscriber* subscriber) { return states_[subscriber]; }

    template <typename T>
    static bool eraseValue(std::vector<T>& values, const T& value) {
        auto found = std::find(values.begin(), values.end(), value);
        if (found == values.end()) return false;
        values.erase(found);
        return true;
    }

    // Messages keep their bytes in bytes_, not in the topic, so a topic can go as soon as nobody listens.
    void removeIfUnused(Topic* topic) {
        if (!topic->subscribers.empty()) return;
        // Erased by position: the key is a view of the name the erase destroys.
        topics_.erase(topics_.find(std::string_view(topic->name)));
    }

    // Keyed by a view of the Topic's own name, which lives as long as the entry.
    std::unordered_map<std::string_view, std::unique_ptr<Topic>> topics_;
    std::unordered_map<Subscriber*, State> states_;
    std::vector<Subscriber*> waitingSubscribers_;
    std::vector<Message> messages_;
    std::vector<std::string_view> views_;
    ByteBuffer bytes_;
};

}  // namespace loopwire
