// Tests for core/ws/Utf8Validator: every answer against a decoder written differently, failing at the first
// byte no valid text has, across every split; and every path (portable, SSE2, AVX2 where the machine has them)
// ground against the portable one, on texts that cross its blocks, with each kind of error at every position of a
// block, against a guard page (a read past the end crashes).
#include "ws/Utf8Validator.h"

#include "../GuardedBuffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace loopwire {
namespace {

std::string bytes(std::initializer_list<int> values) {
    std::string out;
    for (int value : values)
        out.push_back(static_cast<char>(value));
    return out;
}

// A second opinion, written differently: decode each character to its code point and check that it is the
// shortest form, not a surrogate and at most U+10FFFF. Returns whether the whole input is UTF-8.
bool referenceIsUtf8(const std::string& text) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto lead = static_cast<unsigned char>(text[i]);
        int length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
        if (length == 0 || i + static_cast<std::size_t>(length) > text.size()) return false;
        std::uint32_t code = length == 1 ? lead : lead & (0xFF >> (length + 1));
        for (int k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
            if ((next & 0xC0) != 0x80) return false;
            code = (code << 6) | (next & 0x3F);
        }
        static constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
        if (code < kSmallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
        i += static_cast<std::size_t>(length);
    }
    return true;
}

// The index of the byte at which feeding one byte at a time first fails; nullopt when none does.
std::optional<std::size_t> firstFailure(const std::string& text) {
    Utf8Validator validator;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (!validator.feed(std::string_view(text).substr(i, 1))) return i;
    }
    return std::nullopt;
}

TEST(Utf8Validator, AcceptsTheBoundariesOfEveryLength) {
    for (const std::string& text :
         {std::string(), std::string("plain ASCII, longer than one word"), bytes({0xC2, 0x80}), bytes({0xDF, 0xBF}),
          bytes({0xE0, 0xA0, 0x80}), bytes({0xED, 0x9F, 0xBF}), bytes({0xEE, 0x80, 0x80}), bytes({0xEF, 0xBF, 0xBF}),
          bytes({0xF0, 0x90, 0x80, 0x80}), bytes({0xF4, 0x8F, 0xBF, 0xBF}), std::string("κόσμε, 世界, 🎉 and text")}) {
        EXPECT_TRUE(Utf8Validator::isValid(text)) << testing::PrintToString(text);
    }
}

TEST(Utf8Validator, RefusesAtTheFirstByteNoValidTextHasThere) {
    struct Case {
        std::string text;
        std::size_t failsAt;
    };
    const Case cases[] = {
        {bytes({0x80}), 0},                    // a continuation byte with no lead
        {bytes({0xC0, 0x80}), 0},              // overlong two-byte form of U+0000
        {bytes({0xC1, 0xBF}), 0},              // overlong
        {bytes({'a', 0xE0, 0x9F, 0xBF}), 2},   // overlong three-byte form
        {bytes({0xED, 0xA0, 0x80}), 1},        // a surrogate, U+D800
        {bytes({0xED, 0xBF, 0xBF}), 1},        // a surrogate, U+DFFF
        {bytes({0xF0, 0x8F, 0xBF, 0xBF}), 1},  // overlong four-byte form
        {bytes({0xF4, 0x90, 0x80, 0x80}), 1},  // U+110000
        {bytes({0xF5, 0x80, 0x80, 0x80}), 0},  // past U+10FFFF
        {bytes({0xFF}), 0},                    // never UTF-8
        {bytes({0xE2, 0x82, 0x41}), 2},        // cut short by ASCII
        {bytes({0xE2, 0xE2, 0x82, 0xAC}), 1},  // cut short by another lead byte
        {std::string(20, 'x') + bytes({0xC3}) + "y", 21},
    };
    for (const Case& c : cases) {
        EXPECT_EQ(firstFailure(c.text), c.failsAt) << testing::PrintToString(c.text);
        EXPECT_FALSE(Utf8Validator::isValid(c.text)) << testing::PrintToString(c.text);
    }
}

TEST(Utf8Validator, ACharacterCutAtTheEndIsIncompleteNotInvalid) {
    Utf8Validator validator;
    EXPECT_TRUE(validator.feed(bytes({'a', 0xF0, 0x9F})));
    EXPECT_FALSE(validator.isComplete());
    EXPECT_FALSE(validator.failed());
    EXPECT_TRUE(validator.feed(bytes({0x8E, 0x89})));
    EXPECT_TRUE(validator.isComplete());
    EXPECT_FALSE(Utf8Validator::isValid(bytes({0xE2, 0x82})));
}

TEST(Utf8Validator, OnceFailedStaysFailedUntilReset) {
    Utf8Validator validator;
    EXPECT_FALSE(validator.feed(bytes({0xC0})));
    EXPECT_FALSE(validator.feed("valid ASCII"));
    EXPECT_TRUE(validator.failed());
    EXPECT_FALSE(validator.isComplete());
    validator.reset();
    EXPECT_TRUE(validator.feed("valid ASCII"));
    EXPECT_TRUE(validator.isComplete());
}

TEST(Utf8Validator, EverySplitGivesTheSameAnswer) {
    const std::string texts[] = {
        std::string("ascii then ") + bytes({0xE2, 0x82, 0xAC}) + " then " + bytes({0xF0, 0x9F, 0x8E, 0x89}) + "!",
        std::string("twelve bytes") + bytes({0xED, 0xA0, 0x80}) + "after a surrogate",
        std::string(17, 'z') + bytes({0xF4, 0x8F, 0xBF}),
    };
    for (const std::string& text : texts) {
        const bool whole = Utf8Validator::isValid(text);
        for (std::size_t cut = 0; cut <= text.size(); ++cut) {
            for (std::size_t cut2 = cut; cut2 <= text.size(); ++cut2) {
                Utf8Validator validator;
                bool ok = validator.feed(std::string_view(text).substr(0, cut)) &&
                          validator.feed(std::string_view(text).substr(cut, cut2 - cut)) &&
                          validator.feed(std::string_view(text).substr(cut2));
                EXPECT_EQ(ok && validator.isComplete(), whole) << "cuts at " << cut << ", " << cut2;
            }
        }
    }
}

TEST(Utf8Validator, AgreesWithADecoderOnEverySequenceOfUpToThreeBytes) {
    std::string text;
    for (int a = 0; a < 256; ++a) {
        text = bytes({a});
        ASSERT_EQ(Utf8Validator::isValid(text), referenceIsUtf8(text)) << a;
        for (int b = 0; b < 256; ++b) {
            text = bytes({a, b});
            ASSERT_EQ(Utf8Validator::isValid(text), referenceIsUtf8(text)) << a << ' ' << b;
            if (a < 0xE0) continue;  // a three-byte check of a shorter lead repeats the cases above
            for (int c = 0; c < 256; ++c) {
                text = bytes({a, b, c});
                ASSERT_EQ(Utf8Validator::isValid(text), referenceIsUtf8(text)) << a << ' ' << b << ' ' << c;
            }
        }
    }
}

TEST(Utf8Validator, AgreesWithADecoderOnRandomLongerTexts) {
    std::mt19937 random(20261201);
    // Bytes weighted toward the interesting ranges, so that random texts are often valid and often nearly so.
    const std::vector<int> alphabet = {'a',  ' ',  0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC2, 0xDF,
                                       0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5, 0xC0, 0xFF};
    std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
    std::uniform_int_distribution<std::size_t> length(0, 24);
    int valid = 0;
    for (int round = 0; round < 200000; ++round) {
        std::string text;
        for (std::size_t n = length(random); n > 0; --n)
            text.push_back(static_cast<char>(alphabet[pick(random)]));
        const bool expected = referenceIsUtf8(text);
        valid += expected ? 1 : 0;
        ASSERT_EQ(Utf8Validator::isValid(text), expected) << testing::PrintToString(text);
    }
    EXPECT_GT(valid, 1000);
}

constexpr Utf8Path kPaths[] = {Utf8Path::Portable, Utf8Path::Sse2, Utf8Path::Avx2};

std::string pathName(Utf8Path path) {
    return path == Utf8Path::Portable ? "portable" : path == Utf8Path::Sse2 ? "SSE2" : "AVX2";
}

// One character of each length class, at the edges of its ranges and inside them.
const std::vector<std::string>& characters() {
    static const std::vector<std::string> all = {"a",
                                                 " ",
                                                 "~",
                                                 bytes({0x7F}),
                                                 bytes({0xC2, 0x80}),
                                                 bytes({0xC3, 0xA9}),
                                                 bytes({0xDF, 0xBF}),
                                                 bytes({0xE0, 0xA0, 0x80}),
                                                 bytes({0xE2, 0x82, 0xAC}),
                                                 bytes({0xED, 0x9F, 0xBF}),
                                                 bytes({0xEE, 0x80, 0x80}),
                                                 bytes({0xEF, 0xBF, 0xBF}),
                                                 bytes({0xF0, 0x90, 0x80, 0x80}),
                                                 bytes({0xF0, 0x9F, 0x8E, 0x89}),
                                                 bytes({0xF3, 0xBF, 0xBF, 0xBF}),
                                                 bytes({0xF4, 0x8F, 0xBF, 0xBF})};
    return all;
}

// Sequences that are invalid wherever they stand (each breaks one rule, or ends a character early).
const std::vector<std::string>& invalidSequences() {
    static const std::vector<std::string> all = {
        bytes({0x80}),                          // a continuation byte with no lead
        bytes({0xBF}),                          //
        bytes({0xC0, 0x80}),                    // overlong two-byte form
        bytes({0xC1, 0xBF}),                    //
        bytes({0xC3, 'a'}),                     // cut short by ASCII
        bytes({0xC3, 0xC3, 0xA9}),              // cut short by another lead
        bytes({0xE0, 0x9F, 0xBF}),              // overlong three-byte form
        bytes({0xED, 0xA0, 0x80}),              // surrogate
        bytes({0xED, 0xBF, 0xBF}),              //
        bytes({0xE2, 0x82, 'a'}),               // a three-byte character cut after two
        bytes({0xE2, 0x82, 0x82, 0x82}),        // a continuation too many
        bytes({0xF0, 0x8F, 0xBF, 0xBF}),        // overlong four-byte form
        bytes({0xF4, 0x90, 0x80, 0x80}),        // past U+10FFFF
        bytes({0xF5, 0x80, 0x80, 0x80}),        //
        bytes({0xF8, 0x88, 0x80, 0x80}),        //
        bytes({0xFF}),                          // never UTF-8
        bytes({0xF0, 0x9F, 0x8E, 'a'}),         // a four-byte character cut after three
        bytes({0xF0, 0x9F, 0x8E, 0x89, 0x89}),  // a continuation too many
    };
    return all;
}

// Whether feeding text with path in the given pieces fails in the piece that holds the first byte the decoder
// refuses (failsAt; nullopt when it refuses none), and ends complete when the text is valid.
void expectPiecewise(Utf8Path path, const std::string& text, const std::vector<std::size_t>& cuts,
                     std::optional<std::size_t> failsAt, bool valid) {
    Utf8Validator validator;
    std::size_t from = 0;
    for (std::size_t i = 0; i <= cuts.size(); ++i) {
        const std::size_t to = i < cuts.size() ? cuts[i] : text.size();
        const bool ok = validator.feedWith(path, std::string_view(text).substr(from, to - from));
        if (!ok) {
            ASSERT_TRUE(failsAt.has_value())
                << pathName(path) << " refused a valid prefix: " << testing::PrintToString(text);
            EXPECT_GE(*failsAt, from) << pathName(path) << " " << testing::PrintToString(text);
            EXPECT_LT(*failsAt, to) << pathName(path) << " " << testing::PrintToString(text);
            return;
        }
        if (failsAt) {
            ASSERT_GE(*failsAt, to) << pathName(path) << " took a refused byte";
        }
        from = to;
    }
    EXPECT_EQ(validator.isComplete(), valid) << pathName(path) << " " << testing::PrintToString(text);
}

TEST(Utf8Validator, EveryPathAgreesWithTheDecoderOnTextsAcrossItsBlocks) {
    std::mt19937 random(20261204);
    std::uniform_int_distribution<std::size_t> length(0, 200);
    std::uniform_int_distribution<std::size_t> character(0, characters().size() - 1);
    std::uniform_int_distribution<int> percent(0, 99);
    std::uniform_int_distribution<int> anyByte(0, 255);
    int valid = 0;
    for (int round = 0; round < 20000; ++round) {
        std::string text;
        // Mostly ASCII for some texts, mostly not for others.
        const int asciiPercent = percent(random);
        for (std::size_t n = length(random); n > 0; --n)
            text += percent(random) < asciiPercent ? std::string(1, 'a' + static_cast<char>(n % 26))
                                                   : characters()[character(random)];
        // A third of them get one byte changed anywhere.
        if (!text.empty() && percent(random) < 33) {
            text[std::uniform_int_distribution<std::size_t>(0, text.size() - 1)(random)] =
                static_cast<char>(anyByte(random));
        }
        const bool expected = referenceIsUtf8(text);
        valid += expected ? 1 : 0;
        const std::optional<std::size_t> failsAt = firstFailure(text);
        std::vector<std::size_t> cuts;
        if (!text.empty()) {
            std::uniform_int_distribution<std::size_t> cut(0, text.size());
            cuts = {cut(random), cut(random)};
            std::sort(cuts.begin(), cuts.end());
        }
        for (Utf8Path path : kPaths) {
            ASSERT_EQ(Utf8Validator::isValidWith(path, text), expected)
                << pathName(path) << " " << testing::PrintToString(text);
            expectPiecewise(path, text, cuts, failsAt, expected);
        }
    }
    EXPECT_GT(valid, 5000);
}

TEST(Utf8Validator, EveryPathFindsEachErrorAtEveryPositionOfItsBlocks) {
    test::GuardedBuffer buffer(512);
    // Each error in ASCII and in text of two-, three- and four-byte characters, at every offset of two blocks
    // and a bit; the text ends right at the guard page.
    const std::vector<std::string> fillers = {"x", bytes({0xC3, 0xA9}), bytes({0xE2, 0x82, 0xAC}),
                                              bytes({0xF0, 0x9F, 0x8E, 0x89})};
    for (const std::string& filler : fillers) {
        std::string padding;
        while (padding.size() < 100)
            padding += filler;
        for (const std::string& error : invalidSequences()) {
            for (std::size_t offset = 0; offset <= 70; ++offset) {
                // The prefix is whole fillers, up to offset bytes.
                const std::string prefix = padding.substr(0, offset / filler.size() * filler.size());
                const std::string text = prefix + error + padding.substr(0, 40);
                ASSERT_FALSE(referenceIsUtf8(text));
                const std::string_view placed(buffer.place(text), text.size());
                for (Utf8Path path : kPaths) {
                    ASSERT_FALSE(Utf8Validator::isValidWith(path, placed))
                        << pathName(path) << " " << testing::PrintToString(text);
                }
            }
        }
        // And the same texts with no error are valid, the last character ending at the guard page.
        for (std::size_t size = 0; size <= 100; size += filler.size()) {
            const std::string_view placed(buffer.place(padding.substr(0, size)), size);
            for (Utf8Path path : kPaths)
                ASSERT_TRUE(Utf8Validator::isValidWith(path, placed)) << pathName(path) << " " << size;
        }
    }
}

TEST(Utf8Validator, EveryPathKnowsACharacterCutAtTheEndOfItsBlocks) {
    // A character whose lead is in the last bytes of a block and whose end is in the next piece, or missing.
    for (const std::string& character : characters()) {
        for (std::size_t before = 25; before <= 70; ++before) {
            const std::string text = std::string(before, 'a') + character + "tail";
            for (std::size_t cut = before; cut <= before + character.size(); ++cut) {
                for (Utf8Path path : kPaths) {
                    Utf8Validator validator;
                    ASSERT_TRUE(validator.feedWith(path, std::string_view(text).substr(0, cut))) << pathName(path);
                    EXPECT_EQ(validator.isComplete(), cut == before || cut == before + character.size())
                        << pathName(path) << " cut at " << cut;
                    ASSERT_TRUE(validator.feedWith(path, std::string_view(text).substr(cut))) << pathName(path);
                    EXPECT_TRUE(validator.isComplete()) << pathName(path);
                    EXPECT_EQ(Utf8Validator::isValidWith(path, std::string_view(text).substr(0, cut)),
                              validator.isComplete() && (cut == before || cut == before + character.size()))
                        << pathName(path);
                }
            }
        }
    }
}

TEST(Utf8Validator, TheFastestPathIsTheOneFeedTakes) {
    EXPECT_TRUE(Utf8Validator::hasPath(Utf8Path::Portable));
#if defined(__x86_64__)
    EXPECT_TRUE(Utf8Validator::hasPath(Utf8Path::Sse2));
#endif
    const std::string text = std::string(40, 'a') + bytes({0xED, 0xA0, 0x80});
    EXPECT_FALSE(Utf8Validator::isValid(text));
    EXPECT_TRUE(Utf8Validator::isValid(std::string(40, 'a') + bytes({0xED, 0x9F, 0xBF})));
}

}  // namespace
}  // namespace loopwire
