#include "ws/FrameParser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace loopwire::ws {
namespace {

constexpr std::uint8_t kMask[4] = {0x37, 0xFA, 0x21, 0x3D};

// A client frame: first byte (FIN, RSV, opcode) as given, payload masked with kMask unless masked is false.
std::string frame(std::uint8_t first, std::string_view payload, bool masked = true) {
    std::string out(1, static_cast<char>(first));
    const std::uint8_t maskBit = masked ? 0x80 : 0;
    if (payload.size() < 126) {
        out.push_back(static_cast<char>(maskBit | payload.size()));
    } else if (payload.size() <= 0xFFFF) {
        out.push_back(static_cast<char>(maskBit | 126));
        out.push_back(static_cast<char>(payload.size() >> 8));
        out.push_back(static_cast<char>(payload.size() & 0xFF));
    } else {
        out.push_back(static_cast<char>(maskBit | 127));
        for (int shift = 56; shift >= 0; shift -= 8)
            out.push_back(static_cast<char>((payload.size() >> shift) & 0xFF));
    }
    if (masked) out.append(reinterpret_cast<const char*>(kMask), 4);
    for (std::size_t i = 0; i < payload.size(); ++i) {
        out.push_back(static_cast<char>(static_cast<std::uint8_t>(payload[i]) ^ (masked ? kMask[i % 4] : 0)));
    }
    return out;
}

// A header with an explicit length field (and a mask), for the length rules.
std::string header(std::uint8_t first, std::initializer_list<int> lengthBytes) {
    std::string out(1, static_cast<char>(first));
    for (int b : lengthBytes)
        out.push_back(static_cast<char>(b));
    out.append(reinterpret_cast<const char*>(kMask), 4);
    return out;
}

// Records what the parser reports: one line per frame and its payload, joined.
struct Recorder {
    std::vector<std::string> events;
    std::string payload;
    int stopAfterFrames = -1;
    int frames = 0;
    bool onFrame(const FrameHeader& h) {
        events.push_back("frame op=" + std::to_string(static_cast<int>(h.opcode)) + (h.fin ? " fin" : "") +
                         (h.rsv1 ? " rsv1" : "") + " len=" + std::to_string(h.length));
        payload.clear();
        return ++frames != stopAfterFrames;
    }
    bool onPayload(std::string_view chunk, bool ends) {
        payload.append(chunk);
        if (ends) events.push_back("payload " + payload);
        return true;
    }
};

struct Outcome {
    FrameError error = FrameError::None;
    std::vector<std::string> events;
};

// Parses bytes in reads of the given sizes (the rest in one read), each an exact copy.
Outcome parseInReads(std::string bytes, const std::vector<std::size_t>& sizes = {}, std::uint64_t max = 1 << 20,
                     bool rsv1 = false) {
    FrameParser parser(max, rsv1);
    Recorder recorder;
    std::size_t at = 0;
    std::vector<std::size_t> reads = sizes;
    std::size_t covered = 0;
    for (std::size_t s : reads)
        covered += s;
    if (covered < bytes.size()) reads.push_back(bytes.size() - covered);
    for (std::size_t n : reads) {
        if (at >= bytes.size()) break;
        n = std::min(n, bytes.size() - at);
        std::string piece = bytes.substr(at, n);
        FrameError error = parser.parse(piece.data(), piece.size(), recorder);
        at += n;
        if (error != FrameError::None) return {error, recorder.events};
    }
    return {FrameError::None, recorder.events};
}

TEST(FrameParser, AMaskedTextFrameOfRfc6455) {
    // RFC 6455 section 5.7: a single-frame masked text message, "Hello".
    const std::string bytes = "\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58";
    Outcome outcome = parseInReads(bytes);
    EXPECT_EQ(outcome.error, FrameError::None);
    EXPECT_EQ(outcome.events, (std::vector<std::string>{"frame op=1 fin len=5", "payload Hello"}));
}

TEST(FrameParser, AFragmentedMessageWithAPingBetweenItsFragments) {
    const std::string bytes = frame(0x01, "Hel") + frame(0x89, "ping") + frame(0x00, "l") + frame(0x80, "o");
    Outcome outcome = parseInReads(bytes);
    EXPECT_EQ(outcome.error, FrameError::None);
    EXPECT_EQ(outcome.events,
              (std::vector<std::string>{"frame op=1 len=3", "payload Hel", "frame op=9 fin len=4", "payload ping",
                                        "frame op=0 len=1", "payload l", "frame op=0 fin len=1", "payload o"}));
}

TEST(FrameParser, LengthsInEachOfTheirThreeForms) {
    const std::string medium(300, 'm');
    const std::string large(70000, 'L');
    Outcome outcome = parseInReads(frame(0x82, medium) + frame(0x82, large) + frame(0x82, ""));
    EXPECT_EQ(outcome.error, FrameError::None);
    ASSERT_EQ(outcome.events.size(), 6u);
    EXPECT_EQ(outcome.events[0], "frame op=2 fin len=300");
    EXPECT_EQ(outcome.events[1], "payload " + medium);
    EXPECT_EQ(outcome.events[2], "frame op=2 fin len=70000");
    EXPECT_EQ(outcome.events[3], "payload " + large);
    EXPECT_EQ(outcome.events[4], "frame op=2 fin len=0");
    EXPECT_EQ(outcome.events[5], "payload ");
}

TEST(FrameParser, EverySplitGivesTheSameEvents) {
    const std::string bytes = frame(0x01, "fragmented ") + frame(0x8A, "") + frame(0x80, std::string(130, 'x')) +
                              frame(0x88,
                                    "\x03\xe8"
                                    "bye");
    const Outcome whole = parseInReads(bytes);
    ASSERT_EQ(whole.error, FrameError::None);
    ASSERT_EQ(whole.events.size(), 8u);
    EXPECT_EQ(parseInReads(bytes, std::vector<std::size_t>(bytes.size(), 1)).events, whole.events);
    for (std::size_t cut = 1; cut < bytes.size(); ++cut) {
        for (std::size_t second : {1u, 3u, 7u, 13u}) {
            EXPECT_EQ(parseInReads(bytes, {cut, second}).events, whole.events) << cut << "+" << second;
        }
    }
}

TEST(FrameParser, EachBrokenRuleEndsTheParseWithItsCloseCode) {
    struct Case {
        std::string bytes;
        FrameError error;
    };
    const Case cases[] = {
        {frame(0x81, "hi", false), FrameError::Unmasked},
        {frame(0xA1, "hi"), FrameError::ReservedBits},  // RSV2
        {frame(0x91, "hi"), FrameError::ReservedBits},  // RSV3
        {frame(0xC1, "hi"), FrameError::ReservedBits},  // RSV1, not negotiated
        {frame(0x83, "hi"), FrameError::ReservedOpcode},
        {frame(0x8B, "hi"), FrameError::ReservedOpcode},
        {frame(0x89, std::string(126, 'p')), FrameError::ControlTooLong},
        {frame(0x09, "hi"), FrameError::FragmentedControl},
        {frame(0x80, "hi"), FrameError::UnexpectedContinuation},
        {frame(0x01, "a") + frame(0x81, "b"), FrameError::ExpectedContinuation},
        {header(0x82, {0x80 | 126, 0x00, 0x7D}), FrameError::NonMinimalLength},  // 125 in 16 bits
        {header(0x82, {0x80 | 127, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF}), FrameError::NonMinimalLength},
        {header(0x82, {0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 0}), FrameError::LengthTooLarge},
    };
    for (const Case& c : cases) {
        Outcome outcome = parseInReads(c.bytes);
        EXPECT_EQ(outcome.error, c.error) << describe(c.error);
        EXPECT_EQ(closeCode(c.error), 1002);
        // Refused on its header: nothing of the broken frame was reported (only the valid frame before it).
        if (c.error == FrameError::ExpectedContinuation) {
            EXPECT_EQ(outcome.events, (std::vector<std::string>{"frame op=1 len=1", "payload a"}));
        } else {
            EXPECT_TRUE(outcome.events.empty()) << outcome.events.front();
        }
    }
}

TEST(FrameParser, AnUnmaskedFrameIsRefusedOnItsFirstTwoBytes) {
    FrameParser parser(1 << 20);
    Recorder recorder;
    std::string first = "\x82";
    std::string second = "\x05";
    EXPECT_EQ(parser.parse(first.data(), first.size(), recorder), FrameError::None);
    EXPECT_EQ(parser.parse(second.data(), second.size(), recorder), FrameError::Unmasked);
}

TEST(FrameParser, TheMessageLimitCountsEveryFragmentAndIsCheckedOnTheHeader) {
    // Exactly at the limit passes; a byte more over two fragments is refused with 1009 before its payload.
    EXPECT_EQ(parseInReads(frame(0x02, "12345") + frame(0x80, "67890"), {}, 10).error, FrameError::None);
    Outcome over = parseInReads(frame(0x02, "12345") + frame(0x80, "678901"), {}, 10);
    EXPECT_EQ(over.error, FrameError::MessageTooBig);
    EXPECT_EQ(closeCode(FrameError::MessageTooBig), 1009);
    EXPECT_EQ(over.events.back(), "payload 12345");
    // A header announcing 2^40 bytes is refused at once; nothing waits for the bytes.
    EXPECT_EQ(parseInReads(header(0x82, {0x80 | 127, 0, 0, 1, 0, 0, 0, 0, 0}), {}, 16 << 20).error,
              FrameError::MessageTooBig);
    // Control frames do not count toward a message.
    EXPECT_EQ(parseInReads(frame(0x02, "12345") + frame(0x89, "ping ping") + frame(0x80, "67890"), {}, 10).error,
              FrameError::None);
}

TEST(FrameParser, Rsv1MarksTheFirstFrameOfACompressedMessageOnly) {
    Outcome ok = parseInReads(frame(0x41, "abc") + frame(0x80, "def"), {}, 1 << 20, true);
    EXPECT_EQ(ok.error, FrameError::None);
    EXPECT_EQ(ok.events[0], "frame op=1 rsv1 len=3");
    EXPECT_EQ(parseInReads(frame(0x01, "abc") + frame(0xC0, "def"), {}, 1 << 20, true).error, FrameError::ReservedBits);
    EXPECT_EQ(parseInReads(frame(0xC9, "ping"), {}, 1 << 20, true).error, FrameError::ReservedBits);
}

TEST(FrameParser, TheMessageStateIsReadableFromTheVisitor) {
    struct Probe {
        FrameParser* parser;
        std::vector<int> opcodes;
        bool onFrame(const FrameHeader&) {
            opcodes.push_back(static_cast<int>(parser->messageOpcode()));
            return true;
        }
        bool onPayload(std::string_view, bool) { return true; }
    };
    FrameParser parser(1 << 20);
    Probe probe{&parser, {}};
    std::string bytes = frame(0x02, "a") + frame(0x89, "") + frame(0x80, "b") + frame(0x81, "c");
    EXPECT_EQ(parser.parse(bytes.data(), bytes.size(), probe), FrameError::None);
    // Binary (first fragment), Binary (a ping inside it), Binary (its last fragment), then Text.
    EXPECT_EQ(probe.opcodes, (std::vector<int>{2, 2, 2, 1}));
    EXPECT_FALSE(parser.inMessage());
}

TEST(FrameParser, AVisitorCanStopTheParse) {
    FrameParser parser(1 << 20);
    Recorder recorder;
    recorder.stopAfterFrames = 1;
    std::string bytes = frame(0x81, "one") + frame(0x81, "two");
    EXPECT_EQ(parser.parse(bytes.data(), bytes.size(), recorder), FrameError::None);
    EXPECT_EQ(recorder.events, (std::vector<std::string>{"frame op=1 fin len=3"}));
}

}  // namespace
}  // namespace loopwire::ws
