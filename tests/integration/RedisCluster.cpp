#include "RedisCluster.h"

#include "broker/RespReader.h"

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace loopwire::test {

using namespace std::chrono_literals;

RedisCluster::RedisCluster(bool withReplicas) {
    for (int i = 0; i < (withReplicas ? 2 : 1) * kMasters; ++i) {
        std::vector<std::string> arguments{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"};
        if (withReplicas) {
            arguments.insert(arguments.end(), {"--cluster-node-timeout", std::to_string(kFailoverNodeTimeoutMs)});
        }
        nodes_.push_back(std::make_unique<RedisServer>(std::move(arguments), false, true));
    }
    std::string create = "redis-cli --cluster create";
    for (auto& node : nodes_)
        create += " 127.0.0.1:" + std::to_string(node->port());
    create += withReplicas ? " --cluster-replicas 1" : " --cluster-replicas 0";
    create += " --cluster-yes >/dev/null 2>&1";
    created_ = std::system(create.c_str()) == 0;
    // Every node must see the whole cluster before it routes anything: seconds, more on a loaded machine.
    const auto deadline = std::chrono::steady_clock::now() + kReadyTimeout;
    for (auto& node : nodes_) {
        while (node->command({"CLUSTER", "INFO"}).find("cluster_state:ok") == std::string::npos) {
            if (std::chrono::steady_clock::now() > deadline) {
                created_ = false;
                return;
            }
            std::this_thread::sleep_for(20ms);
        }
        // A replica can take over only once it has its master's data.
        for (;;) {
            const std::string replication = node->command({"INFO", "replication"});
            if (replication.find("role:slave") == std::string::npos ||
                replication.find("master_link_status:up") != std::string::npos)
                break;
            if (std::chrono::steady_clock::now() > deadline) {
                created_ = false;
                return;
            }
            std::this_thread::sleep_for(20ms);
        }
    }
}

int RedisCluster::ownerOf(std::uint16_t slot, int asked) {
    const std::string reply = node(asked).command({"CLUSTER", "SLOTS"});
    resp::RespReader reader(reply);
    resp::RespValue ranges;
    if (!reader.next(ranges)) return -1;
    resp::RespReader each = ranges.elements();
    resp::RespValue range;
    while (each.next(range)) {
        resp::RespReader fields = range.elements();
        resp::RespValue first;
        resp::RespValue last;
        resp::RespValue master;
        if (!fields.next(first) || !fields.next(last) || !fields.next(master)) return -1;
        if (slot < first.integer || slot > last.integer) continue;
        resp::RespReader address = master.elements();
        resp::RespValue host;
        resp::RespValue port;
        if (!address.next(host) || !address.next(port)) return -1;
        for (int i = 0; i < nodeCount(); ++i) {
            if (node(i).port() == port.integer) return i;
        }
    }
    return -1;
}

std::string RedisCluster::idOf(int i) {
    const std::string reply = node(i).command({"CLUSTER", "MYID"});
    resp::RespReader reader(reply);
    resp::RespValue id;
    return reader.next(id) ? std::string(id.text) : std::string();
}

bool RedisCluster::moveSlot(std::uint16_t slot, int to) {
    const int from = ownerOf(slot);
    return beginMove(slot, to) && finishMove(slot, from, to);
}

bool RedisCluster::beginMove(std::uint16_t slot, int to) {
    const int from = ownerOf(slot);
    if (from < 0 || from == to) return false;
    const std::string number = std::to_string(slot);
    bool agreed = node(to).command({"CLUSTER", "SETSLOT", number, "IMPORTING", idOf(from)}) == "+OK\r\n";
    agreed = agreed && node(from).command({"CLUSTER", "SETSLOT", number, "MIGRATING", idOf(to)}) == "+OK\r\n";
    while (agreed) {
        const std::string reply = node(from).command({"CLUSTER", "GETKEYSINSLOT", number, "100"});
        resp::RespReader reader(reply);
        resp::RespValue keys;
        if (!reader.next(keys) || keys.type != resp::RespType::Array) return false;
        if (keys.integer == 0) break;
        // MIGRATE host port "" 0 timeout KEYS key...
        std::vector<std::string> arguments{"MIGRATE", "127.0.0.1", std::to_string(node(to).port()), "", "0",
                                           "5000",    "KEYS"};
        resp::RespReader each = keys.elements();
        resp::RespValue key;
        while (each.next(key))
            arguments.emplace_back(key.text);
        agreed = node(from).command(arguments) == "+OK\r\n";
    }
    return agreed;
}

bool RedisCluster::finishMove(std::uint16_t slot, int from, int to) {
    const std::string number = std::to_string(slot);
    // The new owner first, then the old one, then the rest, as redis-cli --cluster reshard does.
    bool agreed = node(to).command({"CLUSTER", "SETSLOT", number, "NODE", idOf(to)}) == "+OK\r\n";
    agreed = agreed && node(from).command({"CLUSTER", "SETSLOT", number, "NODE", idOf(to)}) == "+OK\r\n";
    for (int i = 0; i < nodeCount(); ++i) {
        if (i != to && i != from)
            agreed = agreed && node(i).command({"CLUSTER", "SETSLOT", number, "NODE", idOf(to)}) == "+OK\r\n";
    }
    return agreed;
}

}  // namespace loopwire::test
