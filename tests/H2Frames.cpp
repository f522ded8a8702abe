#include "H2Frames.h"

#include "integration/TestClient.h"

#include <chrono>
#include <stdexcept>

namespace loopwire::test::h2frames {

namespace {

// RFC 7541 appendix A, only as far as the server's responses index it.
const char* staticName(std::uint32_t index) {
    static const char* const kNames[] = {"",
                                         ":authority",
                                         ":method",
                                         ":method",
                                         ":path",
                                         ":path",
                                         ":scheme",
                                         ":scheme",
                                         ":status",
                                         ":status",
                                         ":status",
                                         ":status",
                                         ":status",
                                         ":status",
                                         ":status",
                                         "accept-charset",
                                         "accept-encoding",
                                         "accept-language",
                                         "accept-ranges",
                                         "accept",
                                         "access-control-allow-origin",
                                         "age",
                                         "allow",
                                         "authorization",
                                         "cache-control",
                                         "content-disposition",
                                         "content-encoding",
                                         "content-language",
                                         "content-length",
                                         "content-location",
                                         "content-range",
                                         "content-type",
                                         "cookie",
                                         "date",
                                         "etag",
                                         "expect",
                                         "expires",
                                         "from",
                                         "host",
                                         "if-match",
                                         "if-modified-since",
                                         "if-none-match",
                                         "if-range",
                                         "if-unmodified-since",
                                         "last-modified",
                                         "link",
                                         "location",
                                         "max-forwards",
                                         "proxy-authenticate",
                                         "proxy-authorization",
                                         "range",
                                         "referer",
                                         "refresh",
                                         "retry-after",
                                         "server",
                                         "set-cookie",
                                         "strict-transport-security",
                                         "transfer-encoding",
                                         "user-agent",
                                         "vary",
                                         "via",
                                         "www-authenticate"};
    if (index == 0 || index > 61) throw std::runtime_error("static index out of range");
    return kNames[index];
}

const char* staticStatus(std::uint32_t index) {
    static const char* const kStatuses[] = {"200", "204", "206", "304", "400", "404", "500"};
    if (index < 8 || index > 14) throw std::runtime_error("not a static status");
    return kStatuses[index - 8];
}

std::uint32_t readInteger(std::string_view block, std::size_t& at, unsigned prefixBits) {
    const std::uint32_t max = (1u << prefixBits) - 1;
    std::uint32_t value = static_cast<unsigned char>(block.at(at++)) & max;
    if (value < max) return value;
    for (unsigned shift = 0;; shift += 7) {
        const auto byte = static_cast<unsigned char>(block.at(at++));
        value += static_cast<std::uint32_t>(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) return value;
    }
}

std::string readString(std::string_view block, std::size_t& at) {
    if (static_cast<unsigned char>(block.at(at)) & 0x80) throw std::runtime_error("the server sent Huffman");
    const std::uint32_t length = readInteger(block, at, 7);
    std::string text(block.substr(at, length));
    at += length;
    return text;
}

void appendInteger(std::string& out, std::uint8_t high, unsigned prefixBits, std::uint32_t value) {
    const std::uint32_t max = (1u << prefixBits) - 1;
    if (value < max) {
        out.push_back(static_cast<char>(high | value));
        return;
    }
    out.push_back(static_cast<char>(high | max));
    value -= max;
    while (value >= 0x80) {
        out.push_back(static_cast<char>((value & 0x7f) | 0x80));
        value >>= 7;
    }
    out.push_back(static_cast<char>(value));
}

}  // namespace

std::string uint32(std::uint32_t value) {
    return {static_cast<char>(value >> 24), static_cast<char>(value >> 16), static_cast<char>(value >> 8),
            static_cast<char>(value)};
}

std::string frame(std::uint8_t type, std::uint8_t flags, std::uint32_t streamId, std::string_view payload) {
    std::string out;
    const auto length = static_cast<std::uint32_t>(payload.size());
    out.push_back(static_cast<char>(length >> 16));
    out.push_back(static_cast<char>(length >> 8));
    out.push_back(static_cast<char>(length));
    out.push_back(static_cast<char>(type));
    out.push_back(static_cast<char>(flags));
    out += uint32(streamId);
    out += payload;
    return out;
}

std::string preface(const std::vector<std::pair<std::uint16_t, std::uint32_t>>& settings) {
    std::string payload;
    for (const auto& [id, value] : settings) {
        payload.push_back(static_cast<char>(id >> 8));
        payload.push_back(static_cast<char>(id));
        payload += uint32(value);
    }
    return "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(kSettings, 0, 0, payload);
}

namespace {

std::string literals(const Fields& fields, char representation) {
    std::string out;
    for (const auto& [name, value] : fields) {
        out.push_back(representation);
        appendInteger(out, 0, 7, static_cast<std::uint32_t>(name.size()));
        out += name;
        appendInteger(out, 0, 7, static_cast<std::uint32_t>(value.size()));
        out += value;
    }
    return out;
}

}  // namespace

std::string block(const Fields& fields) { return literals(fields, 0x00); }  // without indexing, new name

std::string indexedBlock(const Fields& fields) { return literals(fields, 0x40); }  // incremental indexing, new name

std::string get(std::uint32_t streamId, std::string_view path, bool withBody) {
    const std::string fields =
        block({{":method", "GET"}, {":scheme", "http"}, {":path", std::string(path)}, {":authority", "test"}});
    return frame(kHeaders, kEndHeaders | (withBody ? 0 : kEndStream), streamId, fields);
}

std::optional<ServerFrame> readFrame(TestClient& client, int deadlineMs) {
    const std::chrono::milliseconds deadline(deadlineMs);
    const std::string header = client.readBytes(9, deadline);
    if (header.size() != 9) return std::nullopt;
    ServerFrame frame;
    const auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(header[i])); };
    const std::uint32_t length = (byte(0) << 16) | (byte(1) << 8) | byte(2);
    frame.type = static_cast<std::uint8_t>(byte(3));
    frame.flags = static_cast<std::uint8_t>(byte(4));
    frame.streamId = ((byte(5) << 24) | (byte(6) << 16) | (byte(7) << 8) | byte(8)) & 0x7fffffffu;
    frame.payload = client.readBytes(length, deadline);
    if (frame.payload.size() != length) return std::nullopt;
    return frame;
}

std::optional<ServerFrame> readUntil(TestClient& client, std::uint8_t type, std::optional<std::uint32_t> streamId,
                                     int deadlineMs) {
    while (auto frame = readFrame(client, deadlineMs)) {
        if (frame->type == type && (!streamId || frame->streamId == *streamId)) return frame;
    }
    return std::nullopt;
}

Fields ResponseDecoder::decode(std::string_view block) {
    Fields fields;
    for (std::size_t at = 0; at < block.size();) {
        const auto first = static_cast<unsigned char>(block[at]);
        if (first & 0x80) {
            const std::uint32_t index = readInteger(block, at, 7);
            if (index <= kStaticEntries) {
                fields.emplace_back(":status", staticStatus(index));
            } else {
                if (index - kStaticEntries > table_.size()) throw std::runtime_error("dynamic index out of range");
                fields.push_back(table_[index - kStaticEntries - 1]);
            }
        } else if ((first & 0xe0) == 0x20) {
            if (!fields.empty()) throw std::runtime_error("a table size update after a field");
            limit_ = readInteger(block, at, 5);
            evictTo(limit_);
        } else {
            const bool indexing = (first & 0xc0) == 0x40;
            if (!indexing && (first & 0xf0) != 0) throw std::runtime_error("a representation the server does not use");
            const std::uint32_t nameIndex = readInteger(block, at, indexing ? 6 : 4);
            std::string name = nameIndex == 0 ? readString(block, at) : staticName(nameIndex);
            fields.emplace_back(std::move(name), readString(block, at));
            if (indexing) {
                table_.push_front(fields.back());
                bytes_ += kEntryOverhead + fields.back().first.size() + fields.back().second.size();
                evictTo(limit_);
            }
        }
    }
    return fields;
}

void ResponseDecoder::evictTo(std::size_t limit) {
    while (bytes_ > limit) {
        bytes_ -= kEntryOverhead + table_.back().first.size() + table_.back().second.size();
        table_.pop_back();
    }
}

std::uint32_t errorCode(const ServerFrame& frame) {
    const std::size_t at = frame.type == kGoAway ? 4 : 0;
    const auto byte = [&](std::size_t i) {
        return static_cast<std::uint32_t>(static_cast<unsigned char>(frame.payload.at(at + i)));
    };
    return (byte(0) << 24) | (byte(1) << 16) | (byte(2) << 8) | byte(3);
}

}  // namespace loopwire::test::h2frames
