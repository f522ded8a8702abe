// summarizeJson(): the validator behind the C++ http/json-post-1kb server, against what JSON.parse accepts and
// what the JavaScript servers answer.
#include "JsonSummary.h"

#include <gtest/gtest.h>

#include <string>

TEST(JsonSummary, CountsTopLevelMembersAndReadsTheId) {
    JsonSummary summary = summarizeJson(R"( {"id":12345,"a":[1,{"id":7}],"b":{"c":null},"d":"x\"y"} )");
    ASSERT_TRUE(summary.valid);
    EXPECT_EQ(summary.keys, 4u);
    EXPECT_EQ(summary.id, "12345");
}

TEST(JsonSummary, IdIsNullUnlessAPlainIntegerOfAtMost15Digits) {
    EXPECT_EQ(summarizeJson(R"({"id":1.5})").id, "null");
    EXPECT_EQ(summarizeJson(R"({"id":"7"})").id, "null");
    EXPECT_EQ(summarizeJson(R"({"id":1e3})").id, "null");
    EXPECT_EQ(summarizeJson(R"({"id":1234567890123456})").id, "null");
    EXPECT_EQ(summarizeJson(R"({"id":-42})").id, "-42");
    EXPECT_EQ(summarizeJson(R"({"id":-0})").id, "0");
    EXPECT_EQ(summarizeJson(R"({"x":1})").id, "null");
    // The last of repeated names wins, as in JSON.parse.
    EXPECT_EQ(summarizeJson(R"({"id":1,"id":2})").id, "2");
}

TEST(JsonSummary, AcceptsEveryKindOfValue) {
    EXPECT_TRUE(summarizeJson(R"({"a":true,"b":false,"c":null,"d":-0.5e+10,"e":"\u00e9\n","f":[],"g":{}})").valid);
    EXPECT_TRUE(summarizeJson("{}").valid);
}

TEST(JsonSummary, RefusesWhatJsonParseRefuses) {
    for (const char* text : {"", "{", "[1]", "42", R"({"a":1,})", R"({"a" 1})", R"({a:1})", R"({"a":01})",
                             R"({"a":1.})", R"({"a":.5})", R"({"a":tru})", R"({"a":"\x"})", R"({"a":"\u12g4"})",
                             "{\"a\":\"tab\there\"}", R"({"a":1} x)", R"({"a":[1,]})", R"({"a":-})"}) {
        EXPECT_FALSE(summarizeJson(text).valid) << text;
    }
}

TEST(JsonSummary, RefusesNestingDeeperThanTheLimit) {
    auto nested = [](std::size_t depth) { return "{\"a\":" + std::string(depth, '[') + std::string(depth, ']') + "}"; };
    EXPECT_TRUE(summarizeJson(nested(kMaxJsonDepth - 1)).valid);
    EXPECT_FALSE(summarizeJson(nested(kMaxJsonDepth + 1)).valid);
    EXPECT_FALSE(summarizeJson(nested(100000)).valid);
}
