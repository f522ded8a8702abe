#include "WsTestClient.h"

namespace loopwire::test {

namespace {

std::string lower(std::string text) {
    for (char& c : text) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    }
    return text;
}

}  // namespace

std::optional<Response> WsTestClient::handshake(std::string_view path, std::string_view extraHeaders) {
    client_.send(upgradeRequest(path, extraHeaders));
    return readHead();
}

std::optional<Response> WsTestClient::readHead(std::chrono::milliseconds deadline) {
    auto until = std::chrono::steady_clock::now() + deadline;
    std::string head;
    while (head.size() < 4 || head.compare(head.size() - 4, 4, "\r\n\r\n") != 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
        if (left.count() <= 0) return std::nullopt;
        std::string byte = client_.readBytes(1, left);
        if (byte.empty()) return std::nullopt;
        head += byte;
    }
    Response response;
    std::size_t lineEnd = head.find("\r\n");
    response.statusLine = head.substr(0, lineEnd);
    if (response.statusLine.size() < 12) return std::nullopt;
    response.status = std::atoi(response.statusLine.c_str() + 9);
    std::size_t at = lineEnd + 2;
    while (at < head.size() - 2) {
        std::size_t end = head.find("\r\n", at);
        std::string line = head.substr(at, end - at);
        at = end + 2;
        auto colon = line.find(':');
        if (colon == std::string::npos) return std::nullopt;
        std::string value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ')
            value.erase(0, 1);
        response.headers.emplace(lower(line.substr(0, colon)), value);
    }
    return response;
}

std::optional<Frame> WsTestClient::readFrame(std::chrono::milliseconds deadline) {
    auto until = std::chrono::steady_clock::now() + deadline;
    auto read = [&](std::size_t n, std::string& out) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
        if (left.count() < 0) left = std::chrono::milliseconds(0);
        out = client_.readBytes(n, left);
        return out.size() == n;
    };
    std::string bytes;
    if (!read(2, bytes)) return std::nullopt;
    Frame frame;
    auto first = static_cast<unsigned char>(bytes[0]);
    auto second = static_cast<unsigned char>(bytes[1]);
    frame.fin = (first & 0x80) != 0;
    frame.rsv = first & 0x70;
    frame.opcode = first & 0x0F;
    frame.masked = (second & 0x80) != 0;
    std::uint64_t length = second & 0x7F;
    if (length >= 126) {
        std::size_t extended = length == 126 ? 2 : 8;
        if (!read(extended, bytes)) return std::nullopt;
        length = 0;
        for (char c : bytes)
            length = (length << 8) | static_cast<unsigned char>(c);
    }
    std::string mask;
    if (frame.masked && !read(4, mask)) return std::nullopt;
    if (length > 0 && !read(static_cast<std::size_t>(length), frame.payload)) return std::nullopt;
    if (frame.masked) {
        for (std::size_t i = 0; i < frame.payload.size(); ++i)
            frame.payload[i] = static_cast<char>(frame.payload[i] ^ mask[i % 4]);
    }
    return frame;
}

std::optional<Frame> WsTestClient::readCloseFrame(std::chrono::milliseconds deadline) {
    auto until = std::chrono::steady_clock::now() + deadline;
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
        if (left.count() <= 0) return std::nullopt;
        auto frame = readFrame(left);
        if (!frame) return std::nullopt;
        if (frame->opcode == op::kClose) return frame;
    }
}

}  // namespace loopwire::test
