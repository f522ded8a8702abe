// FanoutTestServer: a scripted fan-out server for the fanout worker tests, on LoopbackServer (a thread per
// connection). A connection whose upgrade request has "role=sub" in its target is a subscriber; every message
// any other connection sends is written to every subscriber, in the order they joined.
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
    std::atomic<int> published{0};
    std::atomic<int> pongs{0};
    std::mutex mutex;  // guards subscribers and every write to a subscriber
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
        if (subscriber) {
            // Joined before the client can learn it is open, as a server subscribes in its open handler.
            {
                std::lock_guard<std::mutex> lock(script.mutex);
                if (!LoopbackServer::writeAll(fd, response)) return;
                script.subscribers.push_back(fd);
            }
            int opcode = 0;
            std::string payload;
            while (readClientFrame(fd, pending, opcode, payload)) {
                if (opcode == 8) break;
                if (opcode == 10) ++script.pongs;
            }
            std::lock_guard<std::mutex> lock(script.mutex);
            script.subscribers.erase(std::remove(script.subscribers.begin(), script.subscribers.end(), fd),
                                     script.subscribers.end());
            return;
        }
        if (!LoopbackServer::writeAll(fd, response)) return;
        int opcode = 0;
        std::string payload;
        while (readClientFrame(fd, pending, opcode, payload)) {
            if (opcode == 8) return;
            if (opcode != 1 && opcode != 2) continue;
            const int n = ++script.published;
            const std::string frame = serverFrame(static_cast<std::uint8_t>(0x80 | opcode), payload);
            if (script.echoToPublisher && !LoopbackServer::writeAll(fd, frame)) return;
            std::lock_guard<std::mutex> lock(script.mutex);
            for (std::size_t i = 0; i < script.subscribers.size(); ++i) {
                if (script.dropEvery != 0 && i == 0 && n % script.dropEvery == 0) continue;
                if (script.pingFirst) LoopbackServer::writeAll(script.subscribers[i], serverFrame(0x89, "still there"));
                LoopbackServer::writeAll(script.subscribers[i], frame);
            }
        }
    };
}

}  // namespace loopwire::lwload::test
