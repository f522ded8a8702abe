// Tests of core/http/ChunkedDecoder.cpp. Every body goes through Grind (whole, every split, byte by byte, against
// a guard page) unless a test is about one particular way of feeding it.
#include "Grind.h"

#include "base/Limits.h"
#include "http/ChunkedDecoder.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace loopwire {
namespace {

using namespace std::string_literals;
using namespace std::string_view_literals;
using test::BodySnapshot;
using test::grindDecode;

BodySnapshot decoded(std::string_view body, test::GrindOptions options = {}) {
    BodySnapshot s = grindDecode(body, options);
    EXPECT_EQ(s.status, ParseStatus::Complete) << "refused with " << nameOf(s.error);
    return s;
}

HttpError refusalOf(std::string_view body, test::GrindOptions options = {}) {
    const BodySnapshot s = grindDecode(body, options);
    return s.status == ParseStatus::Error ? s.error : HttpError::None;
}

// ---- Bodies that decode ----------------------------------------------------------------------------------------

TEST(ChunkedDecoder, DecodesOneChunk) {
    const std::string body = "5\r\nhello\r\n0\r\n\r\n";
    const BodySnapshot s = decoded(body);
    EXPECT_EQ(s.payload, "hello");
    EXPECT_EQ(s.consumed, body.size());
}

TEST(ChunkedDecoder, DecodesSeveralChunks) {
    EXPECT_EQ(decoded("5\r\nhello\r\n6\r\n world\r\n1\r\n!\r\n0\r\n\r\n").payload, "hello world!");
}

TEST(ChunkedDecoder, DecodesEmptyBody) {
    const BodySnapshot s = decoded("0\r\n\r\n");
    EXPECT_EQ(s.payload, "");
    EXPECT_EQ(s.consumed, 5u);
}

TEST(ChunkedDecoder, AcceptsHexInEitherCase) {
    EXPECT_EQ(decoded("a\r\n0123456789\r\nA\r\n0123456789\r\n0\r\n\r\n").payload.size(), 20u);
    EXPECT_EQ(decoded("1e\r\nall your base are belong to us\r\n0\r\n\r\n").payload, "all your base are belong to us");
}

TEST(ChunkedDecoder, AcceptsLeadingZerosInSizes) { EXPECT_EQ(decoded("005\r\nhello\r\n000\r\n\r\n").payload, "hello"); }

TEST(ChunkedDecoder, PassesBinaryPayloadUnchanged) {
    const std::string payload = "\r\n\0\xff;0\r\n\r\n"s;
    EXPECT_EQ(decoded("a\r\n" + payload + "\r\n0\r\n\r\n").payload, payload);
}

TEST(ChunkedDecoder, StopsAtEndOfBody) {
    const std::string body = "3\r\nabc\r\n0\r\n\r\n";
    const BodySnapshot s = grindDecode(body + "GET / HTTP/1.1\r\n");
    EXPECT_EQ(s.status, ParseStatus::Complete);
    EXPECT_EQ(s.consumed, body.size());
    EXPECT_EQ(s.payload, "abc");
}

TEST(ChunkedDecoder, HandsOverPayloadZeroCopy) {
    const std::string input = "5\r\nhello\r\n0\r\n\r\n";
    ChunkedDecoder decoder;
    const ChunkedResult r = decoder.decode(input);
    EXPECT_EQ(r.status, ParseStatus::NeedMore);
    EXPECT_EQ(r.data, "hello");
    EXPECT_EQ(r.data.data(), input.data() + 3);
    EXPECT_EQ(r.consumed, 8u);
    const ChunkedResult end = decoder.decode(std::string_view(input).substr(r.consumed));
    EXPECT_EQ(end.status, ParseStatus::Complete);
    EXPECT_EQ(end.consumed, input.size() - 8);
    EXPECT_TRUE(end.data.empty());
}

TEST(ChunkedDecoder, HandsOverOneViewPerCall) {
    ChunkedDecoder decoder;
    const std::string input = "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
    std::string_view rest = input;
    std::string joined;
    int views = 0;
    for (;;) {
        const ChunkedResult r = decoder.decode(rest);
        if (!r.data.empty()) ++views;
        joined.append(r.data);
        rest.remove_prefix(r.consumed);
        if (r.status != ParseStatus::NeedMore) break;
    }
    EXPECT_EQ(joined, "abcde");
    EXPECT_EQ(views, 2);
}

TEST(ChunkedDecoder, ReportsRemainingInChunk) {
    ChunkedDecoder decoder;
    EXPECT_EQ(decoder.remainingInChunk(), 0u);
    ChunkedResult r = decoder.decode("a\r\n0123");
    EXPECT_EQ(r.data, "0123");
    EXPECT_EQ(decoder.remainingInChunk(), 6u);
    r = decoder.decode("456789\r\n");
    EXPECT_EQ(r.data, "456789");
    EXPECT_EQ(decoder.remainingInChunk(), 0u);
}

TEST(ChunkedDecoder, WaitsForEveryProperPrefix) {
    const std::string body = "4;x=\"y\"\r\nwiki\r\n0\r\nA: b\r\n\r\n";
    for (std::size_t n = 0; n < body.size(); ++n) {
        EXPECT_EQ(grindDecode(body.substr(0, n), {.splits = false, .bytewise = false}).status, ParseStatus::NeedMore)
            << n;
    }
}

TEST(ChunkedDecoder, RepeatsErrorUntilReset) {
    ChunkedDecoder decoder;
    const ChunkedResult first = decoder.decode("z\r\n");
    EXPECT_EQ(first.status, ParseStatus::Error);
    EXPECT_EQ(first.error, HttpError::BadChunkSize);
    const ChunkedResult again = decoder.decode("0\r\n\r\n");
    EXPECT_EQ(again.status, ParseStatus::Error);
    EXPECT_EQ(again.error, HttpError::BadChunkSize);
    EXPECT_EQ(again.consumed, 0u);
    decoder.reset();
    EXPECT_EQ(decoder.decode("0\r\n\r\n").status, ParseStatus::Complete);
}

TEST(ChunkedDecoder, StaysCompleteUntilReset) {
    ChunkedDecoder decoder;
    EXPECT_EQ(decoder.decode("0\r\n\r\n").status, ParseStatus::Complete);
    const ChunkedResult after = decoder.decode("5\r\nhello");
    EXPECT_EQ(after.status, ParseStatus::Complete);
    EXPECT_EQ(after.consumed, 0u);
    decoder.reset();
    EXPECT_EQ(decoder.decode("5\r\nhello").data, "hello");
}

// ---- Chunk sizes ------------------------------------------------------------------------------------------------

TEST(ChunkedDecoder, RejectsEmptyChunkSize) {
    EXPECT_EQ(refusalOf("\r\n"), HttpError::BadChunkSize);
    EXPECT_EQ(refusalOf("3\r\nfoo\r\n\r\n"), HttpError::BadChunkSize);  // the last chunk is missing
    EXPECT_EQ(refusalOf(";ext\r\n"), HttpError::BadChunkSize);
}

TEST(ChunkedDecoder, RejectsNonHexChunkSize) {
    EXPECT_EQ(refusalOf("g\r\n"), HttpError::BadChunkSize);
    EXPECT_EQ(refusalOf("0x5\r\nhello\r\n"), HttpError::BadChunkSize);
    EXPECT_EQ(refusalOf("-1\r\n"), HttpError::BadChunkSize);
    EXPECT_EQ(refusalOf("2 erfrferferf\r\naa\r\n0 rrrr\r\n\r\n"), HttpError::BadChunkSize);
}

TEST(ChunkedDecoder, RejectsWhitespaceAfterSizeWithoutExtension) {
    EXPECT_EQ(refusalOf("a \r\n0123456789\r\n0\r\n\r\n"), HttpError::BadChunkSize);
    EXPECT_EQ(refusalOf("3 \n  \r\nfoo\r\n\r\n"), HttpError::BareLineEnding);
}

TEST(ChunkedDecoder, AcceptsWhitespaceBeforeExtension) {
    EXPECT_EQ(decoded("5 \t ;a=b\r\nhello\r\n0\r\n\r\n").payload, "hello");
}

TEST(ChunkedDecoder, AcceptsChunkSizeAtDigitLimit) {
    const std::string size = std::string(limits::kMaxChunkSizeDigits - 1, '0') + "5";
    EXPECT_EQ(decoded(size + "\r\nhello\r\n0\r\n\r\n").payload, "hello");
}

TEST(ChunkedDecoder, RejectsChunkSizeOverDigitLimit) {
    const std::string size = std::string(limits::kMaxChunkSizeDigits, '0') + "5";
    EXPECT_EQ(refusalOf(size + "\r\nhello\r\n0\r\n\r\n"), HttpError::ChunkSizeOverflow);
    EXPECT_EQ(refusalOf(size), HttpError::ChunkSizeOverflow);  // before the line ends
}

TEST(ChunkedDecoder, AcceptsLargestChunkSize) {
    ChunkedDecoder decoder;
    const ChunkedResult r = decoder.decode("7fffffffffffffff\r\nabc");
    EXPECT_EQ(r.status, ParseStatus::NeedMore);
    EXPECT_EQ(r.data, "abc");
    EXPECT_EQ(decoder.remainingInChunk(), 0x7fffffffffffffffULL - 3);
}

TEST(ChunkedDecoder, RejectsChunkSizeOver63Bits) {
    EXPECT_EQ(refusalOf("8000000000000000\r\n"), HttpError::ChunkSizeOverflow);
    EXPECT_EQ(refusalOf("ffffffffffffffff\r\n"), HttpError::ChunkSizeOverflow);
}

TEST(ChunkedDecoder, RejectsBareLineEndingsAfterSize) {
    EXPECT_EQ(refusalOf("5\nhello\r\n0\r\n\r\n"), HttpError::BareLineEnding);
    EXPECT_EQ(refusalOf("5\r\r;ABCD\r\n34\r\nE\r\n0\r\n\r\n"), HttpError::BareLineEnding);
    EXPECT_EQ(refusalOf("5;a=b\nhello\r\n"), HttpError::BareLineEnding);
    EXPECT_EQ(refusalOf("\n"), HttpError::BareLineEnding);
    EXPECT_EQ(refusalOf("1;a=\"b\n\"\r\n"), HttpError::BareLineEnding);
}

// ---- Chunk extensions -----------------------------------------------------------------------------------------

TEST(ChunkedDecoder, AcceptsTokenExtensions) {
    const std::string body =
        "5;ilovew3;somuchlove=aretheseparametersfor;another=withvalue\r\nhello\r\n6;blahblah;blah\r\n "
        "world\r\n0\r\n\r\n";
    EXPECT_EQ(decoded(body).payload, "hello world");
}

TEST(ChunkedDecoder, AcceptsQuotedExtensionValues) {
    const std::string body =
        "5;ilovew3=\"I \\\"love\\\"; \\\\extensions\\\\\";somuchlove=\"aretheseparametersfor\";blah;foo=bar\r\n"
        "hello\r\n0\r\n\r\n";
    EXPECT_EQ(decoded(body).payload, "hello");
    EXPECT_EQ(decoded("1;a=\"\"\r\nx\r\n0;b=\"\xe2\x9c\x93\"\r\n\r\n").payload, "x");
}

TEST(ChunkedDecoder, AcceptsWhitespaceAroundExtensionParts) {
    EXPECT_EQ(decoded("1 ; a = b ; c ;d=\"e\" ;f\r\nx\r\n0\r\n\r\n").payload, "x");
}

TEST(ChunkedDecoder, RejectsEmptyExtensionName) {
    EXPECT_EQ(refusalOf("2;\r\naa\r\n0\r\n\r\n"), HttpError::BadChunkExtension);
    EXPECT_EQ(refusalOf("2;=x\r\naa\r\n0\r\n\r\n"), HttpError::BadChunkExtension);
    EXPECT_EQ(refusalOf("2;a;;b\r\naa\r\n0\r\n\r\n"), HttpError::BadChunkExtension);
}

TEST(ChunkedDecoder, RejectsNonTokenExtensionName) {
    EXPECT_EQ(refusalOf("2;a@b\r\naa\r\n0\r\n\r\n"), HttpError::BadChunkExtension);
    EXPECT_EQ(refusalOf("2;a\x01\r\naa\r\n0\r\n\r\n"), HttpError::BadChunkExtension);
}

TEST(ChunkedDecoder, RejectsMissingExtensionValue) {
    EXPECT_EQ(refusalOf("2;a=\r\naa\r\n0\r\n\r\n"), HttpError::BadChunkExtension);
    EXPECT_EQ(refusalOf("2;a=;b\r\naa\r\n0\r\n\r\n"), HttpError::BadChunkExtension);
}

TEST(ChunkedDecoder, RejectsUnterminatedQuotedValue) {
    EXPECT_EQ(refusalOf("5;ilovew3=\"abc\";somuchlove=\"def; ghi\r\nhello\r\n0\r\n\r\n"), HttpError::BadChunkExtension);
}

TEST(ChunkedDecoder, RejectsControlBytesInQuotedValue) {
    EXPECT_EQ(refusalOf("1;a=\"b\x01\"\r\nx\r\n0\r\n\r\n"), HttpError::BadChunkExtension);
    EXPECT_EQ(refusalOf("1;a=\"b\\\x7f\"\r\nx\r\n0\r\n\r\n"), HttpError::BadChunkExtension);
}

TEST(ChunkedDecoder, RejectsBytesAfterClosingQuote) {
    EXPECT_EQ(refusalOf("1;a=\"b\"c\r\nx\r\n0\r\n\r\n"), HttpError::BadChunkExtension);
}

TEST(ChunkedDecoder, RejectsWhitespaceEndingExtension) {
    EXPECT_EQ(refusalOf("1;a \r\nx\r\n0\r\n\r\n"), HttpError::BadChunkExtension);
    EXPECT_EQ(refusalOf("1;a=b \r\nx\r\n0\r\n\r\n"), HttpError::BadChunkExtension);
    EXPECT_EQ(refusalOf("1;a b\r\nx\r\n0\r\n\r\n"), HttpError::BadChunkExtension);
}

TEST(ChunkedDecoder, AcceptsExtensionsAtLimit) {
    const std::string extension = ";" + std::string(limits::kMaxChunkExtensionBytes - 1, 'e');
    EXPECT_EQ(decoded("1" + extension + "\r\nx\r\n0" + extension + "\r\n\r\n", {.splitStride = 7}).payload, "x");
}

TEST(ChunkedDecoder, RejectsExtensionsOverLimit) {
    const std::string extension = ";" + std::string(limits::kMaxChunkExtensionBytes, 'e');
    EXPECT_EQ(refusalOf("1" + extension + "\r\nx\r\n0\r\n\r\n", {.splitStride = 7}), HttpError::ChunkExtensionTooLong);
    EXPECT_EQ(refusalOf("1" + extension, {.splitStride = 7}), HttpError::ChunkExtensionTooLong);
    const std::string spaced = " " + std::string(limits::kMaxChunkExtensionBytes - 2, ' ') + ";a";
    EXPECT_EQ(refusalOf("1" + spaced + "\r\nx\r\n", {.splitStride = 7}), HttpError::ChunkExtensionTooLong);
}

// ---- Chunk data terminators -----------------------------------------------------------------------------------

TEST(ChunkedDecoder, RejectsDataNotFollowedByCrlf) {
    EXPECT_EQ(refusalOf("5\r\nABCDE0\r\n\r\n"), HttpError::BadChunkTerminator);
    EXPECT_EQ(refusalOf("5\r\nhello\n0\r\n\r\n"), HttpError::BadChunkTerminator);
    EXPECT_EQ(refusalOf("5\r\nhello\rX0\r\n\r\n"), HttpError::BadChunkTerminator);
}

// ---- Trailers ---------------------------------------------------------------------------------------------------

TEST(ChunkedDecoder, AcceptsAndDiscardsTrailerFields) {
    const std::string body = "5\r\nhello\r\n0\r\nVary: *\r\nContent-Type: text/plain\r\nX-Empty:\r\n\r\n";
    const BodySnapshot s = decoded(body + "NEXT");
    EXPECT_EQ(s.payload, "hello");
    EXPECT_EQ(s.consumed, body.size());
}

TEST(ChunkedDecoder, RejectsTrailerWithoutColon) { EXPECT_EQ(refusalOf("0\r\nVary\r\n\r\n"), HttpError::BadTrailer); }

TEST(ChunkedDecoder, RejectsSpaceBeforeColonInTrailer) {
    EXPECT_EQ(refusalOf("0\r\nVary : *\r\n\r\n"), HttpError::BadTrailer);
}

TEST(ChunkedDecoder, RejectsObsFoldInTrailer) {
    EXPECT_EQ(refusalOf("0\r\nA: b\r\n c\r\n\r\n"), HttpError::BadTrailer);
}

TEST(ChunkedDecoder, RejectsControlBytesInTrailer) {
    EXPECT_EQ(refusalOf("0\r\nA: b\x01\r\n\r\n"), HttpError::BadTrailer);
    EXPECT_EQ(refusalOf("0\r\nA: b\0c\r\n\r\n"sv), HttpError::BadTrailer);
    EXPECT_EQ(refusalOf("0\r\n@: b\r\n\r\n"), HttpError::BadTrailer);
}

TEST(ChunkedDecoder, RejectsBareLineEndingsInTrailer) {
    EXPECT_EQ(refusalOf("0\r\nA: b\n\r\n"), HttpError::BareLineEnding);
    EXPECT_EQ(refusalOf("0\r\nA: b\rc\r\n\r\n"), HttpError::BareLineEnding);
    EXPECT_EQ(refusalOf("0\r\n\n"), HttpError::BareLineEnding);
    EXPECT_EQ(refusalOf("0\r\n\rX"), HttpError::BareLineEnding);
}

// A trailer section of exactly `size` bytes, its final CRLF included.
std::string trailerOfSize(std::size_t size) { return "T: " + std::string(size - 7, 't') + "\r\n\r\n"; }

TEST(ChunkedDecoder, AcceptsTrailerSectionAtLimit) {
    const std::string body = "0\r\n" + trailerOfSize(limits::kMaxTrailerSectionBytes);
    EXPECT_EQ(decoded(body, {.splitStride = 11}).consumed, body.size());
}

TEST(ChunkedDecoder, RejectsTrailerSectionOverLimit) {
    const std::string trailer = trailerOfSize(limits::kMaxTrailerSectionBytes + 1);
    EXPECT_EQ(refusalOf("0\r\n" + trailer, {.splitStride = 11}), HttpError::TrailerSectionTooLarge);
    // Incomplete, it is refused as soon as it passes the limit.
    const std::string longer = trailerOfSize(limits::kMaxTrailerSectionBytes + 100);
    EXPECT_EQ(refusalOf("0\r\n" + longer.substr(0, limits::kMaxTrailerSectionBytes + 1), {.splitStride = 11}),
              HttpError::TrailerSectionTooLarge);
}

}  // namespace
}  // namespace loopwire
