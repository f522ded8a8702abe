#include "pubsub/TopicTree.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace loopwire {
namespace {

struct Socket {
    int id = 0;
};

using Tree = TopicTree<Socket>;

// What each subscriber got from one drain: one delivery per subscriber, its messages joined with '|'.
std::map<int, std::string> drainAll(Tree& tree, int* deliveries = nullptr) {
    std::map<int, std::string> got;
    tree.drain([&](Socket* socket, const std::vector<std::string_view>& messages) {
        std::string joined;
        for (std::string_view message : messages)
            joined += std::string(message) + "|";
        EXPECT_TRUE(got.emplace(socket->id, joined).second) << "one delivery per subscriber and drain";
        if (deliveries != nullptr) ++*deliveries;
    });
    return got;
}

TEST(TopicTree, SubscribeUnsubscribeAndCounts) {
    Tree tree;
    Socket a{1}, b{2};
    Tree::Change first = tree.subscribe(&a, "room/1");
    EXPECT_TRUE(first.changed);
    EXPECT_EQ(first.oldCount, 0u);
    EXPECT_EQ(first.newCount, 1u);
    EXPECT_FALSE(tree.subscribe(&a, "room/1").changed);
    EXPECT_EQ(tree.subscribe(&b, "room/1").newCount, 2u);
    EXPECT_EQ(tree.subscriberCount("room/1"), 2u);
    EXPECT_TRUE(tree.isSubscribed(&a, "room/1"));
    EXPECT_FALSE(tree.isSubscribed(&a, "room/2"));
    EXPECT_FALSE(tree.isSubscribed(&a, "room"));  // exact names, no prefixes or wildcards

    Tree::Change left = tree.unsubscribe(&a, "room/1");
    EXPECT_TRUE(left.changed);
    EXPECT_EQ(left.oldCount, 2u);
    EXPECT_EQ(left.newCount, 1u);
    EXPECT_FALSE(tree.unsubscribe(&a, "room/1").changed);
    EXPECT_FALSE(tree.unsubscribe(&a, "never").changed);
    tree.unsubscribe(&b, "room/1");
    EXPECT_EQ(tree.subscriberCount("room/1"), 0u);
    EXPECT_EQ(tree.topicCount(), 0u) << "a topic nobody listens to is forgotten";
}

TEST(TopicTree, TheTopicsOfASubscriberInSubscriptionOrder) {
    Tree tree;
    Socket a{1};
    for (const char* topic : {"b", "a", "c"})
        tree.subscribe(&a, topic);
    tree.unsubscribe(&a, "a");
    std::vector<std::string> topics;
    tree.forEachTopic(&a, [&](std::string_view topic) { topics.emplace_back(topic); });
    EXPECT_EQ(topics, (std::vector<std::string>{"b", "c"}));
}

TEST(TopicTree, APublishReachesEverySubscriberButTheSender) {
    Tree tree;
    Socket a{1}, b{2}, c{3};
    tree.subscribe(&a, "chat");
    tree.subscribe(&b, "chat");
    tree.subscribe(&c, "news");
    EXPECT_EQ(tree.publish("chat", "from a", &a), 1u);
    EXPECT_EQ(tree.publish("chat", "from the app"), 2u);
    EXPECT_EQ(tree.publish("nobody", "lost"), 0u);
    EXPECT_TRUE(tree.hasWaiting());
    EXPECT_EQ(drainAll(tree), (std::map<int, std::string>{{1, "from the app|"}, {2, "from a|from the app|"}}));
    EXPECT_FALSE(tree.hasWaiting());
    EXPECT_TRUE(drainAll(tree).empty());
}

TEST(TopicTree, ManyPublishesAreOneDeliveryPerSubscriberInPublishOrder) {
    Tree tree;
    Socket a{1}, b{2};
    tree.subscribe(&a, "x");
    tree.subscribe(&a, "y");
    tree.subscribe(&b, "y");
    tree.publish("x", "1");
    tree.publish("y", "2");
    tree.publish("x", "3");
    tree.publish("y", "4", &b);
    int deliveries = 0;
    EXPECT_EQ(drainAll(tree, &deliveries), (std::map<int, std::string>{{1, "1|2|3|4|"}, {2, "2|"}}));
    EXPECT_EQ(deliveries, 2);
}

TEST(TopicTree, AMessageForTenThousandSubscribersIsStoredOnce) {
    Tree tree;
    std::vector<Socket> sockets(10000);
    for (std::size_t i = 0; i < sockets.size(); ++i) {
        sockets[i].id = static_cast<int>(i);
        tree.subscribe(&sockets[i], "fanout");
    }
    const std::string message(1000, 'm');
    EXPECT_EQ(tree.publish("fanout", message), sockets.size());
    const char* first = nullptr;
    std::size_t delivered = 0;
    tree.drain([&](Socket*, const std::vector<std::string_view>& messages) {
        ASSERT_EQ(messages.size(), 1u);
        ASSERT_EQ(messages[0], message);
        // Every subscriber's view points at the same bytes: the message was not copied per subscriber.
        if (first == nullptr) first = messages[0].data();
        EXPECT_EQ(messages[0].data(), first);
        ++delivered;
    });
    EXPECT_EQ(delivered, sockets.size());
}

TEST(TopicTree, ASubscriberGetsWhatWasPublishedWhileItWasSubscribed) {
    Tree tree;
    Socket a{1}, b{2};
    tree.subscribe(&a, "t");
    tree.publish("t", "before b");
    tree.subscribe(&b, "t");
    tree.publish("t", "after b");
    tree.unsubscribe(&a, "t");
    EXPECT_EQ(drainAll(tree), (std::map<int, std::string>{{1, "before b|after b|"}, {2, "after b|"}}));
}

TEST(TopicTree, RemovingASubscriberUnsubscribesItAndDropsWhatWaitedForIt) {
    Tree tree;
    Socket a{1}, b{2};
    tree.subscribe(&a, "t");
    tree.subscribe(&a, "u");
    tree.subscribe(&b, "t");
    tree.publish("t", "m");
    std::vector<std::string> changes;
    tree.remove(&a, [&](std::string_view topic, Tree::Change change) {
        changes.push_back(std::string(topic) + " " + std::to_string(change.oldCount) + "->" +
                          std::to_string(change.newCount));
    });
    EXPECT_EQ(changes, (std::vector<std::string>{"t 2->1", "u 1->0"}));
    EXPECT_FALSE(tree.isSubscribed(&a, "t"));
    EXPECT_EQ(tree.topicCount(), 1u);
    EXPECT_EQ(drainAll(tree), (std::map<int, std::string>{{2, "m|"}}));
    tree.remove(&a);  // twice: nothing
}

TEST(TopicTree, EmptyAndBinaryMessagesAndTopics) {
    Tree tree;
    Socket a{1};
    const std::string binaryTopic("\0\xff", 2);
    tree.subscribe(&a, binaryTopic);
    tree.subscribe(&a, "");
    tree.publish(binaryTopic, std::string("\0\x01", 2));
    tree.publish("", "");
    std::vector<std::string> got;
    tree.drain([&](Socket*, const std::vector<std::string_view>& messages) {
        for (std::string_view m : messages)
            got.emplace_back(m);
    });
    EXPECT_EQ(got, (std::vector<std::string>{std::string("\0\x01", 2), ""}));
}

}  // namespace
}  // namespace loopwire
