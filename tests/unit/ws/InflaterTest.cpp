#include "ws/Inflater.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace loopwire::ws {
namespace {

// A sender's compressor: raw deflate, each message flushed with Z_SYNC_FLUSH and its 00 00 FF FF tail removed
// (RFC 7692 section 7.2.1), or ended with a final block when finalBlock.
class Sender {
public:
    explicit Sender(int windowBits = 15) {
        EXPECT_EQ(deflateInit2(&z_, 6, Z_DEFLATED, -windowBits, 8, Z_DEFAULT_STRATEGY), Z_OK);
    }
    ~Sender() { deflateEnd(&z_); }

    std::string compress(const std::string& message, bool finalBlock = false) {
        std::string out(deflateBound(&z_, message.size()) + 16, '\0');
        z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(message.data()));
        z_.avail_in = static_cast<uInt>(message.size());
        z_.next_out = reinterpret_cast<Bytef*>(out.data());
        z_.avail_out = static_cast<uInt>(out.size());
        EXPECT_NE(deflate(&z_, finalBlock ? Z_FINISH : Z_SYNC_FLUSH), Z_STREAM_ERROR);
        out.resize(out.size() - z_.avail_out);
        if (finalBlock) {
            deflateReset(&z_);
        } else {
            EXPECT_EQ(out.substr(out.size() - 4), std::string("\x00\x00\xff\xff", 4));
            out.resize(out.size() - 4);
        }
        return out;
    }

private:
    z_stream z_{};
};

Inflater::Result inflateMessage(Inflater& inflater, const std::string& compressed, std::string& text,
                                std::size_t maxBytes = 1 << 20, std::size_t piece = 0) {
    ByteBuffer out;
    if (piece == 0) piece = compressed.size() + 1;
    for (std::size_t at = 0; at < compressed.size(); at += piece) {
        Inflater::Result result = inflater.add(std::string_view(compressed).substr(at, piece), out, maxBytes);
        if (result != Inflater::Result::Ok) {
            inflater.finish(out, maxBytes);
            return result;
        }
    }
    Inflater::Result result = inflater.finish(out, maxBytes);
    text.assign(out.view());
    return result;
}

std::string sampleText() {
    std::string text;
    for (int i = 0; i < 200; ++i)
        text += "message " + std::to_string(i % 17) + " of the chat room; ";
    return text;
}

// Text that compresses, but not to almost nothing: words picked by a fixed pseudo-random sequence.
std::string varied() {
    static const char* const kWords[] = {"alpha", "bravo",  "charlie", "delta", "echo", "foxtrot",  "golf",  "hotel",
                                         "india", "juliet", "kilo",    "lima",  "mike", "november", "oscar", "papa"};
    std::string text;
    std::uint32_t state = 12345;
    for (int i = 0; i < 400; ++i) {
        state = state * 1103515245u + 12345u;
        text += kWords[(state >> 16) % 16];
        text += (state & 0x100) != 0 ? ' ' : ',';
    }
    return text;
}

TEST(Inflater, InflatesAMessageWholeAndInEveryPieceSize) {
    Sender sender;
    const std::string text = sampleText();
    const std::string compressed = sender.compress(text);
    ASSERT_LT(compressed.size(), text.size() / 4);
    for (std::size_t piece : {0u, 1u, 2u, 3u, 7u, 64u}) {
        Inflater inflater(15, false);
        ASSERT_TRUE(inflater.ready());
        std::string inflated;
        EXPECT_EQ(inflateMessage(inflater, compressed, inflated, 1 << 20, piece), Inflater::Result::Ok) << piece;
        EXPECT_EQ(inflated, text) << piece;
    }
}

TEST(Inflater, ContextCarriesOverOnlyWithContextTakeover) {
    Sender sender;
    const std::string first = varied();
    const std::string second = varied();  // the same text: compressed as references into the first
    const std::string c1 = sender.compress(first);
    const std::string c2 = sender.compress(second);
    ASSERT_LT(c2.size(), c1.size() / 4);

    Inflater keeping(15, true);
    std::string inflated;
    EXPECT_EQ(inflateMessage(keeping, c1, inflated), Inflater::Result::Ok);
    EXPECT_EQ(inflateMessage(keeping, c2, inflated), Inflater::Result::Ok);
    EXPECT_EQ(inflated, second);

    Inflater resetting(15, false);
    EXPECT_EQ(inflateMessage(resetting, c1, inflated), Inflater::Result::Ok);
    // Without the first message's window the second refers to bytes that are not there.
    EXPECT_EQ(inflateMessage(resetting, c2, inflated), Inflater::Result::Corrupt);
}

TEST(Inflater, ADeflateBombStopsAtTheBoundWithFlatMemory) {
    Sender sender;
    const std::string zeros(16 << 20, '\0');
    const std::string bomb = sender.compress(zeros);
    ASSERT_LT(bomb.size(), 64u * 1024u);
    Inflater inflater(15, false);
    ByteBuffer out;
    const std::size_t limit = 1 << 20;
    EXPECT_EQ(inflater.add(bomb, out, limit), Inflater::Result::TooBig);
    EXPECT_LE(out.size(), limit + 1);
    // The buffer grew to the bound and one step, not toward 16 MiB.
    EXPECT_LE(out.capacity(), 2 * limit + 64 * 1024);
}

TEST(Inflater, AMessageExactlyAtTheBoundPassesAndOneByteMoreDoesNot) {
    Sender sender;
    const std::string text(1000, 'x');
    const std::string compressed = sender.compress(text);
    Inflater inflater(15, true);
    std::string inflated;
    EXPECT_EQ(inflateMessage(inflater, compressed, inflated, 1000), Inflater::Result::Ok);
    EXPECT_EQ(inflated.size(), 1000u);
    Inflater smaller(15, true);
    EXPECT_EQ(inflateMessage(smaller, compressed, inflated, 999), Inflater::Result::TooBig);
}

TEST(Inflater, CorruptInputIsRefusedAndTheNextMessageStartsClean) {
    Inflater inflater(15, false);
    std::string inflated;
    EXPECT_EQ(inflateMessage(inflater, std::string("\xff\xff\xff\xff\xff\xff", 6), inflated),
              Inflater::Result::Corrupt);
    Sender sender;
    EXPECT_EQ(inflateMessage(inflater, sender.compress("fine again"), inflated), Inflater::Result::Ok);
    EXPECT_EQ(inflated, "fine again");
}

TEST(Inflater, AMessageEndingWithAFinalBlockIsWholeAndTheNextStartsAfresh) {
    Sender sender;
    Inflater inflater(15, true);
    std::string inflated;
    EXPECT_EQ(inflateMessage(inflater, sender.compress("first, final block", true), inflated), Inflater::Result::Ok);
    EXPECT_EQ(inflated, "first, final block");
    EXPECT_EQ(inflateMessage(inflater, sender.compress("second"), inflated), Inflater::Result::Ok);
    EXPECT_EQ(inflated, "second");
}

TEST(Inflater, SmallWindows) {
    for (int bits : {9, 10, 12}) {
        Sender sender(bits);
        Inflater inflater(static_cast<std::uint8_t>(bits), true);
        std::string inflated;
        const std::string text = sampleText();
        EXPECT_EQ(inflateMessage(inflater, sender.compress(text), inflated), Inflater::Result::Ok) << bits;
        EXPECT_EQ(inflated, text) << bits;
    }
    // A client agreed to 2^8 is inflated with 2^9, which holds every reference it can make.
    Inflater eight(8, false);
    EXPECT_TRUE(eight.ready());
}

TEST(Inflater, AnEmptyMessage) {
    Sender sender;
    Inflater inflater(15, false);
    std::string inflated = "not yet";
    EXPECT_EQ(inflateMessage(inflater, sender.compress(""), inflated), Inflater::Result::Ok);
    EXPECT_EQ(inflated, "");
}

}  // namespace
}  // namespace loopwire::ws
