// HTTP/2 frames as a client makes and reads them, for the tests that drive the server frame by frame
// (tests/integration/Http2FramesTest): the preface, frames of every type, header blocks, and the server's frames
// taken from a TestClient. The header blocks are coded here, not with the server's HPACK codec, so that a test does
// not check the server against itself: requests as literal fields without indexing (no Huffman, no table); the
// server's response blocks are read by a decoder of the representations the server uses (indexed static fields and
// literals without indexing).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loopwire::test {

class TestClient;

namespace h2frames {

inline constexpr std::uint8_t kData = 0x0;
inline constexpr std::uint8_t kHeaders = 0x1;
inline constexpr std::uint8_t kPriority = 0x2;
inline constexpr std::uint8_t kRstStream = 0x3;
inline constexpr std::uint8_t kSettings = 0x4;
inline constexpr std::uint8_t kPing = 0x6;
inline constexpr std::uint8_t kGoAway = 0x7;
inline constexpr std::uint8_t kWindowUpdate = 0x8;
inline constexpr std::uint8_t kContinuation = 0x9;

inline constexpr std::uint8_t kEndStream = 0x1;
inline constexpr std::uint8_t kAck = 0x1;
inline constexpr std::uint8_t kEndHeaders = 0x4;

inline constexpr std::uint32_t kProtocolError = 0x1;
inline constexpr std::uint32_t kFlowControlError = 0x3;
inline constexpr std::uint32_t kRefusedStream = 0x7;
inline constexpr std::uint32_t kCancel = 0x8;
inline constexpr std::uint32_t kEnhanceYourCalm = 0xb;

using Fields = std::vector<std::pair<std::string, std::string>>;

std::string frame(std::uint8_t type, std::uint8_t flags, std::uint32_t streamId, std::string_view payload);
// The client's preface: the magic and a SETTINGS frame with settings (id, value).
std::string preface(const std::vector<std::pair<std::uint16_t, std::uint32_t>>& settings = {});
std::string uint32(std::uint32_t value);
// A header block of literal fields without indexing, new names.
std::string block(const Fields& fields);
// The same fields as literals with incremental indexing: they enter the server's HPACK table, as a browser's do.
std::string indexedBlock(const Fields& fields);
// A GET of path as a HEADERS frame, END_HEADERS, and END_STREAM unless withBody.
std::string get(std::uint32_t streamId, std::string_view path, bool withBody = false);

struct ServerFrame {
    std::uint8_t type = 0;
    std::uint8_t flags = 0;
    std::uint32_t streamId = 0;
    std::string payload;
};

// The next frame from the server, or nothing at the deadline or the connection's end.
std::optional<ServerFrame> readFrame(TestClient& client, int deadlineMs = 5000);
// Frames until one of type (on streamId, when given) arrives: it, or nothing.
std::optional<ServerFrame> readUntil(TestClient& client, std::uint8_t type, std::optional<std::uint32_t> streamId = {},
                                     int deadlineMs = 5000);
// The client's HPACK decoder for one connection's responses (RFC 7541), as far as the server's encoder goes: static
// statuses and names, literals with and without indexing, the dynamic table they build and its size updates. Its
// own, so that the server's blocks are checked by code other than the server's decoder.
class ResponseDecoder {
public:
    // The fields of the next response block the server wrote on the connection; throws when it does not decode.
    Fields decode(std::string_view block);
    // Entries in the dynamic table.
    std::size_t entries() const { return table_.size(); }

private:
    static constexpr std::uint32_t kStaticEntries = 61;
    static constexpr std::size_t kEntryOverhead = 32;
    void evictTo(std::size_t limit);

    std::deque<std::pair<std::string, std::string>> table_;  // newest first
    std::size_t bytes_ = 0;
    std::size_t limit_ = 4096;
};
// GOAWAY's and RST_STREAM's error code.
std::uint32_t errorCode(const ServerFrame& frame);

}  // namespace h2frames
}  // namespace loopwire::test
