// WsTestClient: the client side of a WebSocket over a TestClient, for the integration tests: the upgrade
// request, masked frames (well formed or deliberately not; tests/WsFrames.h makes them), and the server's frames
// read with a deadline.
#pragma once

#include "../WsFrames.h"
#include "TestClient.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace loopwire::test {

class WsTestClient {
public:
    explicit WsTestClient(int port) : client_(port) {}

    TestClient& raw() noexcept { return client_; }

    // Sends upgradeRequest(path, extraHeaders) and reads the response head. For a 101, frames follow.
    std::optional<Response> handshake(std::string_view path = "/ws", std::string_view extraHeaders = {});
    // Reads a response head only (no body: a 101's connection goes on as a WebSocket).
    std::optional<Response> readHead(std::chrono::milliseconds deadline = TestClient::kDefaultDeadline);

    void send(std::string_view bytes) { client_.send(bytes); }
    void sendFrame(std::uint8_t opcode, std::string_view payload, bool fin = true, std::uint8_t rsv = 0) {
        client_.send(clientFrame(opcode, payload, fin, rsv));
    }
    void sendText(std::string_view text) { sendFrame(op::kText, text); }
    void sendBinary(std::string_view bytes) { sendFrame(op::kBinary, bytes); }
    void sendClose(int code, std::string_view reason = {}) { sendFrame(op::kClose, closePayload(code, reason)); }

    // Reads one frame; nullopt at the deadline or when the connection closed first.
    std::optional<Frame> readFrame(std::chrono::milliseconds deadline = TestClient::kDefaultDeadline);
    // Reads frames until a close frame, skipping others; nullopt when none came.
    std::optional<Frame> readCloseFrame(std::chrono::milliseconds deadline = TestClient::kDefaultDeadline);

    bool waitForClose(std::chrono::milliseconds deadline = TestClient::kDefaultDeadline) {
        return client_.waitForClose(deadline);
    }
    bool staysQuiet(std::chrono::milliseconds quiet) { return client_.staysQuiet(quiet); }

private:
    TestClient client_;
};

}  // namespace loopwire::test
