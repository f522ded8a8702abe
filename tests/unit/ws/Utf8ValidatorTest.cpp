#include "ws/Utf8Validator.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace loopwire
