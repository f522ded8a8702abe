// RedisCluster: a real Redis Cluster of three masters (no replicas) for a test, each node a RedisServer on a free
// port in its own temporary folder, made with `redis-cli --cluster create`. The destructor stops every node.
#pragma once

#include "RedisServer.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace loopwire::test {

class RedisCluster {
public:
    static constexpr int kNodes = 3;

    RedisCluster();

    // Whether the cluster was made and every node saw it whole within a deadline.
    bool ready() const { return created_; }
    RedisServer& node(int i) { return *nodes_[static_cast<std::size_t>(i)]; }
    // The node that owns slot now, as node i's CLUSTER SLOTS says.
    int ownerOf(std::uint16_t slot, int asked = 0);
    std::string idOf(int i);
    // Moves slot from its owner to node `to`, the way a resharding does (beginMove, then finishMove). Returns
    // whether every node agreed.
    bool moveSlot(std::uint16_t slot, int to);
    // The first half: IMPORTING on `to`, MIGRATING on the owner, and the slot's keys MIGRATEd to `to`; the owner
    // then answers ASK for them.
    bool beginMove(std::uint16_t slot, int to);
    // The second half: NODE on every node (`to` first, then the old owner `from`), which then answers MOVED.
    bool finishMove(std::uint16_t slot, int from, int to);

private:
    std::array<std::unique_ptr<RedisServer>, kNodes> nodes_;
    bool created_ = false;
};

}  // namespace loopwire::test
