#include "WsFrameParser.h"
#include "WsFrameWriter.h"

#include "GuardedBytes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace loopwire::lwload {
namespace {

// A server frame (unmasked).
std::string frame(std::uint8_t first, std::string_view payload, int lengthBytes = 0) {
    std::string out(1, static_cast<char>(first));
    const std::size_t n = payload.size();
    if (lengthBytes == 0) lengthBytes = n < 126 ? 1 : n <= 0xffff ? 3 : 9;
    if (lengthBytes == 1) {
        out.push_back(static_cast<char>(n));
    } else if (lengthBytes == 3) {
        out.push_back(126);
        out.push_back(static_cast<char>(n >> 8));
        out.push_back(static_cast<char>(n));
    } else {
        out.push_back(127);
        for (int shift = 56; shift >= 0; shift -= 8)
            out.push_back(static_cast<char>(static_cast<std::uint64_t>(n) >> shift));
    }
    out.append(payload);
    return out;
}

struct Event {
    WsOpcode opcode;
    std::string payload;  // a whole frame's payload, pieces joined
    bool messageEnd;
    bool operator==(const Event&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Event& e) {
    return os << "{op=" << int(e.opcode) << ", " << e.payload.size() << " bytes, end=" << e.messageEnd << "}";
}

struct Outcome {
    std::vector<Event> frames;
    WsFrameError error = WsFrameError::None;
};

Outcome decodePieces(const std::vector<std::string>& pieces, std::uint64_t maxMessage = limits::kMaxMessageBytes) {
    Outcome out;
    WsFrameParser parser(maxMessage);
    std::string current;
    for (const std::string& piece : pieces) {
        test::GuardedBytes guarded(piece);
        std::string_view input = guarded.view();
        while (!input.empty()) {
            const WsFrameResult r = parser.decode(input);
            if (r.status == WsFrameStatus::Error) {
                out.error = r.error;
                return out;
            }
            EXPECT_LE(r.consumed, input.size());
            input.remove_prefix(r.consumed);
            if (r.status == WsFrameStatus::NeedMore) {
                EXPECT_TRUE(input.empty());
                break;
            }
            current.append(r.payload);
            if (r.frameEnd) {
                out.frames.push_back({r.opcode, current, r.messageEnd});
                current.clear();
            }
        }
    }
    return out;
}

void grind(const std::string& input, const std::vector<Event>& expected, WsFrameError error = WsFrameError::None) {
    auto check = [&](const std::vector<std::string>& pieces, const std::string& how) {
        const Outcome out = decodePieces(pieces);
        EXPECT_EQ(out.error, error) << how << ": " << wsFrameErrorName(out.error);
        EXPECT_EQ(out.frames, expected) << how;
    };
    check({input}, "whole");
    for (std::size_t split = 1; split < input.size(); ++split) {
        check({input.substr(0, split), input.substr(split)}, "split at " + std::to_string(split));
    }
    std::vector<std::string> bytes;
    for (char c : input)
        bytes.emplace_back(1, c);
    check(bytes, "byte by byte");
}

TEST(WsFrameParser, SevenSixteenAndSixtyFourBitLengths) {
    const std::string small(125, 's');
    const std::string medium(300, 'm');
    const std::string large(70000, 'L');
    grind(frame(0x82, small), {{WsOpcode::Binary, small, true}});
    grind(frame(0x81, medium), {{WsOpcode::Text, medium, true}});
    const Outcome out = decodePieces({frame(0x82, large)});
    ASSERT_EQ(out.frames.size(), 1u);
    EXPECT_EQ(out.frames[0].payload, large);
}

TEST(WsFrameParser, EmptyFrames) {
    grind(frame(0x82, "") + frame(0x81, ""), {{WsOpcode::Binary, "", true}, {WsOpcode::Text, "", true}});
}

TEST(WsFrameParser, FragmentedMessageWithInterleavedControlFrames) {
    grind(frame(0x01, "Hel") + frame(0x89, "ping!") + frame(0x00, "lo ") + frame(0x8A, "") + frame(0x80, "world"),
          {{WsOpcode::Text, "Hel", false},
           {WsOpcode::Ping, "ping!", false},
           {WsOpcode::Text, "lo ", false},
           {WsOpcode::Pong, "", false},
           {WsOpcode::Text, "world", true}});
}

TEST(WsFrameParser, CloseFrameCarriesItsPayload) {
    grind(frame(0x88, std::string("\x03\xe8", 2) + "bye"),
          {{WsOpcode::Close, std::string("\x03\xe8", 2) + "bye", false}});
    grind(frame(0x88, ""), {{WsOpcode::Close, "", false}});
}

TEST(WsFrameParser, RejectsProtocolViolations) {
    grind(frame(0xC2, "x"), {}, WsFrameError::ReservedBits);
    grind(frame(0x83, "x"), {}, WsFrameError::BadOpcode);
    grind(frame(0x8B, "x"), {}, WsFrameError::BadOpcode);
    grind(std::string("\x82\x81\x00\x00\x00\x00x", 7), {}, WsFrameError::MaskedFrame);
    grind(frame(0x09, "x"), {}, WsFrameError::FragmentedControl);
    grind(frame(0x89, std::string(126, 'p')), {}, WsFrameError::ControlTooLong);
    grind(frame(0x82, "short", 3), {}, WsFrameError::NonMinimalLength);
    grind(frame(0x82, std::string(1000, 'x'), 9), {}, WsFrameError::NonMinimalLength);
    grind(std::string("\x82\x7f\x80\x00\x00\x00\x00\x00\x00\x00", 10), {}, WsFrameError::LengthTooLarge);
    grind(frame(0x80, "x"), {}, WsFrameError::UnexpectedContinuation);
    grind(frame(0x02, "a") + frame(0x82, "b"), {{WsOpcode::Binary, "a", false}}, WsFrameError::ExpectedContinuation);
    grind(frame(0x88, "x"), {}, WsFrameError::BadClosePayload);
}

TEST(WsFrameParser, LimitsMessageSizeAcrossFragments) {
    EXPECT_EQ(decodePieces({frame(0x82, std::string(11, 'x'))}, 10).error, WsFrameError::MessageTooLarge);
    const Outcome out = decodePieces({frame(0x02, std::string(6, 'x')) + frame(0x80, std::string(5, 'x'))}, 10);
    EXPECT_EQ(out.error, WsFrameError::MessageTooLarge);
    EXPECT_EQ(decodePieces({frame(0x82, std::string(10, 'x'))}, 10).error, WsFrameError::None);
}

TEST(WsFrameWriter, ClientFramesAreMaskedAndRoundTrip) {
    const std::uint8_t mask[4] = {0x37, 0xfa, 0x21, 0x3d};
    for (std::size_t n :
         {std::size_t{0}, std::size_t{5}, std::size_t{125}, std::size_t{126}, std::size_t{65535}, std::size_t{65536}}) {
        std::string payload(n, '\0');
        for (std::size_t i = 0; i < n; ++i)
            payload[i] = static_cast<char>(i * 7);
        std::vector<std::uint8_t> out(clientHeaderLength(n) + n);
        const std::size_t header = writeClientHeader(out.data(), WsOpcode::Binary, true, n, mask);
        ASSERT_EQ(header, clientHeaderLength(n));
        EXPECT_EQ(out[0], 0x82);
        EXPECT_EQ(out[1] & 0x80, 0x80);  // MASK bit
        applyMask(out.data() + header, reinterpret_cast<const std::uint8_t*>(payload.data()), n, mask, 0);
        // Unmask it the way a server does and parse it as a server frame.
        std::string unmasked(reinterpret_cast<const char*>(out.data()), out.size());
        unmasked[1] = static_cast<char>(out[1] & 0x7f);
        unmasked.erase(header - 4, 4);
        applyMask(reinterpret_cast<std::uint8_t*>(unmasked.data()) + header - 4,
                  reinterpret_cast<const std::uint8_t*>(unmasked.data()) + header - 4, n, mask, 0);
        const Outcome parsed = decodePieces({unmasked});
        ASSERT_EQ(parsed.error, WsFrameError::None) << n;
        ASSERT_EQ(parsed.frames.size(), 1u);
        EXPECT_EQ(parsed.frames[0].payload, payload) << n;
    }
}

TEST(WsFrameWriter, RfcMaskedHelloExample) {
    // RFC 6455 section 5.7: a single-frame masked text message.
    const std::uint8_t mask[4] = {0x37, 0xfa, 0x21, 0x3d};
    std::uint8_t out[kMaxControlFrameBytes];
    std::size_t n = writeClientHeader(out, WsOpcode::Text, true, 5, mask);
    applyMask(out + n, reinterpret_cast<const std::uint8_t*>("Hello"), 5, mask, 0);
    n += 5;
    const std::uint8_t expected[] = {0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58};
    ASSERT_EQ(n, sizeof expected);
    for (std::size_t i = 0; i < n; ++i)
        EXPECT_EQ(out[i], expected[i]) << i;
    EXPECT_EQ(writeClientControlFrame(out, WsOpcode::Pong, std::string(200, 'x'), mask), kMaxControlFrameBytes);
}

}  // namespace
}  // namespace loopwire::lwload
