#include "WsFrames.h"

#include <zlib.h>

namespace loopwire::test {

namespace {

constexpr unsigned char kMask[4] = {0x37, 0xfa, 0x21, 0x3d};

}  // namespace

int Frame::closeCode() const {
    if (payload.size() < 2) return 1005;
    return (static_cast<unsigned char>(payload[0]) << 8) | static_cast<unsigned char>(payload[1]);
}

std::string Frame::closeReason() const { return payload.size() < 2 ? std::string() : payload.substr(2); }

std::string upgradeRequest(std::string_view path, std::string_view extraHeaders, std::string_view key) {
    std::string request = "GET ";
    request.append(path);
    request.append(" HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ");
    request.append(key);
    request.append("\r\nSec-WebSocket-Version: 13\r\n");
    request.append(extraHeaders);
    request.append("\r\n");
    return request;
}

std::string clientFrame(std::uint8_t opcode, std::string_view payload, bool fin, std::uint8_t rsv, bool mask) {
    std::string frame;
    frame.push_back(static_cast<char>((fin ? 0x80 : 0) | (rsv & 0x70) | (opcode & 0x0F)));
    const char maskBit = mask ? static_cast<char>(0x80) : 0;
    if (payload.size() < 126) {
        frame.push_back(static_cast<char>(maskBit | static_cast<char>(payload.size())));
    } else if (payload.size() <= 0xFFFF) {
        frame.push_back(static_cast<char>(maskBit | 126));
        frame.push_back(static_cast<char>(payload.size() >> 8));
        frame.push_back(static_cast<char>(payload.size() & 0xFF));
    } else {
        frame.push_back(static_cast<char>(maskBit | 127));
        for (int shift = 56; shift >= 0; shift -= 8)
            frame.push_back(static_cast<char>((static_cast<std::uint64_t>(payload.size()) >> shift) & 0xFF));
    }
    if (!mask) {
        frame.append(payload);
        return frame;
    }
    frame.append(reinterpret_cast<const char*>(kMask), 4);
    std::size_t start = frame.size();
    frame.append(payload);
    for (std::size_t i = 0; i < payload.size(); ++i)
        frame[start + i] = static_cast<char>(frame[start + i] ^ kMask[i % 4]);
    return frame;
}

std::string closePayload(int code, std::string_view reason) {
    std::string payload;
    payload.push_back(static_cast<char>((code >> 8) & 0xFF));
    payload.push_back(static_cast<char>(code & 0xFF));
    payload.append(reason);
    return payload;
}

std::string deflateMessage(std::string_view message) {
    z_stream stream{};
    deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&stream, message.size()) + 64, '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(message.data()));
    stream.avail_in = static_cast<uInt>(message.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    deflate(&stream, Z_SYNC_FLUSH);
    out.resize(stream.total_out);
    deflateEnd(&stream);
    // RFC 7692 section 7.2.1: the sync flush's empty stored block (00 00 FF FF) is removed.
    if (out.size() >= 4 && out.compare(out.size() - 4, 4, std::string_view("\x00\x00\xff\xff", 4)) == 0) {
        out.resize(out.size() - 4);
    }
    return out;
}

std::optional<std::string> inflateMessage(std::string_view compressed) {
    std::string input(compressed);
    input.append("\x00\x00\xff\xff", 4);
    z_stream stream{};
    if (inflateInit2(&stream, -15) != Z_OK) return std::nullopt;
    stream.next_in = reinterpret_cast<Bytef*>(input.data());
    stream.avail_in = static_cast<uInt>(input.size());
    std::string out;
    char chunk[16384];
    int status = Z_OK;
    while (stream.avail_in > 0 && status == Z_OK) {
        stream.next_out = reinterpret_cast<Bytef*>(chunk);
        stream.avail_out = sizeof chunk;
        status = inflate(&stream, Z_SYNC_FLUSH);
        out.append(chunk, sizeof chunk - stream.avail_out);
    }
    inflateEnd(&stream);
    if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) return std::nullopt;
    return out;
}

std::optional<Frame> takeFrame(std::string& bytes) {
    if (bytes.size() < 2) return std::nullopt;
    const auto* at = reinterpret_cast<const unsigned char*>(bytes.data());
    Frame frame;
    frame.fin = (at[0] & 0x80) != 0;
    frame.rsv = at[0] & 0x70;
    frame.opcode = at[0] & 0x0F;
    frame.masked = (at[1] & 0x80) != 0;
    std::size_t header = 2;
    std::uint64_t length = at[1] & 0x7F;
    if (length >= 126) {
        const std::size_t extended = length == 126 ? 2 : 8;
        if (bytes.size() < header + extended) return std::nullopt;
        length = 0;
        for (std::size_t i = 0; i < extended; ++i)
            length = (length << 8) | at[header + i];
        header += extended;
    }
    const std::size_t maskAt = header;
    if (frame.masked) header += 4;
    if (bytes.size() - header < length) return std::nullopt;
    frame.payload = bytes.substr(header, static_cast<std::size_t>(length));
    if (frame.masked) {
        for (std::size_t i = 0; i < frame.payload.size(); ++i)
            frame.payload[i] = static_cast<char>(frame.payload[i] ^ bytes[maskAt + i % 4]);
    }
    bytes.erase(0, header + static_cast<std::size_t>(length));
    return frame;
}

}  // namespace loopwire::test
