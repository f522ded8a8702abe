#include "static/EntityTag.h"

#include <gtest/gtest.h>

#include <string>

namespace loopwire::files {
namespace {

EntityTag tag(std::string_view text) {
    const std::optional<EntityTag> parsed = EntityTag::parse(text);
    EXPECT_TRUE(parsed) << text;
    return parsed.value_or(EntityTag{});
}

TagListMatch strongly(std::string_view field, std::string_view current) {
    return EntityTag::matchList(field, tag(current), TagComparison::Strong);
}

TagListMatch weakly(std::string_view field, std::string_view current) {
    return EntityTag::matchList(field, tag(current), TagComparison::Weak);
}

TEST(EntityTag, ReadsStrongAndWeakTags) {
    EXPECT_EQ(tag("\"1a2b-3c\"").opaque, "1a2b-3c");
    EXPECT_FALSE(tag("\"1a2b-3c\"").weak);
    EXPECT_EQ(tag("W/\"1a2b-3c\"").opaque, "1a2b-3c");
    EXPECT_TRUE(tag("W/\"1a2b-3c\"").weak);
    EXPECT_EQ(tag("\"\"").opaque, "") << "an empty opaque-tag is one";
    EXPECT_EQ(tag("\"a,b\"").opaque, "a,b") << "a comma is an etagc";
    EXPECT_EQ(tag("\"!#~W/\"").opaque, "!#~W/");
    EXPECT_EQ(tag("\"\x80\xff\"").opaque, "\x80\xff") << "obs-text";
}

TEST(EntityTag, RejectsWhatIsNoEntityTag) {
    for (std::string_view text : {
             "",         "abc",       "\"abc",       "abc\"",      "\"",       "w/\"abc\"",  "W/abc",
             "W/",       "W/\"",      "W/W/\"abc\"", "W/ \"abc\"", "\"a\"b\"", "\"a\"\"b\"", "\"a b\"",
             "\"a\tb\"", "\"a\x7f\"", "\"a\x01\"",   " \"abc\"",   "\"abc\" ", "*",          "'abc'",
         }) {
        EXPECT_EQ(EntityTag::parse(text), std::nullopt) << text;
    }
    EXPECT_EQ(EntityTag::parse(std::string_view("\"a\0b\"", 5)), std::nullopt) << "NUL";
}

// The table of RFC 9110 §8.8.3.2.
TEST(EntityTag, ComparesStronglyAndWeaklyAsRfc9110Tabulates) {
    EXPECT_FALSE(tag("W/\"1\"").matches(tag("W/\"1\""), TagComparison::Strong));
    EXPECT_TRUE(tag("W/\"1\"").matches(tag("W/\"1\""), TagComparison::Weak));
    EXPECT_FALSE(tag("W/\"1\"").matches(tag("W/\"2\""), TagComparison::Strong));
    EXPECT_FALSE(tag("W/\"1\"").matches(tag("W/\"2\""), TagComparison::Weak));
    EXPECT_FALSE(tag("W/\"1\"").matches(tag("\"1\""), TagComparison::Strong));
    EXPECT_TRUE(tag("W/\"1\"").matches(tag("\"1\""), TagComparison::Weak));
    EXPECT_TRUE(tag("\"1\"").matches(tag("\"1\""), TagComparison::Strong));
    EXPECT_TRUE(tag("\"1\"").matches(tag("\"1\""), TagComparison::Weak));
}

TEST(EntityTag, ComparesOpaqueTagsByteForByte) {
    EXPECT_FALSE(tag("\"abc\"").matches(tag("\"ABC\""), TagComparison::Weak));
    EXPECT_FALSE(tag("\"abc\"").matches(tag("\"ab\""), TagComparison::Weak));
    EXPECT_FALSE(tag("\"abc\"").matches(tag("\"abcd\""), TagComparison::Weak));
    EXPECT_FALSE(tag("\"\"").matches(tag("\"a\""), TagComparison::Strong));
    EXPECT_TRUE(tag("\"\"").matches(tag("\"\""), TagComparison::Strong));
}

TEST(EntityTag, AStarAloneMatchesAnyRepresentation) {
    EXPECT_EQ(strongly("*", "\"abc\""), TagListMatch::Matched);
    EXPECT_EQ(weakly("*", "W/\"abc\""), TagListMatch::Matched);
    EXPECT_EQ(EntityTag::matchList("*", std::nullopt, TagComparison::Strong), TagListMatch::Matched)
        << "a representation without an entity-tag";
    EXPECT_EQ(strongly(" *\t", "\"abc\""), TagListMatch::Matched) << "whitespace around it";
}

TEST(EntityTag, FindsTheCurrentTagAnywhereInAList) {
    EXPECT_EQ(strongly("\"abc\"", "\"abc\""), TagListMatch::Matched);
    EXPECT_EQ(strongly("\"x\", \"abc\", \"y\"", "\"abc\""), TagListMatch::Matched);
    EXPECT_EQ(strongly("\"x\",\"y\",\"abc\"", "\"abc\""), TagListMatch::Matched);
    EXPECT_EQ(strongly("\"x\", \"y\"", "\"abc\""), TagListMatch::NotMatched);
    EXPECT_EQ(EntityTag::matchList("\"abc\"", std::nullopt, TagComparison::Weak), TagListMatch::NotMatched)
        << "a representation without an entity-tag";
}

TEST(EntityTag, TakesWhitespaceAndEmptyElementsInTheList) {
    EXPECT_EQ(strongly(" , ,\t\"x\" ,\t, \"abc\"\t,, ", "\"abc\""), TagListMatch::Matched);
    EXPECT_EQ(strongly(",\"abc\"", "\"abc\""), TagListMatch::Matched);
    EXPECT_EQ(strongly("\"abc\",", "\"abc\""), TagListMatch::Matched);
    EXPECT_EQ(strongly(" , , ", "\"abc\""), TagListMatch::NotMatched) << "a list of empty elements only";
    EXPECT_EQ(strongly(",", "\"abc\""), TagListMatch::NotMatched);
}

TEST(EntityTag, ComparesListedWeakTagsAsItIsAsked) {
    EXPECT_EQ(strongly("W/\"abc\"", "\"abc\""), TagListMatch::NotMatched);
    EXPECT_EQ(strongly("\"abc\"", "W/\"abc\""), TagListMatch::NotMatched);
    EXPECT_EQ(strongly("W/\"abc\"", "W/\"abc\""), TagListMatch::NotMatched);
    EXPECT_EQ(weakly("W/\"abc\"", "\"abc\""), TagListMatch::Matched);
    EXPECT_EQ(weakly("\"abc\"", "W/\"abc\""), TagListMatch::Matched);
    EXPECT_EQ(weakly("\"x\", W/\"abc\"", "W/\"abc\""), TagListMatch::Matched);
}

TEST(EntityTag, ReadsACommaInsideATagAsPartOfIt) {
    EXPECT_EQ(strongly("\"a,b\"", "\"a,b\""), TagListMatch::Matched);
    EXPECT_EQ(strongly("\"a,b\"", "\"a\""), TagListMatch::NotMatched);
    EXPECT_EQ(strongly("\"b\", \"a,b\"", "\"b\""), TagListMatch::Matched);
}

TEST(EntityTag, AMalformedListIsMalformedWhereverItsFaultIs) {
    for (std::string_view field : {
             "abc",
             "\"abc",
             "\"abc\" \"x\"",
             "\"abc\"\"x\"",
             "\"abc\", *",
             "*, \"abc\"",
             "**",
             "* *",
             "\"abc\", x",
             "\"abc\", W/",
             "\"abc\", W/x",
             "w/\"abc\"",
             "W/\"abc\"x",
             "\"abc\";q=1",
             "\"ab c\"",
             "\"abc\"\r\n",
             "\"abc\", \"x",
             "\"abc\"\v",
         }) {
        EXPECT_EQ(strongly(field, "\"abc\""), TagListMatch::Malformed) << field;
        EXPECT_EQ(weakly(field, "\"abc\""), TagListMatch::Malformed) << field;
    }
}

TEST(EntityTag, ALongListIsReadToItsEnd) {
    std::string field;
    for (int i = 0; i < 10'000; ++i)
        field += "\"tag-" + std::to_string(i) + "\", ";
    EXPECT_EQ(strongly(field + "\"abc\"", "\"abc\""), TagListMatch::Matched);
    EXPECT_EQ(strongly(field, "\"abc\""), TagListMatch::NotMatched);
    EXPECT_EQ(strongly("\"abc\", " + field + "garbage", "\"abc\""), TagListMatch::Malformed);
}

}  // namespace
}  // namespace loopwire::files
