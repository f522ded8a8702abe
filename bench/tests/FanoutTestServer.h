// FanoutTestServer: a scripted fan-out server for the fanout worker tests, on LoopbackServer (a thread per
// connection). A connection whose upgrade request has "role=sub" in its target is a subscriber; every message
// any other connection sends is written to every subscriber, in the order they joined. With socketIo, each
// connection speaks engine.io first, as socket.io's server does: it sends the open packet, waits for the client's
// namespace connect ("40") and acknowledges it, a subscriber joining then; pings are engine.io's ("2").
#pragma once

#include "LoopbackServer.h"
#include "WsTestServer.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace loopwire::lwload::test {

struct FanoutScript {
    int dropEvery = 0;       // skip every n-th message to the first subscriber (a lost message)
    bool pingFirst = false;  // send each subscriber a ping before each message
    bool echoToPublisher = false;
    bool socketIo = false;
    // Each message to subscribers gets "<epoch>:<offset>:" in front, as loopwire's history does; a stampOffsetStep
    // of 0 repeats the offset.
    bool stamp = false;
    int stampOffsetStep = 1;
    std::atomic<int> published{0};
    std::atomic<int> pongs{0};
    std::atomic<int> namespaceConnects{0};  // socketIo: "40" packets received
    std::atomic<int> notEvents{0};          // socketIo: publisher messages that are not an event packet of "m"
    std::mutex mutex;                       // guards subscribers and every write to a subscriber
    std::vector<int> subscribers;
};

inline LoopbackServer::Handler fanoutServer(FanoutScript& script) {
    return [&script](int fd) {
        std::string pending;
        std::string head;
        if (!LoopbackServer::readHead(fd, pending, head)) return;
        const std::size_t at = head.find("Sec-WebSocket-Key: ");
        if (at == std::string::npos) return;
        const std::string response =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Accept: " +
            computeAccept(head.substr(at + 19, 24)) + "\r\n\r\n";
        const bool subscriber = head.substr(0, head.find("\r\n")).find("role=sub") != std::string::npos;
        int opcode = 0;
        std::string payload;
        if (script.socketIo) {
            if (!LoopbackServer::writeAll(fd, response + serverFrame(0x81, R"(0{"sid":"s","pingInterval":25000})")))
                return;
            if (!readClientFrame(fd, pending, opcode, payload) || opcode != 1 || payload != "40") return;
            ++script.namespaceConnects;
            std::lock_guard<std::mutex> lock(script.mutex);
            if (!LoopbackServer::writeAll(fd, serverFrame(0x81, R"(40{"sid":"n"})"))) return;
            if (subscriber) script.subscribers.push_back(fd);
        }
        if (subscriber) {
            // Joined before the client can learn it is open, as a server subscribes in its open handler.
            if (!script.socketIo) {
                std::lock_guard<std::mutex> lock(script.mutex);
                if (!LoopbackServer::writeAll(fd, response)) return;
                script.subscribers.push_back(fd);
            }
            while (readClientFrame(fd, pending, opcode, payload)) {
                if (opcode == 8) break;
                if (opcode == 10 || (script.socketIo && opcode == 1 && payload == "3")) ++script.pongs;
            }
            std::lock_guard<std::mutex> lock(script.mutex);
            script.subscribers.erase(std::remove(script.subscribers.begin(), script.subscribers.end(), fd),
                                     script.subscribers.end());
            return;
        }
        if (!script.socketIo && !LoopbackServer::writeAll(fd, response)) return;
        while (readClientFrame(fd, pending, opcode, payload)) {
            if (opcode == 8) return;
            if (opcode != 1 && opcode != 2) continue;
            if (script.socketIo && !payload.starts_with(R"(42["m",")")) ++script.notEvents;
            const int n = ++script.published;
            const std::string stamp =
                script.stamp ? "0f1e2d3c4b5a6978:" + std::to_string(1 + (n - 1) * script.stampOffsetStep) + ":" : "";
            const std::string frame = serverFrame(static_cast<std::uint8_t>(0x80 | opcode), payload);
            const std::string toSubscribers =
                script.stamp ? serverFrame(static_cast<std::uint8_t>(0x80 | opcode), stamp + payload) : frame;
            if (script.echoToPublisher && !LoopbackServer::writeAll(fd, frame)) return;
            std::lock_guard<std::mutex> lock(script.mutex);
            for (std::size_t i = 0; i < script.subscribers.size(); ++i) {
                if (script.dropEvery != 0 && i == 0 && n % script.dropEvery == 0) continue;
                if (script.pingFirst) {
                    LoopbackServer::writeAll(script.subscribers[i], script.socketIo ? serverFrame(0x81, "2")
                                                                                    : serverFrame(0x89, "still there"));
                }
                LoopbackServer::writeAll(script.subscribers[i], toSubscribers);
            }
        }
    };
}

}  // namespace loopwire::lwload::test
