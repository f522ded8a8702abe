#include "compress/AcceptEncoding.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace loopwire::compress {
namespace {

// Nothing the reader holds can own memory: it is a few weights and a count, copied as bytes.
static_assert(std::is_trivially_copyable_v<AcceptEncoding>);

constexpr CodingSet kEveryCoding{ContentCoding::Gzip, ContentCoding::Brotli, ContentCoding::Zstd};

// The choice for these field lines, read in order, as a readable string: the coding's token, " (not acceptable)" when
// it is not.
std::string chosenFrom(std::initializer_list<std::string_view> lines, CodingSet offered = kEveryCoding,
                       std::span<const ContentCoding> preference = AcceptEncoding::kServerPreference) {
    AcceptEncoding accept;
    for (std::string_view line : lines)
        accept.read(line);
    const CodingChoice choice = accept.choose(offered, preference);
    std::string text(contentCodingToken(choice.coding));
    if (!choice.acceptable) text += " (not acceptable)";
    return text;
}

std::string chosen(std::string_view field, CodingSet offered = kEveryCoding) { return chosenFrom({field}, offered); }

TEST(AcceptEncoding, NoFieldOrAnEmptyOneMeansIdentity) {
    EXPECT_EQ(chosenFrom({}), "identity");
    EXPECT_EQ(chosen(""), "identity");
    EXPECT_EQ(chosen("   "), "identity");
    EXPECT_EQ(chosen(", ,\t,"), "identity");
}

TEST(AcceptEncoding, WhatBrowsersAndCurlSend) {
    EXPECT_EQ(chosen("gzip, deflate, br, zstd"), "br");
    EXPECT_EQ(chosen("gzip, deflate, br"), "br");
    EXPECT_EQ(chosen("deflate, gzip, br, zstd", {ContentCoding::Gzip, ContentCoding::Zstd}), "zstd");
    EXPECT_EQ(chosen("gzip, deflate"), "gzip");
    EXPECT_EQ(chosen("gzip"), "gzip");
}

TEST(AcceptEncoding, ChoosesTheOfferedCodingOfHighestWeight) {
    EXPECT_EQ(chosen("gzip;q=1, br;q=0.5"), "gzip");
    EXPECT_EQ(chosen("gzip;q=0.5, br;q=0.8, zstd;q=0.9"), "zstd");
    EXPECT_EQ(chosen("gzip;q=0.001, br;q=0.002"), "br");
}

TEST(AcceptEncoding, ATieGoesToTheServersPreference) {
    EXPECT_EQ(chosen("gzip, zstd, br"), "br");
    EXPECT_EQ(chosen("gzip, zstd"), "zstd");
    EXPECT_EQ(chosen("gzip;q=0.5, br;q=0.5"), "br");
    constexpr ContentCoding gzipFirst[] = {ContentCoding::Gzip, ContentCoding::Brotli, ContentCoding::Zstd};
    EXPECT_EQ(chosenFrom({"br, zstd, gzip"}, kEveryCoding, gzipFirst), "gzip");
    EXPECT_EQ(chosenFrom({"br;q=0.9, gzip;q=0.8"}, kEveryCoding, gzipFirst), "br") << "the weight comes first";
    constexpr ContentCoding zstdOnly[] = {ContentCoding::Zstd};
    EXPECT_EQ(chosenFrom({"gzip, br, zstd"}, kEveryCoding, zstdOnly), "zstd");
    EXPECT_EQ(chosenFrom({"gzip, br"}, kEveryCoding, zstdOnly), "br") << "the codings it omits, in the default order";
    constexpr ContentCoding identityFirst[] = {ContentCoding::Identity, ContentCoding::Gzip};
    EXPECT_EQ(chosenFrom({"identity, gzip"}, kEveryCoding, identityFirst), "gzip") << "identity loses every tie";
}

TEST(AcceptEncoding, ChoosesOnlyAmongWhatIsOffered) {
    const CodingSet precompressed{ContentCoding::Brotli, ContentCoding::Gzip};
    EXPECT_EQ(chosen("zstd, gzip", precompressed), "gzip");
    EXPECT_EQ(chosen("zstd", precompressed), "identity");
    EXPECT_EQ(chosen("gzip, br, zstd", CodingSet{}), "identity");
    EXPECT_EQ(chosen("gzip", CodingSet{ContentCoding::Identity}), "identity") << "identity is always offered";
}

TEST(AcceptEncoding, AZeroWeightForbids) {
    EXPECT_EQ(chosen("br;q=0, gzip"), "gzip");
    EXPECT_EQ(chosen("gzip;q=0"), "identity");
    EXPECT_EQ(chosen("gzip;q=0.000, br;q=0."), "identity");
}

TEST(AcceptEncoding, ReadsWeightsOfUpToThreeDecimalsInEachForm) {
    EXPECT_EQ(chosen("gzip;q=1.000, br;q=0.999"), "gzip");
    EXPECT_EQ(chosen("gzip;q=1., br;q=0.999"), "gzip");
    EXPECT_EQ(chosen("gzip;q=0.9, br;q=0.89"), "gzip");
    EXPECT_EQ(chosen("gzip;Q=0.5, br;q=0.4"), "gzip") << "the parameter's name in any case";
    EXPECT_EQ(chosen("gzip; q=0.5 , br ;q=0.4"), "gzip") << "whitespace around the semicolon";
}

TEST(AcceptEncoding, SkipsAnElementThatBreaksTheGrammar) {
    for (std::string_view weight : {";q=1.5", ";q=1.001", ";q=0.1234", ";q=2", ";q=.5", ";q=", ";q", ";", ";q=-1",
                                    ";q=0.5x", ";q =0.5", ";q= 0.5", ";level=1", ";q=0.5;q=0.4", ";q=0.5 0.4"}) {
        const std::string element = "gzip" + std::string(weight);
        EXPECT_EQ(chosen(element), "identity") << element;
        EXPECT_EQ(chosen(element + ", br;q=0.1"), "br") << element << ": the next element stands";
    }
    EXPECT_EQ(chosen("gzip br, zstd"), "zstd");
    EXPECT_EQ(chosen(";q=1, gzip"), "gzip") << "an element with no name";
}

TEST(AcceptEncoding, NamesAreCaseInsensitiveAndXGzipIsGzip) {
    EXPECT_EQ(chosen("GZIP"), "gzip");
    EXPECT_EQ(chosen("Br"), "br");
    EXPECT_EQ(chosen("ZStd"), "zstd");
    EXPECT_EQ(chosen("x-gzip"), "gzip");
    EXPECT_EQ(chosen("X-GZip;q=0.5, identity;q=0.4"), "gzip");
}

TEST(AcceptEncoding, IgnoresCodingsNotKnownHere) {
    EXPECT_EQ(chosen("deflate, compress, sdch, bzip2, exi"), "identity");
    EXPECT_EQ(chosen("gzip2, brotli, zst, x-br, gzi"), "identity");
    EXPECT_EQ(chosen("deflate;q=1, gzip;q=0.1"), "gzip");
}

TEST(AcceptEncoding, AStarWeighsEveryCodingTheFieldDoesNotName) {
    EXPECT_EQ(chosen("*"), "br");
    EXPECT_EQ(chosen("*", {ContentCoding::Gzip}), "gzip");
    EXPECT_EQ(chosen("*;q=0.5, br;q=0.1"), "zstd");
    EXPECT_EQ(chosen("*, br;q=0"), "zstd");
    EXPECT_EQ(chosen("br;q=0, *"), "zstd") << "whatever the order";
    EXPECT_EQ(chosen("*;q=0, gzip"), "gzip");
    EXPECT_EQ(chosen("*;q=0, identity"), "identity");
    EXPECT_EQ(chosen("*;q=0.5, identity;q=0.6"), "identity");
}

TEST(AcceptEncoding, IdentityWinsOnlyWhenWeighedAboveEveryAcceptableCoding) {
    EXPECT_EQ(chosen("gzip;q=0.5, identity"), "identity");
    EXPECT_EQ(chosen("gzip;q=0.5, identity;q=0.5"), "gzip");
    EXPECT_EQ(chosen("gzip, identity"), "gzip");
    EXPECT_EQ(chosen("gzip;q=0.001"), "gzip") << "identity the field does not weigh ranks below every coding";
    EXPECT_EQ(chosen("identity"), "identity");
}

TEST(AcceptEncoding, WhenIdentityIsForbiddenAndNothingOfferedIsAcceptableItSaysSo) {
    EXPECT_EQ(chosen("identity;q=0"), "identity (not acceptable)");
    EXPECT_EQ(chosen("identity;q=0, deflate"), "identity (not acceptable)");
    EXPECT_EQ(chosen("*;q=0"), "identity (not acceptable)");
    EXPECT_EQ(chosen("*;q=0, zstd", {ContentCoding::Brotli}), "identity (not acceptable)");
    EXPECT_EQ(chosen("identity;q=0, gzip", {ContentCoding::Gzip}), "gzip");
    EXPECT_EQ(chosen("gzip;q=0, identity;q=0", {ContentCoding::Gzip}), "identity (not acceptable)");
}

TEST(AcceptEncoding, ACodingListedTwiceTakesItsLowerWeight) {
    EXPECT_EQ(chosen("gzip, gzip;q=0"), "identity");
    EXPECT_EQ(chosen("gzip;q=0, x-gzip"), "identity");
    EXPECT_EQ(chosen("br;q=0.9, gzip;q=0.5, br;q=0.2"), "gzip");
    EXPECT_EQ(chosen("*, br, *;q=0"), "br");
    EXPECT_EQ(chosen("*, br, *;q=0", {ContentCoding::Gzip}), "identity (not acceptable)");
}

TEST(AcceptEncoding, SeveralFieldLinesAreOneList) {
    EXPECT_EQ(chosenFrom({"gzip;q=0.5", "br;q=0.2"}), "gzip");
    EXPECT_EQ(chosenFrom({"br", "br;q=0"}), "identity");
    EXPECT_EQ(chosenFrom({"", "zstd"}), "zstd");
    EXPECT_EQ(chosenFrom({"identity;q=0", ""}), "identity (not acceptable)");
}

TEST(AcceptEncoding, TakesWhitespaceAndEmptyListElements) {
    EXPECT_EQ(chosen(" gzip ; q=0.5 ,, \t, br ;q=0.6 , "), "br");
    EXPECT_EQ(chosen(",,gzip,,"), "gzip");
    EXPECT_EQ(chosen("\tzstd\t"), "zstd");
}

TEST(AcceptEncoding, ExaminesAtMostItsBoundOfElements) {
    std::string field;
    for (std::size_t i = 1; i < AcceptEncoding::kMaxElements; ++i)
        field += "deflate, ";
    EXPECT_EQ(chosen(field + "gzip"), "gzip") << "the last element within the bound";
    EXPECT_EQ(chosen(field + "deflate, gzip"), "identity") << "a field past the bound is disregarded";
    EXPECT_EQ(chosen(field + ", , , gzip, , "), "gzip") << "empty elements are not counted";
    EXPECT_EQ(chosenFrom({field, "gzip, br"}), "identity") << "counted over all the lines";
    EXPECT_EQ(chosenFrom({field + "identity;q=0, deflate"}), "identity") << "a disregarded field forbids nothing";
}

TEST(AcceptEncoding, NamesEachCodingWithItsContentEncodingToken) {
    EXPECT_EQ(contentCodingToken(ContentCoding::Identity), "identity");
    EXPECT_EQ(contentCodingToken(ContentCoding::Gzip), "gzip");
    EXPECT_EQ(contentCodingToken(ContentCoding::Brotli), "br");
    EXPECT_EQ(contentCodingToken(ContentCoding::Zstd), "zstd");
}

TEST(AcceptEncoding, ChoosingAgainOrWithOtherOffersReadsTheSameList) {
    AcceptEncoding accept;
    accept.read("gzip;q=0.8, br;q=0.5, identity;q=0.1");
    EXPECT_EQ(accept.choose(kEveryCoding), (CodingChoice{ContentCoding::Gzip, true}));
    EXPECT_EQ(accept.choose({ContentCoding::Brotli}), (CodingChoice{ContentCoding::Brotli, true}));
    EXPECT_EQ(accept.choose({ContentCoding::Zstd}), (CodingChoice{ContentCoding::Identity, true}));
    EXPECT_EQ(accept.choose(kEveryCoding), (CodingChoice{ContentCoding::Gzip, true}));
}

TEST(AcceptEncoding, ACodingSetHoldsWhatWasAddedAndNotRemoved) {
    CodingSet set;
    EXPECT_FALSE(set.contains(ContentCoding::Gzip));
    set.add(ContentCoding::Gzip).add(ContentCoding::Zstd);
    EXPECT_TRUE(set.contains(ContentCoding::Gzip));
    EXPECT_TRUE(set.contains(ContentCoding::Zstd));
    EXPECT_FALSE(set.contains(ContentCoding::Brotli));
    set.remove(ContentCoding::Gzip);
    EXPECT_EQ(set, CodingSet{ContentCoding::Zstd});
}

}  // namespace
}  // namespace loopwire::compress
