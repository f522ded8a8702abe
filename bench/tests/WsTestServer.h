// WsTestServer: the server side of WebSocket framing and the handshake, just enough for the worker tests.
#pragma once

#include "LoopbackServer.h"
#include "WsHandshake.h"

#include <cstdint>
#include <string>
#include <string_view>

#include <unistd.h>

namespace loopwire::lwload::test {

// An unmasked server frame whose first byte is `first` (FIN, RSV and opcode).
inline std::string serverFrame(std::uint8_t first, std::string_view payload) {
    std::string out(1, static_cast<char>(first));
    const std::size_t n = payload.size();
    if (n < 126) {
        out.push_back(static_cast<char>(n));
    } else if (n <= 0xffff) {
        out.push_back(126);
        out.push_back(static_cast<char>(n >> 8));
        out.push_back(static_cast<char>(n));
    } else {
        out.push_back(127);
        for (int shift = 56; shift >= 0; shift -= 8)
            out.push_back(static_cast<char>(static_cast<std::uint64_t>(n) >> shift));
    }
    return out.append(payload);
}

// Reads one client frame, checking that it is masked; returns its opcode and unmasked payload.
inline bool readClientFrame(int fd, std::string& pending, int& opcode, std::string& payload) {
    auto need = [&](std::size_t n) {
        while (pending.size() < n) {
            char chunk[8192];
            const ssize_t r = read(fd, chunk, sizeof chunk);
            if (r <= 0) return false;
            pending.append(chunk, static_cast<std::size_t>(r));
        }
        return true;
    };
    if (!need(2)) return false;
    opcode = pending[0] & 0x0f;
    if ((pending[1] & 0x80) == 0) return false;  // client frames must be masked
    std::uint64_t length = pending[1] & 0x7f;
    std::size_t header = 2;
    if (length == 126) {
        if (!need(4)) return false;
        length = (std::uint64_t{static_cast<std::uint8_t>(pending[2])} << 8) | static_cast<std::uint8_t>(pending[3]);
        header = 4;
    } else if (length == 127) {
        if (!need(10)) return false;
        length = 0;
        for (int i = 2; i < 10; ++i)
            length = (length << 8) | static_cast<std::uint8_t>(pending[static_cast<std::size_t>(i)]);
        header = 10;
    }
    if (!need(header + 4 + length)) return false;
    const std::string mask = pending.substr(header, 4);
    payload = pending.substr(header + 4, length);
    for (std::size_t i = 0; i < payload.size(); ++i)
        payload[i] = static_cast<char>(payload[i] ^ mask[i & 3]);
    pending.erase(0, header + 4 + length);
    return true;
}

inline bool acceptUpgrade(int fd, std::string& pending) {
    std::string head;
    if (!LoopbackServer::readHead(fd, pending, head)) return false;
    const std::size_t at = head.find("Sec-WebSocket-Key: ");
    if (at == std::string::npos) return false;
    const std::string key = head.substr(at + 19, 24);
    return LoopbackServer::writeAll(fd,
                                    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                                    "Connection: Upgrade\r\nSec-WebSocket-Accept: " +
                                        computeAccept(key) + "\r\n\r\n");
}

}  // namespace loopwire::lwload::test
