#include "http/HttpSyntax.h"

#include <gtest/gtest.h>

#include <string>

namespace loopwire {
namespace {

TEST(HttpSyntax, TheTokenTableIsIsTokenChar) {
    for (unsigned c = 0; c < 256; ++c)
        EXPECT_EQ(http_syntax::kTokenTable.isToken[c], http_syntax::isTokenChar(c)) << c;
}

TEST(HttpSyntax, IsToken) {
    EXPECT_TRUE(http_syntax::isToken("Content-Type"));
    EXPECT_TRUE(http_syntax::isToken("x!#$%&'*+-.^_`|~9"));
    EXPECT_FALSE(http_syntax::isToken(""));
    for (const char* bad : {"a b", "a:b", "a\r", "é", "a\"", "(a)", "a/b"}) {
        EXPECT_FALSE(http_syntax::isToken(bad)) << bad;
    }
    EXPECT_FALSE(http_syntax::isToken(std::string_view("a\0b", 3)));
}

// Every byte that is not a tchar is refused at every position of names of every length around the four-byte step,
// and every tchar is accepted there.
TEST(HttpSyntax, ANonTokenByteIsFoundAnywhereAndEveryTokenByteIsAccepted) {
    for (std::size_t length = 1; length <= 13; ++length) {
        const std::string clean(length, 'n');
        EXPECT_TRUE(http_syntax::isToken(clean)) << length;
        for (std::size_t at = 0; at < length; ++at) {
            for (unsigned c = 0; c < 256; ++c) {
                std::string name = clean;
                name[at] = static_cast<char>(c);
                EXPECT_EQ(http_syntax::isToken(name), http_syntax::isTokenChar(c)) << length << " " << at << " " << c;
            }
        }
    }
}

// CR, LF and NUL are found at every position of values of every length around the word size, and nothing else
// is: bytes that differ from them in one bit, or by the high bit, pass.
TEST(HttpSyntax, ALineBreakOrNulIsFoundAnywhereAndNothingElseIs) {
    for (std::size_t length = 1; length <= 24; ++length) {
        const std::string clean(length, 'v');
        EXPECT_TRUE(http_syntax::hasNoLineBreakOrNul(clean)) << length;
        for (std::size_t at = 0; at < length; ++at) {
            for (char bad : {'\r', '\n', '\0'}) {
                std::string value = clean;
                value[at] = bad;
                EXPECT_FALSE(http_syntax::hasNoLineBreakOrNul(value)) << length << " " << at << " " << int(bad);
            }
            for (char fine : {'\x0c', '\x0e', '\x0b', '\x01', '\x8d', '\x8a', '\x80', '\xff', ' ', '\t'}) {
                std::string value = clean;
                value[at] = fine;
                EXPECT_TRUE(http_syntax::hasNoLineBreakOrNul(value)) << length << " " << at << " " << int(fine);
            }
        }
    }
    EXPECT_TRUE(http_syntax::hasNoLineBreakOrNul(""));
    // A byte before a zero borrows in the subtraction; the exact test is not fooled into a false alarm by 0x01.
    EXPECT_TRUE(http_syntax::hasNoLineBreakOrNul(std::string(16, '\x01')));
}

}  // namespace
}  // namespace loopwire
