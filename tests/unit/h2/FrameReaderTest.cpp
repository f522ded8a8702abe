#include "h2/FrameReader.h"

#include <gtest/gtest.h>

#include <string>

namespace loopwire::h2 {
namespace {

constexpr std::size_t kBlockLimit = 1024;

std::string frame(std::uint8_t type, std::uint8_t flagBits, std::uint32_t streamId, std::string_view payload) {
    std::string out(kFrameHeaderBytes, '\0');
    writeFrameHeader(out.data(), static_cast<std::uint32_t>(payload.size()), static_cast<FrameType>(type), flagBits,
                     streamId);
    out += payload;
    return out;
}

std::string frame(FrameType type, std::uint8_t flagBits, std::uint32_t streamId, std::string_view payload) {
    return frame(static_cast<std::uint8_t>(type), flagBits, streamId, payload);
}

FrameRead read(std::string& bytes) { return FrameReader(kBlockLimit).read(bytes.data(), bytes.size()); }

ErrorCode connectionError(std::string bytes) {
    const FrameRead r = read(bytes);
    EXPECT_EQ(r.status, ReadStatus::ConnectionError);
    return r.error;
}

TEST(FrameHeader, WritesAndReadsTheNineBytes) {
    char bytes[kFrameHeaderBytes];
    writeFrameHeader(bytes, 0x123456, FrameType::Headers, 0x25, 0x7fffffff);
    const FrameHeader h = readFrameHeader(reinterpret_cast<unsigned char*>(bytes));
    EXPECT_EQ(h.length, 0x123456u);
    EXPECT_EQ(h.frameType(), FrameType::Headers);
    EXPECT_EQ(h.flags, 0x25);
    EXPECT_EQ(h.streamId, 0x7fffffffu);
    bytes[5] = static_cast<char>(0xff);  // the reserved bit is ignored
    EXPECT_EQ(readFrameHeader(reinterpret_cast<unsigned char*>(bytes)).streamId, 0x7fffffffu);
}

TEST(FrameReader, ReadsWholeFramesOnly) {
    std::string bytes = frame(FrameType::Ping, 0, 0, "12345678") + frame(FrameType::Settings, flags::kAck, 0, "");
    for (std::size_t cut = 0; cut < kFrameHeaderBytes + 8; ++cut) {
        std::string part = bytes.substr(0, cut);
        EXPECT_EQ(read(part).status, ReadStatus::NeedMore) << cut;
    }
    FrameRead r = read(bytes);
    ASSERT_EQ(r.status, ReadStatus::Frame);
    EXPECT_EQ(r.consumed, kFrameHeaderBytes + 8);
    EXPECT_EQ(r.frame.header.frameType(), FrameType::Ping);
    EXPECT_EQ(r.frame.payload, "12345678");
    std::string rest = bytes.substr(r.consumed);
    r = read(rest);
    ASSERT_EQ(r.status, ReadStatus::Frame);
    EXPECT_EQ(r.frame.header.frameType(), FrameType::Settings);
    EXPECT_TRUE(r.frame.header.has(flags::kAck));
}

TEST(FrameReader, FramesOverTheMaximumSizeEndTheConnection) {
    std::string big = frame(FrameType::Data, 0, 1, std::string(kDefaultMaxFrameSize + 1, 'x'));
    EXPECT_EQ(connectionError(big.substr(0, kFrameHeaderBytes)), ErrorCode::FrameSizeError);  // from the header
    std::string largest = frame(FrameType::Data, 0, 1, std::string(kDefaultMaxFrameSize, 'x'));
    EXPECT_EQ(read(largest).status, ReadStatus::Frame);
}

TEST(FrameReader, DataWithoutItsPadding) {
    std::string bytes = frame(FrameType::Data, flags::kPadded | flags::kEndStream, 1,
                              std::string("\x03"
                                          "abcPPP"));
    const FrameRead r = read(bytes);
    ASSERT_EQ(r.status, ReadStatus::Frame);
    EXPECT_EQ(r.frame.payload, "abc");
    EXPECT_EQ(r.frame.header.length, 7u);  // what flow control counts
    EXPECT_TRUE(r.frame.header.has(flags::kEndStream));
    // Padding as long as the rest is allowed; longer is not.
    EXPECT_EQ(read(bytes = frame(FrameType::Data, flags::kPadded, 1, "\x03PPP")).frame.payload, "");
    EXPECT_EQ(connectionError(frame(FrameType::Data, flags::kPadded, 1, "\x04PPP")), ErrorCode::ProtocolError);
    EXPECT_EQ(connectionError(frame(FrameType::Data, flags::kPadded, 1, "")), ErrorCode::FrameSizeError);
    EXPECT_EQ(connectionError(frame(FrameType::Data, 0, 0, "x")), ErrorCode::ProtocolError);
}

TEST(FrameReader, HeadersWithoutPaddingOrPriority) {
    std::string bytes = frame(FrameType::Headers, flags::kEndHeaders | flags::kPadded | flags::kPriority, 3,
                              std::string("\x02\x00\x00\x00\x01\x10"
                                          "blockPP",
                                          13));
    const FrameRead r = read(bytes);
    ASSERT_EQ(r.status, ReadStatus::Frame);
    EXPECT_EQ(r.frame.payload, "block");
    EXPECT_EQ(r.frame.header.length, 5u);
    EXPECT_EQ(r.frame.dependency, 1u);
    EXPECT_EQ(connectionError(frame(FrameType::Headers, flags::kEndHeaders | flags::kPriority, 3, "abcd")),
              ErrorCode::FrameSizeError);
    EXPECT_EQ(connectionError(frame(FrameType::Headers, flags::kEndHeaders | flags::kPadded, 3,
                                    "\x05"
                                    "abcd")),
              ErrorCode::ProtocolError);
    EXPECT_EQ(connectionError(frame(FrameType::Headers, flags::kEndHeaders, 0, "x")), ErrorCode::ProtocolError);
}

TEST(FrameReader, JoinsContinuationFragmentsInPlace) {
    std::string bytes = frame(FrameType::Headers, flags::kEndStream | flags::kPadded, 5,
                              "\x01"
                              "abcP") +
                        frame(FrameType::Continuation, 0, 5, "") + frame(FrameType::Continuation, 0, 5, "def") +
                        frame(FrameType::Continuation, flags::kEndHeaders, 5, "gh") +
                        frame(FrameType::Ping, 0, 0, "12345678");
    const std::size_t blockFrames = bytes.size() - kFrameHeaderBytes - 8;
    for (std::size_t cut = 0; cut < blockFrames; ++cut) {
        std::string part = bytes.substr(0, cut);
        const std::string before = part;
        EXPECT_EQ(read(part).status, ReadStatus::NeedMore) << cut;
        EXPECT_EQ(part, before) << "NeedMore must leave the bytes as they were";
    }
    const FrameRead r = read(bytes);
    ASSERT_EQ(r.status, ReadStatus::Frame);
    EXPECT_EQ(r.consumed, blockFrames);
    EXPECT_EQ(r.frame.payload, "abcdefgh");
    EXPECT_EQ(r.frame.header.streamId, 5u);
    EXPECT_TRUE(r.frame.header.has(flags::kEndHeaders));
    EXPECT_TRUE(r.frame.header.has(flags::kEndStream));
}

TEST(FrameReader, OnlyContinuationOfTheSameStreamMayFollowAnOpenBlock) {
    const std::string open = frame(FrameType::Headers, 0, 1, "abc");
    EXPECT_EQ(connectionError(open + frame(FrameType::Ping, 0, 0, "12345678")), ErrorCode::ProtocolError);
    EXPECT_EQ(connectionError(open + frame(FrameType::Continuation, flags::kEndHeaders, 3, "x")),
              ErrorCode::ProtocolError);
    EXPECT_EQ(connectionError(open + frame(0x20, 0, 1, "")), ErrorCode::ProtocolError);  // an extension frame
    EXPECT_EQ(connectionError(frame(FrameType::Continuation, flags::kEndHeaders, 1, "x")), ErrorCode::ProtocolError);
}

TEST(FrameReader, HeaderBlockLimitCountsEveryFrame) {
    // Empty CONTINUATION frames without END_HEADERS: refused once their headers pass the limit, before the end.
    std::string flood = frame(FrameType::Headers, 0, 1, "x");
    while (flood.size() <= kBlockLimit)
        flood += frame(FrameType::Continuation, 0, 1, "");
    EXPECT_EQ(connectionError(flood), ErrorCode::EnhanceYourCalm);
    // Just within the limit: accepted.
    std::string fits = frame(FrameType::Headers, 0, 1, std::string(kBlockLimit - 2 * kFrameHeaderBytes - 1, 'a')) +
                       frame(FrameType::Continuation, flags::kEndHeaders, 1, "b");
    ASSERT_EQ(fits.size(), kBlockLimit);
    EXPECT_EQ(read(fits).status, ReadStatus::Frame);
    EXPECT_EQ(connectionError(frame(FrameType::Headers, flags::kEndHeaders, 1, std::string(kBlockLimit, 'a'))),
              ErrorCode::EnhanceYourCalm);
}

TEST(FrameReader, FixedLengthFrames) {
    EXPECT_EQ(connectionError(frame(FrameType::Ping, 0, 0, "1234567")), ErrorCode::FrameSizeError);
    EXPECT_EQ(connectionError(frame(FrameType::Ping, 0, 1, "12345678")), ErrorCode::ProtocolError);
    EXPECT_EQ(connectionError(frame(FrameType::RstStream, 0, 1, "123")), ErrorCode::FrameSizeError);
    EXPECT_EQ(connectionError(frame(FrameType::RstStream, 0, 0, "1234")), ErrorCode::ProtocolError);
    EXPECT_EQ(connectionError(frame(FrameType::WindowUpdate, 0, 0, "12345")), ErrorCode::FrameSizeError);
    EXPECT_EQ(connectionError(frame(FrameType::Settings, 0, 0, "12345")), ErrorCode::FrameSizeError);
    EXPECT_EQ(connectionError(frame(FrameType::Settings, flags::kAck, 0, "123456")), ErrorCode::FrameSizeError);
    EXPECT_EQ(connectionError(frame(FrameType::Settings, 0, 1, "")), ErrorCode::ProtocolError);
    EXPECT_EQ(connectionError(frame(FrameType::GoAway, 0, 0, "1234567")), ErrorCode::FrameSizeError);
    EXPECT_EQ(connectionError(frame(FrameType::GoAway, 0, 1, "12345678")), ErrorCode::ProtocolError);
    EXPECT_EQ(connectionError(frame(FrameType::PushPromise, flags::kEndHeaders, 1, "1234")), ErrorCode::ProtocolError);
    EXPECT_EQ(connectionError(frame(FrameType::Priority, 0, 0, "12345")), ErrorCode::ProtocolError);
    std::string settings = frame(FrameType::Settings, 0, 0, std::string(12, '\0'));
    EXPECT_EQ(read(settings).status, ReadStatus::Frame);
}

TEST(FrameReader, PriorityOfTheWrongLengthIsAStreamError) {
    std::string bytes = frame(FrameType::Priority, 0, 7, "1234");
    const FrameRead r = read(bytes);
    EXPECT_EQ(r.status, ReadStatus::StreamError);
    EXPECT_EQ(r.error, ErrorCode::FrameSizeError);
    EXPECT_EQ(r.frame.header.streamId, 7u);
    EXPECT_EQ(r.consumed, bytes.size());
    std::string ok = frame(FrameType::Priority, 0, 7, std::string("\x80\x00\x00\x07\x10", 5));
    const FrameRead p = read(ok);
    ASSERT_EQ(p.status, ReadStatus::Frame);
    EXPECT_EQ(p.frame.dependency, 7u);  // the exclusive bit dropped
}

TEST(FrameReader, ExtensionFramesAreFramesToIgnore) {
    std::string bytes = frame(0x20, 0xff, 9, "whatever");
    const FrameRead r = read(bytes);
    ASSERT_EQ(r.status, ReadStatus::Frame);
    EXPECT_EQ(r.frame.header.type, 0x20);
    EXPECT_EQ(r.consumed, bytes.size());
}

}  // namespace
}  // namespace loopwire::h2
