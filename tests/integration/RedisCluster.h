// RedisCluster: a real Redis Cluster of three masters for a test, with no replicas or with one per master, each node
// a RedisServer on a free port in its own temporary folder, made with `redis-cli --cluster create`. The destructor
// stops every node.
#pragma once

#include "RedisServer.h"

#include <cstdint>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace loopwire::test {

class RedisCluster {
public:
    static constexpr int kMasters = 3;
    // With replicas, a master that stops answering for this long is failed over to its replica.
    static constexpr int kFailoverNodeTimeoutMs = 1000;
    // How long the nodes may take to agree that the cluster is whole.
    static constexpr std::chrono::seconds kReadyTimeout{30};

    // With replicas, kMasters of the 2 * kMasters nodes are masters (ownerOf says which), each replica in sync with
    // its master when ready() says so.
    explicit RedisCluster(bool withReplicas = false);

    // Whether the cluster was made and every node saw it whole within a deadline.
    bool ready() const { return created_; }
    RedisServer& node(int i) { return *nodes_[static_cast<std::size_t>(i)]; }
    int nodeCount() const { return static_cast<int>(nodes_.size()); }
    // The node that owns slot now, as node `asked`'s CLUSTER SLOTS says; -1 when it cannot say.
    int ownerOf(std::uint16_t slot, int asked = 0);
    std::string idOf(int i);
    // (Without replicas.) Moves slot from its owner to node `to`, the way a resharding does (beginMove, then
    // finishMove). Returns whether every node agreed.
    bool moveSlot(std::uint16_t slot, int to);
    // The first half: IMPORTING on `to`, MIGRATING on the owner, and the slot's keys MIGRATEd to `to`; the owner
    // then answers ASK for them.
    bool beginMove(std::uint16_t slot, int to);
    // The second half: NODE on every node (`to` first, then the old owner `from`), which then answers MOVED.
    bool finishMove(std::uint16_t slot, int from, int to);

private:
    std::vector<std::unique_ptr<RedisServer>> nodes_;
    bool created_ = false;
};

}  // namespace loopwire::test
