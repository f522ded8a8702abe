#include "ws/ServerFrameHeader.h"

#include <gtest/gtest.h>

#include <string>

namespace loopwire::ws {
namespace {

TEST(ServerFrameHeader, LengthsInTheirShortestForm) {
    char out[kMaxServerHeaderBytes];
    ASSERT_EQ(writeServerHeader(out, Opcode::Text, 5), 2u);
    EXPECT_EQ(std::string(out, 2), "\x81\x05");
    ASSERT_EQ(writeServerHeader(out, Opcode::Binary, 125), 2u);
    EXPECT_EQ(std::string(out, 2), "\x82\x7d");
    ASSERT_EQ(writeServerHeader(out, Opcode::Binary, 126), 4u);
    EXPECT_EQ(std::string(out, 4), std::string("\x82\x7e\x00\x7e", 4));
    ASSERT_EQ(writeServerHeader(out, Opcode::Binary, 65535), 4u);
    EXPECT_EQ(std::string(out, 4), std::string("\x82\x7e\xff\xff", 4));
    ASSERT_EQ(writeServerHeader(out, Opcode::Binary, 65536), 10u);
    EXPECT_EQ(std::string(out, 10), std::string("\x82\x7f\x00\x00\x00\x00\x00\x01\x00\x00", 10));
    ASSERT_EQ(writeServerHeader(out, Opcode::Text, 3, false, true), 2u);
    EXPECT_EQ(std::string(out, 2), "\x41\x03");
    for (std::uint64_t length : {0ULL, 125ULL, 126ULL, 65535ULL, 65536ULL, 1ULL << 40}) {
        EXPECT_EQ(writeServerHeader(out, Opcode::Binary, length), serverHeaderSize(length)) << length;
    }
}

// What the server writes, read back by the parser once a zero mask is added as a client would: the same frame.
TEST(ServerFrameHeader, TheParserReadsBackWhatWasWritten) {
    struct Seen {
        FrameHeader header;
        std::string payload;
        bool onFrame(const FrameHeader& h) {
            header = h;
            return true;
        }
        bool onPayload(std::string_view chunk, bool) {
            payload.append(chunk);
            return true;
        }
    };
    for (std::uint64_t length : {0ULL, 7ULL, 200ULL, 70000ULL}) {
        for (bool compressed : {false, true}) {
            char head[kMaxServerHeaderBytes];
            const std::size_t size = writeServerHeader(head, Opcode::Binary, length, true, compressed);
            std::string bytes(head, size);
            bytes[1] = static_cast<char>(bytes[1] | 0x80);
            bytes.append(4, '\0');
            bytes.append(static_cast<std::size_t>(length), 'p');
            FrameParser parser(1 << 20, true);
            Seen seen;
            ASSERT_EQ(parser.parse(bytes.data(), bytes.size(), seen), FrameError::None) << length;
            EXPECT_EQ(seen.header.opcode, Opcode::Binary);
            EXPECT_TRUE(seen.header.fin);
            EXPECT_EQ(seen.header.rsv1, compressed);
            EXPECT_EQ(seen.header.length, length);
            EXPECT_EQ(seen.payload, std::string(static_cast<std::size_t>(length), 'p'));
        }
    }
}

}  // namespace
}  // namespace loopwire::ws
