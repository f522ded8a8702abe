// Tests of core/http/HttpParser.cpp. Every message goes through Grind (whole, every split, byte by byte, against
// a guard page) unless a test is about one particular way of feeding it.
#include "Grind.h"

#include "base/Limits.h"
#include "http/HttpParser.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace loopwire {
namespace {

using namespace std::string_literals;
using namespace std::string_view_literals;
using test::grindParse;
using test::HeadSnapshot;

constexpr std::string_view kGet = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

HeadSnapshot accepted(std::string_view message, test::GrindOptions options = {}) {
    HeadSnapshot s = grindParse(message, options);
    EXPECT_EQ(s.status, ParseStatus::Complete) << "refused with " << nameOf(s.error);
    return s;
}

// The error a message is refused with, or None when it is not refused.
HttpError refusalOf(std::string_view message, test::GrindOptions options = {}) {
    const HeadSnapshot s = grindParse(message, options);
    return s.status == ParseStatus::Error ? s.error : HttpError::None;
}

ParseStatus statusOf(std::string_view message, test::GrindOptions options = {}) {
    return grindParse(message, options).status;
}

// A request with one extra field line, for the tests of special fields.
std::string withField(std::string_view line, std::string_view version = "HTTP/1.1") {
    return "POST /p "s + std::string(version) + "\r\nHost: x\r\n" + std::string(line) + "\r\n\r\n";
}

// ---- The request line and the basics -------------------------------------------------------------------------

TEST(HttpParser, ParsesTypicalGet) {
    const std::string message =
        "GET /index.html?lang=en HTTP/1.1\r\nHost: example.com\r\nUser-Agent: curl/8.0 (x86_64)\r\n"
        "Accept: */*\r\nAccept-Encoding: gzip, deflate\r\nConnection: keep-alive\r\n\r\n";
    const HeadSnapshot s = accepted(message);
    EXPECT_EQ(s.consumed, message.size());
    EXPECT_EQ(s.method, "GET");
    EXPECT_EQ(s.target, "/index.html?lang=en");
    EXPECT_EQ(s.path, "/index.html");
    EXPECT_EQ(s.query, "lang=en");
    EXPECT_EQ(s.httpMinor, 1u);
    EXPECT_EQ(s.framing, BodyFraming::None);
    EXPECT_EQ(s.contentLength, 0u);
    EXPECT_TRUE(s.keepAlive);
    EXPECT_FALSE(s.expectContinue);
    EXPECT_FALSE(s.upgrade);
    ASSERT_EQ(s.headers.size(), 5u);
    EXPECT_EQ(s.headers[0], (std::pair<std::string, std::string>{"host", "example.com"}));
    EXPECT_EQ(s.headers[1], (std::pair<std::string, std::string>{"user-agent", "curl/8.0 (x86_64)"}));
    EXPECT_EQ(s.headers[3], (std::pair<std::string, std::string>{"accept-encoding", "gzip, deflate"}));
}

TEST(HttpParser, ConsumesOnlyTheHeadWhenBodyBytesFollow) {
    const std::string head = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n";
    const HeadSnapshot s = accepted(head + "hello");
    EXPECT_EQ(s.consumed, head.size());
    EXPECT_EQ(s.framing, BodyFraming::ContentLength);
    EXPECT_EQ(s.contentLength, 5u);
}

TEST(HttpParser, PreservesMethodCase) { EXPECT_EQ(accepted("gEt / HTTP/1.1\r\nHost: x\r\n\r\n").method, "gEt"); }

TEST(HttpParser, AcceptsAnyTokenAsMethod) {
    EXPECT_EQ(accepted("MKCOLA / HTTP/1.1\r\nHost: x\r\n\r\n").method, "MKCOLA");
    EXPECT_EQ(accepted("M-SEARCH * HTTP/1.1\r\nHost: x\r\n\r\n").method, "M-SEARCH");
}

TEST(HttpParser, LowercasesHeaderNamesInPlace) {
    std::string buffer = "GET / HTTP/1.1\r\nHoST: x\r\nX-Custom-HEADER: Value\r\n\r\n";
    HttpParser parser;
    RequestHead head;
    const ParseResult r = parser.parse(buffer.data(), buffer.size(), head);
    ASSERT_EQ(r.status, ParseStatus::Complete);
    EXPECT_EQ(buffer, "GET / HTTP/1.1\r\nhost: x\r\nx-custom-header: Value\r\n\r\n");
    EXPECT_EQ(head.header("x-custom-header"), "Value");
    EXPECT_EQ(head.headers[1].name.data(), buffer.data() + 25);  // zero-copy: a view into the buffer
}

TEST(HttpParser, KeepsValueCase) {
    EXPECT_EQ(accepted("GET / HTTP/1.1\r\nHost: x\r\nX-A: MiXeD\r\n\r\n").header("x-a"), "MiXeD");
}

TEST(HttpParser, ScansSixteenBytesAtATimeWhereTheBuildHasSse2) {
#if defined(__SSE2__)
    EXPECT_TRUE(HttpParser::vectorScanning());
#else
    EXPECT_FALSE(HttpParser::vectorScanning());
#endif
}

// Names and values long enough for the 16-byte scan, with what ends each run at every position of a block: the
// name's colon (with capitals right after it, which must stay as they are), a token character outside
// letters, digits and '-', SP and HTAB at a block's end, obs-text (bytes from 0x80, negative to a signed
// compare) and the refused DEL and controls. Grind compares the vector scan with the portable one on each.
TEST(HttpParser, VectorScanEndsRunsWhereThePortableScanDoes) {
    for (std::size_t length = 1; length <= 40; ++length) {
        const std::string name = std::string(length, 'N') + "-x";
        const std::string lower = std::string(length, 'n') + "-x";
        const std::string value = std::string(length, 'V') + "\x80\xff" + std::string(length % 17, 'w');
        const HeadSnapshot s = accepted("GET / HTTP/1.1\r\nHost: x\r\n" + name + ":CAPS" + value + "\r\n\r\n");
        EXPECT_EQ(s.header(lower), "CAPS" + value) << length;
        EXPECT_EQ(accepted("GET / HTTP/1.1\r\nHost: x\r\nA_" + name + "_B: v\r\n\r\n").header("a_" + lower + "_b"),
                  "v");
        const std::string spaced = std::string(length, 'v') + " \t" + std::string(length, 'w') + "  \t ";
        EXPECT_EQ(accepted("GET / HTTP/1.1\r\nHost: x\r\nA: " + spaced + "\r\n\r\n").header("a"),
                  std::string(length, 'v') + " \t" + std::string(length, 'w'));
        EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\nA: " + std::string(length, 'v') + "\x7f\r\n\r\n"),
                  HttpError::BadHeaderValue);
        EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\nA: " + std::string(length, 'v') + "\x01z\r\n\r\n"),
                  HttpError::BadHeaderValue);
        EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\n" + name + "\x80: v\r\n\r\n"), HttpError::BadHeaderName);
    }
}

TEST(HttpParser, TrimsOwsAroundValues) {
    const HeadSnapshot s = accepted("GET / HTTP/1.1\r\nHost: \t x \t\r\nA:b c\r\nB:   \t \r\nC:\t\td\t e \r\n\r\n");
    EXPECT_EQ(s.header("host"), "x");
    EXPECT_EQ(s.header("a"), "b c");
    EXPECT_EQ(s.header("b"), "");
    EXPECT_EQ(s.header("c"), "d\t e");
}

TEST(HttpParser, TrimsTrailingOwsOfLongValues) {
    const std::string value(40, 'v');
    EXPECT_EQ(accepted("GET / HTTP/1.1\r\nHost: x\r\nA: " + value + "        \r\n\r\n").header("a"), value);
    const std::string spaced = "aaaaaaa bbbbbbb cccccc  ddddddd";
    EXPECT_EQ(accepted("GET / HTTP/1.1\r\nHost: x\r\nA: " + spaced + "  \t  \r\n\r\n").header("a"), spaced);
}

TEST(HttpParser, AcceptsEmptyValue) {
    const HeadSnapshot s = accepted("GET / HTTP/1.1\r\nHost: x\r\nEmpty:\r\n\r\n");
    ASSERT_EQ(s.headers.size(), 2u);
    EXPECT_EQ(s.headers[1].first, "empty");
    EXPECT_EQ(s.headers[1].second, "");
}

TEST(HttpParser, KeepsRepeatedFieldsInOrder) {
    const HeadSnapshot s = accepted("GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\na: 3\r\n\r\n");
    ASSERT_EQ(s.headers.size(), 4u);
    EXPECT_EQ(s.headers[1].second, "1");
    EXPECT_EQ(s.headers[3].first, "a");
    EXPECT_EQ(s.headers[3].second, "3");
}

TEST(HttpParser, HeaderLookupReturnsFirstValueOrEmpty) {
    std::string buffer = "GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nA: 2\r\n\r\n";
    HttpParser parser;
    RequestHead head;
    ASSERT_EQ(parser.parse(buffer.data(), buffer.size(), head).status, ParseStatus::Complete);
    EXPECT_EQ(head.header("a"), "1");
    EXPECT_EQ(head.header("host"), "x");
    EXPECT_TRUE(head.header("missing").empty());
}

TEST(HttpParser, AcceptsObsTextAndHtabInValues) {
    EXPECT_EQ(accepted("GET / HTTP/1.1\r\nHost: x\r\nT: D\xfcsseldorf\r\n\r\n").header("t"), "D\xfcsseldorf");
    EXPECT_EQ(accepted("GET / HTTP/1.1\r\nHost: x\r\nT: \xffv\r\n\r\n").header("t"), "\xffv");
    EXPECT_EQ(accepted("GET / HTTP/1.1\r\nHost: x\r\nT: a\tb\r\n\r\n").header("t"), "a\tb");
}

TEST(HttpParser, SplitsPathAndQuery) {
    const HeadSnapshot s = accepted("GET /a/b?x=1&y=2 HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(s.path, "/a/b");
    EXPECT_EQ(s.query, "x=1&y=2");
}

TEST(HttpParser, QueryStartsAtFirstQuestionMark) {
    const HeadSnapshot s = accepted("GET /test.cgi?foo=bar?baz HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(s.path, "/test.cgi");
    EXPECT_EQ(s.query, "foo=bar?baz");
}

TEST(HttpParser, EmptyQueryAfterTrailingQuestionMark) {
    const HeadSnapshot s = accepted("GET /p? HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(s.path, "/p");
    EXPECT_EQ(s.query, "");
    EXPECT_EQ(s.target, "/p?");
}

TEST(HttpParser, PathIsWholeTargetWithoutQuery) {
    const HeadSnapshot s = accepted("GET /only/a/path HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(s.path, "/only/a/path");
    EXPECT_TRUE(s.query.empty());
}

TEST(HttpParser, AcceptsLongTargetsAndQueries) {
    const std::string path = "/" + std::string(300, 'p');
    const std::string query = std::string(200, 'q') + "?=&";
    const HeadSnapshot s = accepted("GET " + path + "?" + query + " HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(s.path, path);
    EXPECT_EQ(s.query, query);
}

TEST(HttpParser, AcceptsAbsoluteAsteriskAndAuthorityForms) {
    EXPECT_EQ(accepted("GET http://h.example:8080/a?b HTTP/1.1\r\nHost: x\r\n\r\n").path, "http://h.example:8080/a");
    EXPECT_EQ(accepted("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n").target, "*");
    EXPECT_EQ(accepted("CONNECT h.example:443 HTTP/1.1\r\nHost: h.example:443\r\n\r\n").target, "h.example:443");
}

TEST(HttpParser, AcceptsQuotesBackslashesAndFragmentsInTarget) {
    EXPECT_EQ(accepted("GET /with_\"q\"?a=\\\"b\\\"#frag HTTP/1.1\r\nHost: x\r\n\r\n").query, "a=\\\"b\\\"#frag");
    EXPECT_EQ(accepted("GET /t?q=|{}^` HTTP/1.1\r\nHost: x\r\n\r\n").query, "q=|{}^`");
}

TEST(HttpParser, SkipsLeadingEmptyLines) {
    const std::string message = "\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n";
    const HeadSnapshot s = accepted(message);
    EXPECT_EQ(s.consumed, message.size());
    EXPECT_EQ(s.method, "GET");
}

TEST(HttpParser, RejectsBareLfBeforeRequestLine) {
    EXPECT_EQ(refusalOf("\nGET / HTTP/1.1\r\nHost: x\r\n\r\n"), HttpError::BareLineEnding);
    EXPECT_EQ(refusalOf("\r\rGET / HTTP/1.1\r\nHost: x\r\n\r\n"), HttpError::BareLineEnding);
}

TEST(HttpParser, LeadingEmptyLinesCountTowardSectionLimit) {
    std::string message;
    while (message.size() < limits::kMaxHeaderSectionBytes)
        message += "\r\n";
    EXPECT_EQ(statusOf(message, {.splits = false}), ParseStatus::NeedMore);
    EXPECT_EQ(refusalOf(message + "G", {.splitStride = 97}), HttpError::HeaderSectionTooLarge);
}

TEST(HttpParser, WaitsForEveryProperPrefix) {
    for (std::size_t n = 0; n < kGet.size(); ++n) {
        EXPECT_EQ(statusOf(kGet.substr(0, n), {.splits = false, .bytewise = false}), ParseStatus::NeedMore) << n;
    }
}

TEST(HttpParser, ParsesPipelinedHeads) {
    std::string buffer = "GET /a HTTP/1.1\r\nHost: one\r\n\r\nGET /b HTTP/1.1\r\nHost: two\r\n\r\n\r\nPOST";
    HttpParser parser;
    RequestHead head;
    ParseResult r = parser.parse(buffer.data(), buffer.size(), head);
    ASSERT_EQ(r.status, ParseStatus::Complete);
    EXPECT_EQ(head.target, "/a");
    EXPECT_EQ(head.header("host"), "one");
    std::size_t offset = r.consumed;
    r = parser.parse(buffer.data() + offset, buffer.size() - offset, head);
    ASSERT_EQ(r.status, ParseStatus::Complete);
    EXPECT_EQ(head.target, "/b");
    EXPECT_EQ(head.header("host"), "two");
    offset += r.consumed;
    r = parser.parse(buffer.data() + offset, buffer.size() - offset, head);
    EXPECT_EQ(r.status, ParseStatus::NeedMore);
    EXPECT_EQ(accepted(buffer).consumed, 30u);  // every split of the whole stream ends the first head alike
}

TEST(HttpParser, ResumesWhenBufferMoves) {
    const std::string message = "GET /moving HTTP/1.1\r\nHost: x\r\nA: b\r\n\r\n";
    HttpParser parser;
    RequestHead head;
    std::string first = message.substr(0, 20);
    ASSERT_EQ(parser.parse(first.data(), first.size(), head).status, ParseStatus::NeedMore);
    std::string second = first + message.substr(20);  // a different allocation
    const ParseResult r = parser.parse(second.data(), second.size(), head);
    ASSERT_EQ(r.status, ParseStatus::Complete);
    EXPECT_EQ(head.target, "/moving");
    EXPECT_EQ(head.target.data(), second.data() + 4);
    EXPECT_EQ(head.header("a"), "b");
}

TEST(HttpParser, DoesNotRescanValidatedBytes) {
    // Bytes already validated are not read again: a byte changed behind the parser's back is not noticed.
    std::string buffer = "GET / HTTP/1.1\r\nHost: x\r\nA: good\r\n";
    HttpParser parser;
    RequestHead head;
    ASSERT_EQ(parser.parse(buffer.data(), buffer.size(), head).status, ParseStatus::NeedMore);
    buffer[buffer.size() - 4] = '\x01';
    buffer += "\r\n";
    ASSERT_EQ(parser.parse(buffer.data(), buffer.size(), head).status, ParseStatus::Complete);
    EXPECT_EQ(head.header("a"),
              "go\x01"
              "d");
}

TEST(HttpParser, IsReadyForNextRequestAfterError) {
    HttpParser parser;
    RequestHead head;
    std::string bad = "GET / HTTP/1.1\r\nBad Name: x\r\n";
    EXPECT_EQ(parser.parse(bad.data(), bad.size(), head).status, ParseStatus::Error);
    std::string good(kGet);
    EXPECT_EQ(parser.parse(good.data(), good.size(), head).status, ParseStatus::Complete);
}

TEST(HttpParser, ResetForgetsPartialHead) {
    HttpParser parser;
    RequestHead head;
    std::string partial = "DELETE /partial HTTP/1.1\r\nHo";
    EXPECT_EQ(parser.parse(partial.data(), partial.size(), head).status, ParseStatus::NeedMore);
    parser.reset();
    std::string good(kGet);
    ASSERT_EQ(parser.parse(good.data(), good.size(), head).status, ParseStatus::Complete);
    EXPECT_EQ(head.method, "GET");
}

// ---- Request line refusals ----------------------------------------------------------------------------------

TEST(HttpParser, RejectsEmptyMethod) { EXPECT_EQ(refusalOf(" / HTTP/1.1\r\nHost: x\r\n\r\n"), HttpError::BadMethod); }

TEST(HttpParser, RejectsNonTokenByteInMethod) {
    EXPECT_EQ(refusalOf("GE@T / HTTP/1.1\r\n"), HttpError::BadMethod);
    EXPECT_EQ(refusalOf("GET(/ HTTP/1.1\r\n"), HttpError::BadMethod);
    EXPECT_EQ(refusalOf("G\tET / HTTP/1.1\r\n"), HttpError::BadMethod);
    EXPECT_EQ(refusalOf("G\xc3\xa9T / HTTP/1.1\r\n"), HttpError::BadMethod);
}

TEST(HttpParser, AcceptsMethodAtLimit) {
    const std::string method(limits::kMaxMethodBytes, 'M');
    EXPECT_EQ(accepted(method + " / HTTP/1.1\r\nHost: x\r\n\r\n").method, method);
}

TEST(HttpParser, RejectsMethodOverLimit) {
    const std::string method(limits::kMaxMethodBytes + 1, 'M');
    EXPECT_EQ(refusalOf(method + " / HTTP/1.1\r\nHost: x\r\n\r\n"), HttpError::BadMethod);
    EXPECT_EQ(refusalOf(method), HttpError::BadMethod);  // without waiting for the rest of the line
}

TEST(HttpParser, RejectsRequestLineWithOnlyMethod) { EXPECT_EQ(refusalOf("GET\r\n\r\n"), HttpError::BadRequestLine); }

TEST(HttpParser, RejectsEmptyTarget) {
    EXPECT_EQ(refusalOf("GET  / HTTP/1.1\r\nHost: x\r\n\r\n"), HttpError::BadTarget);
    EXPECT_EQ(refusalOf("GET  HTTP/1.1\r\nHost: x\r\n\r\n"), HttpError::BadTarget);
}

TEST(HttpParser, RejectsControlBytesInTarget) {
    EXPECT_EQ(refusalOf("GET /a\x01 HTTP/1.1\r\n"), HttpError::BadTarget);
    EXPECT_EQ(refusalOf("GET /a\tb HTTP/1.1\r\n"), HttpError::BadTarget);
    EXPECT_EQ(refusalOf("GET /a\x7f HTTP/1.1\r\n"), HttpError::BadTarget);
    EXPECT_EQ(refusalOf("GET /a?b\x00 HTTP/1.1\r\n"sv), HttpError::BadTarget);
    EXPECT_EQ(refusalOf("GET /a?b=\x1b HTTP/1.1\r\n"sv), HttpError::BadTarget);
}

TEST(HttpParser, RejectsNonAsciiInTarget) {
    EXPECT_EQ(refusalOf("GET /\xb4\xb6/pope?q=1 HTTP/1.1\r\nHost: x\r\n\r\n"), HttpError::BadTarget);
    EXPECT_EQ(refusalOf("GET /ok?q=\xc3\xa9 HTTP/1.1\r\nHost: x\r\n\r\n"), HttpError::BadTarget);
}

TEST(HttpParser, RejectsSpaceInsideTarget) {
    // The second word is then read as the version, which it is not.
    EXPECT_EQ(refusalOf("GET /foo bar/ HTTP/1.1\r\nHost: x\r\n\r\n"), HttpError::BadRequestLine);
}

TEST(HttpParser, AcceptsTargetAtLimit) {
    const std::string target = "/" + std::string(limits::kMaxRequestTargetBytes - 1, 't');
    EXPECT_EQ(accepted("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n", {.splitStride = 13}).target, target);
}

TEST(HttpParser, RejectsTargetOverLimit) {
    const std::string target = "/" + std::string(limits::kMaxRequestTargetBytes, 't');
    EXPECT_EQ(refusalOf("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n", {.splitStride = 13}),
              HttpError::TargetTooLong);
    EXPECT_EQ(refusalOf("GET " + target, {.splitStride = 13}), HttpError::TargetTooLong);  // incomplete
    EXPECT_EQ(refusalOf("GET /?" + target, {.splitStride = 13}), HttpError::TargetTooLong);
}

TEST(HttpParser, RejectsRequestLineWithoutVersion) {
    EXPECT_EQ(refusalOf("GET /\r\n\r\n"), HttpError::BadRequestLine);
    EXPECT_EQ(refusalOf("GET /\n"), HttpError::BadRequestLine);
}

TEST(HttpParser, AcceptsHttp10AndHttp11) {
    EXPECT_EQ(accepted("GET / HTTP/1.0\r\n\r\n").httpMinor, 0u);
    EXPECT_EQ(accepted(kGet).httpMinor, 1u);
}

TEST(HttpParser, RejectsOtherVersionsAsUnsupported) {
    EXPECT_EQ(refusalOf("GET / HTTP/2.0\r\nHost: x\r\n\r\n"), HttpError::UnsupportedVersion);
    EXPECT_EQ(refusalOf("GET / HTTP/0.9\r\n\r\n"), HttpError::UnsupportedVersion);
    EXPECT_EQ(refusalOf("GET / HTTP/1.2\r\n\r\n"), HttpError::UnsupportedVersion);
    EXPECT_EQ(refusalOf("GET / HTTP/5.6"), HttpError::UnsupportedVersion);  // before the line ends
}

TEST(HttpParser, RejectsMalformedVersion) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.x\r\n\r\n"), HttpError::BadRequestLine);
    EXPECT_EQ(refusalOf("GET / http/1.1\r\n\r\n"), HttpError::BadRequestLine);
    EXPECT_EQ(refusalOf("GET / HTTP/11.1\r\n\r\n"), HttpError::BadRequestLine);
    EXPECT_EQ(refusalOf("GET / HTTP/1.10\r\n\r\n"), HttpError::BadRequestLine);
    EXPECT_EQ(refusalOf("GET / HTTP/1.1 \r\n\r\n"), HttpError::BadRequestLine);
    EXPECT_EQ(refusalOf("GET / ICE/1.0\r\n\r\n"), HttpError::BadRequestLine);
    EXPECT_EQ(refusalOf("GET / RTSP/1.0\r\n\r\n"), HttpError::BadRequestLine);
    EXPECT_EQ(refusalOf("GET / HTTP/1\r\n\r\n"), HttpError::BadRequestLine);
}

TEST(HttpParser, RejectsBareLineEndingsInRequestLine) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\nHost: x\r\n\r\n"), HttpError::BareLineEnding);
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\rHost: x\r\n\r\n"), HttpError::BareLineEnding);
}

// ---- Field line refusals ------------------------------------------------------------------------------------

TEST(HttpParser, RejectsSpaceBeforeColon) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost : x\r\n\r\n"), HttpError::BadHeaderName);
}

TEST(HttpParser, RejectsTabBeforeColon) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost\t: x\r\n\r\n"), HttpError::BadHeaderName);
}

TEST(HttpParser, RejectsEmptyHeaderName) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\n: x\r\n\r\n"), HttpError::BadHeaderName);
}

TEST(HttpParser, RejectsNonTokenByteInHeaderName) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nFo@: x\r\n\r\n"), HttpError::BadHeaderName);
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nFoo\x01test: x\r\n\r\n"), HttpError::BadHeaderName);
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\n\"Foo\": x\r\n\r\n"), HttpError::BadHeaderName);
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nF\xc3\xb6o: x\r\n\r\n"), HttpError::BadHeaderName);
}

TEST(HttpParser, RejectsFieldLineWithoutColon) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n"), HttpError::BadHeaderName);
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nContent\rLength: 3\r\n\r\n"), HttpError::BadHeaderName);
}

TEST(HttpParser, RejectsNulInValue) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\nA: a\0b\r\n\r\n"sv), HttpError::BadHeaderValue);
}

TEST(HttpParser, RejectsControlBytesInValue) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\nA: hello\x0cworld\r\n\r\n"), HttpError::BadHeaderValue);
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\nA: \x0c\r\n\r\n"), HttpError::BadHeaderValue);
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\nA: del\x7f\r\n\r\n"), HttpError::BadHeaderValue);
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\nA: 0123456789abcdef\x1b"
                        "0123456789\r\n\r\n"),
              HttpError::BadHeaderValue);
}

TEST(HttpParser, RejectsObsoleteLineFolding) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\nA: b\r\n c\r\n\r\n"), HttpError::ObsoleteLineFolding);
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\nA: b\r\n\tc\r\n\r\n"), HttpError::ObsoleteLineFolding);
}

TEST(HttpParser, RejectsWhitespaceBeforeFirstField) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\n Host: foo"), HttpError::ObsoleteLineFolding);
}

TEST(HttpParser, RejectsBareCrInFieldLine) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\nFoo: 1\rBar: 2\r\n\r\n"), HttpError::BareLineEnding);
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\nA: keep\ralive\r\n\r\n"), HttpError::BareLineEnding);
}

TEST(HttpParser, RejectsBareLfAfterValue) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\nA: 1\r\n\r\n"), HttpError::BareLineEnding);
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\nA:\n\r\n"), HttpError::BareLineEnding);
}

TEST(HttpParser, RejectsBareLineEndingsOfBlankLine) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\n\n"), HttpError::BareLineEnding);
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: x\r\n\rabc"), HttpError::BareLineEnding);
}

TEST(HttpParser, AcceptsHeaderCountAtLimit) {
    std::string message = "GET / HTTP/1.1\r\nHost: x\r\n";
    for (std::size_t i = 1; i < limits::kMaxHeaderCount; ++i)
        message += "h" + std::to_string(i) + ": v\r\n";
    message += "\r\n";
    EXPECT_EQ(accepted(message, {.splitStride = 7}).headers.size(), limits::kMaxHeaderCount);
}

TEST(HttpParser, RejectsHeaderCountOverLimit) {
    std::string message = "GET / HTTP/1.1\r\nHost: x\r\n";
    for (std::size_t i = 1; i < limits::kMaxHeaderCount; ++i)
        message += "h" + std::to_string(i) + ": v\r\n";
    EXPECT_EQ(refusalOf(message + "one: more\r\n\r\n", {.splitStride = 7}), HttpError::TooManyHeaders);
    EXPECT_EQ(refusalOf(message + "o", {.splitStride = 7}), HttpError::TooManyHeaders);  // as the field starts
}

// A head of exactly `size` bytes, complete or missing its final CRLF.
std::string headOfSize(std::size_t size, bool complete) {
    const std::string start = "GET / HTTP/1.1\r\nHost: x\r\nPad: ";
    const std::string end = complete ? "\r\n\r\n" : "\r\n";
    return start + std::string(size - start.size() - end.size(), 'p') + end;
}

TEST(HttpParser, AcceptsHeadAtSectionLimit) {
    const std::string message = headOfSize(limits::kMaxHeaderSectionBytes, true);
    EXPECT_EQ(accepted(message, {.splitStride = 61}).consumed, limits::kMaxHeaderSectionBytes);
}

TEST(HttpParser, RejectsHeadOverSectionLimit) {
    const std::string message = headOfSize(limits::kMaxHeaderSectionBytes + 1, true);
    EXPECT_EQ(refusalOf(message, {.splitStride = 61}), HttpError::HeaderSectionTooLarge);
}

TEST(HttpParser, RejectsIncompleteHeadOverSectionLimit) {
    const std::string atLimit = headOfSize(limits::kMaxHeaderSectionBytes, false);
    EXPECT_EQ(statusOf(atLimit, {.splitStride = 61}), ParseStatus::NeedMore);
    EXPECT_EQ(refusalOf(atLimit + "X", {.splitStride = 61}), HttpError::HeaderSectionTooLarge);
}

TEST(HttpParser, ReportsErrorBeforeSectionLimitFirst) {
    std::string message = "GET / HTTP/1.1\r\nBad Name: x\r\n";
    message += std::string(limits::kMaxHeaderSectionBytes, 'x');
    EXPECT_EQ(refusalOf(message, {.splits = false, .bytewise = false}), HttpError::BadHeaderName);
}

// ---- Host -----------------------------------------------------------------------------------------------------

TEST(HttpParser, RejectsHttp11WithoutHost) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n"), HttpError::MissingHost);
}

TEST(HttpParser, AcceptsHttp10WithoutHost) {
    EXPECT_EQ(accepted("GET / HTTP/1.0\r\nAccept: */*\r\n\r\n").httpMinor, 0u);
}

TEST(HttpParser, AcceptsEmptyHost) { EXPECT_EQ(accepted("GET / HTTP/1.1\r\nHost:\r\n\r\n").header("host"), ""); }

TEST(HttpParser, RejectsRepeatedHost) {
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n"), HttpError::RepeatedHost);
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: a\r\nHOST: b\r\n"), HttpError::RepeatedHost);  // incomplete
    EXPECT_EQ(refusalOf("GET / HTTP/1.1\r\nHost: a\r\nhost:"), HttpError::RepeatedHost);        // at its colon
}

// ---- Content-Length -------------------------------------------------------------------------------------------

TEST(HttpParser, ParsesContentLength) {
    const HeadSnapshot s = accepted(withField("Content-Length: 42"));
    EXPECT_EQ(s.framing, BodyFraming::ContentLength);
    EXPECT_EQ(s.contentLength, 42u);
}

TEST(HttpParser, ContentLengthZeroMeansNoBody) {
    const HeadSnapshot s = accepted(withField("Content-Length: 0"));
    EXPECT_EQ(s.framing, BodyFraming::None);
    EXPECT_EQ(s.contentLength, 0u);
}

TEST(HttpParser, AcceptsContentLengthWithLeadingZerosAndOws) {
    EXPECT_EQ(accepted(withField("Content-Length: 003")).contentLength, 3u);
    EXPECT_EQ(accepted(withField("conTENT-Length:\t42\t  ")).contentLength, 42u);
}

TEST(HttpParser, AcceptsLargestContentLength) {
    EXPECT_EQ(accepted(withField("Content-Length: 9223372036854775807")).contentLength, 9223372036854775807u);
}

TEST(HttpParser, RejectsContentLengthOverflow) {
    EXPECT_EQ(refusalOf(withField("Content-Length: 9223372036854775808")), HttpError::BadContentLength);
    EXPECT_EQ(refusalOf("PUT /url HTTP/1.1\r\nContent-Length: 1000000000000000000000\r\n"),
              HttpError::BadContentLength);
}

TEST(HttpParser, RejectsMalformedContentLength) {
    for (const char* value : {"4 2", "13 37", "+5", "-1", "0x10", "5,5", "5, 5", "1e3", "five", "\xd9\xa3"}) {
        EXPECT_EQ(refusalOf(withField("Content-Length: "s + value)), HttpError::BadContentLength) << value;
    }
}

TEST(HttpParser, RejectsMalformedContentLengthAtOffendingByte) {
    // Refused before the line, let alone the head, is complete.
    EXPECT_EQ(refusalOf("PUT / HTTP/1.1\r\nContent-Length: 4 2"), HttpError::BadContentLength);
    EXPECT_EQ(refusalOf("PUT / HTTP/1.1\r\nContent-Length: x"), HttpError::BadContentLength);
    EXPECT_EQ(refusalOf("PUT / HTTP/1.1\r\nContent-Length: 92233720368547758070"), HttpError::BadContentLength);
    EXPECT_EQ(refusalOf("PUT / HTTP/1.1\r\nContent-Length: 5\x01"), HttpError::BadContentLength);
}

TEST(HttpParser, RejectsEmptyContentLength) {
    EXPECT_EQ(refusalOf(withField("Content-Length:")), HttpError::BadContentLength);
    EXPECT_EQ(refusalOf(withField("Content-Length:   ")), HttpError::BadContentLength);
}

TEST(HttpParser, AcceptsIdenticalRepeatedContentLength) {
    const HeadSnapshot s = accepted(withField("Content-Length: 7\r\nContent-Length: 007"));
    EXPECT_EQ(s.framing, BodyFraming::ContentLength);
    EXPECT_EQ(s.contentLength, 7u);
}

TEST(HttpParser, RejectsDifferingContentLengths) {
    EXPECT_EQ(refusalOf(withField("Content-Length: 1\r\nContent-Length: 2")), HttpError::BadContentLength);
    EXPECT_EQ(refusalOf("PUT /url HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n"),
              HttpError::BadContentLength);  // before the head is complete
}

TEST(HttpParser, RejectsContentLengthWithTransferEncoding) {
    EXPECT_EQ(refusalOf(withField("Content-Length: 5\r\nTransfer-Encoding: chunked")),
              HttpError::ContentLengthWithChunked);
    EXPECT_EQ(refusalOf(withField("Transfer-Encoding: chunked\r\nContent-Length: 5")),
              HttpError::ContentLengthWithChunked);
    EXPECT_EQ(refusalOf(withField("Content-Length: 1\r\nTransfer-Encoding: identity")),
              HttpError::ContentLengthWithChunked);
    EXPECT_EQ(refusalOf(withField("Content-Length: 1\r\nTransfer-Encoding:")), HttpError::ContentLengthWithChunked);
    // At the colon of the second field, before its value.
    EXPECT_EQ(refusalOf("POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding:"),
              HttpError::ContentLengthWithChunked);
    EXPECT_EQ(refusalOf("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length:"),
              HttpError::ContentLengthWithChunked);
}

// ---- Transfer-Encoding ----------------------------------------------------------------------------------------

TEST(HttpParser, ParsesChunkedFraming) {
    const HeadSnapshot s = accepted(withField("Transfer-Encoding: chunked"));
    EXPECT_EQ(s.framing, BodyFraming::Chunked);
    EXPECT_EQ(s.contentLength, 0u);
}

TEST(HttpParser, AcceptsChunkedInAnyCase) {
    EXPECT_EQ(accepted(withField("Transfer-Encoding: ChUnKeD")).framing, BodyFraming::Chunked);
}

TEST(HttpParser, AcceptsChunkedAsFinalCoding) {
    EXPECT_EQ(accepted(withField("Transfer-Encoding: gzip, chunked")).framing, BodyFraming::Chunked);
    EXPECT_EQ(accepted(withField("Transfer-Encoding: deflate\r\nTransfer-Encoding: chunked")).framing,
              BodyFraming::Chunked);
    EXPECT_EQ(accepted(withField("Transfer-Encoding: gzip ,, chunked ,")).framing, BodyFraming::Chunked);
}

TEST(HttpParser, RejectsFinalCodingOtherThanChunked) {
    EXPECT_EQ(refusalOf(withField("Transfer-Encoding: pigeons")), HttpError::BadTransferEncoding);
    EXPECT_EQ(refusalOf(withField("Transfer-Encoding: identity")), HttpError::BadTransferEncoding);
    EXPECT_EQ(refusalOf(withField("Transfer-Encoding: chunkedchunked")), HttpError::BadTransferEncoding);
    EXPECT_EQ(refusalOf(withField("Transfer-Encoding:")), HttpError::BadTransferEncoding);
}

TEST(HttpParser, RejectsCodingAfterChunked) {
    EXPECT_EQ(refusalOf(withField("Transfer-Encoding: chunked, deflate")), HttpError::BadTransferEncoding);
    EXPECT_EQ(refusalOf(withField("Transfer-Encoding: chunked\r\nTransfer-Encoding: deflate")),
              HttpError::BadTransferEncoding);
    // Refused as soon as the field line ends.
    EXPECT_EQ(refusalOf("POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n"), HttpError::BadTransferEncoding);
}

TEST(HttpParser, RejectsChunkedTwice) {
    EXPECT_EQ(refusalOf(withField("Transfer-Encoding: chunked, chunked")), HttpError::BadTransferEncoding);
    EXPECT_EQ(refusalOf(withField("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked")),
              HttpError::BadTransferEncoding);
}

TEST(HttpParser, RejectsMalformedCoding) {
    EXPECT_EQ(refusalOf(withField("Transfer-Encoding: chu@nked")), HttpError::BadTransferEncoding);
    EXPECT_EQ(refusalOf(withField("Transfer-Encoding: gzip chunked")), HttpError::BadTransferEncoding);
    EXPECT_EQ(refusalOf(withField("Transfer-Encoding: ;chunked")), HttpError::BadTransferEncoding);
}

TEST(HttpParser, RejectsTransferEncodingInHttp10) {
    EXPECT_EQ(refusalOf(withField("Transfer-Encoding: chunked", "HTTP/1.0")), HttpError::BadTransferEncoding);
    EXPECT_EQ(refusalOf("POST / HTTP/1.0\r\nTransfer-Encoding:"), HttpError::BadTransferEncoding);
}

// ---- Connection, Expect, Upgrade -------------------------------------------------------------------------------

TEST(HttpParser, Http11KeepsAliveByDefault) { EXPECT_TRUE(accepted(kGet).keepAlive); }

TEST(HttpParser, Http11ClosesWithCloseToken) {
    EXPECT_FALSE(accepted(withField("Connection: close")).keepAlive);
    EXPECT_FALSE(accepted(withField("Connection: close\t")).keepAlive);
    EXPECT_FALSE(accepted(withField("Connection: foo, CLOSE")).keepAlive);
}

TEST(HttpParser, Http10ClosesByDefault) { EXPECT_FALSE(accepted("GET / HTTP/1.0\r\n\r\n").keepAlive); }

TEST(HttpParser, Http10KeepsAliveWithKeepAliveToken) {
    EXPECT_TRUE(accepted(withField("Connection: Keep-Alive", "HTTP/1.0")).keepAlive);
    EXPECT_FALSE(accepted(withField("Connection: keep-alive, close", "HTTP/1.0")).keepAlive);
}

TEST(HttpParser, CloseWinsOverKeepAlive) {
    EXPECT_FALSE(accepted(withField("Connection: close, token, upgrade, token, keep-alive")).keepAlive);
    EXPECT_FALSE(accepted(withField("Connection: keep-alive\r\nConnection: close")).keepAlive);
}

TEST(HttpParser, MatchesWholeConnectionTokensOnly) {
    EXPECT_TRUE(accepted(withField("Connection: closed")).keepAlive);
    EXPECT_TRUE(accepted(withField("Connection: close-ish, notclose")).keepAlive);
    EXPECT_FALSE(accepted(withField("Connection: keep-alive-ish", "HTTP/1.0")).keepAlive);
}

TEST(HttpParser, SetsExpectContinue) {
    EXPECT_TRUE(accepted(withField("Expect: 100-continue")).expectContinue);
    EXPECT_TRUE(accepted(withField("Expect: 100-Continue")).expectContinue);
    EXPECT_FALSE(accepted(withField("Expect: 200-ok")).expectContinue);
    EXPECT_FALSE(accepted(kGet).expectContinue);
}

TEST(HttpParser, IgnoresExpectInHttp10) {
    EXPECT_FALSE(accepted(withField("Expect: 100-continue", "HTTP/1.0")).expectContinue);
}

TEST(HttpParser, SetsUpgradeWithUpgradeFieldAndConnectionToken) {
    EXPECT_TRUE(accepted(withField("Connection: Upgrade\r\nUpgrade: websocket")).upgrade);
    EXPECT_TRUE(accepted(withField("Upgrade: websocket\r\nConnection: keep-alive, UPGRADE")).upgrade);
}

TEST(HttpParser, NeedsBothUpgradeFieldAndToken) {
    EXPECT_FALSE(accepted(withField("Upgrade: websocket")).upgrade);
    EXPECT_FALSE(accepted(withField("Connection: upgrade")).upgrade);
    EXPECT_FALSE(accepted(withField("Connection: upgrade\r\nUpgrade:")).upgrade);
}

TEST(HttpParser, IgnoresUpgradeInHttp10) {
    EXPECT_FALSE(accepted(withField("Connection: upgrade\r\nUpgrade: websocket", "HTTP/1.0")).upgrade);
}

TEST(HttpParser, SetsUpgradeForConnect) {
    EXPECT_TRUE(accepted("CONNECT h.example:443 HTTP/1.1\r\nHost: h.example:443\r\n\r\n").upgrade);
    EXPECT_TRUE(accepted("CONNECT h.example:443 HTTP/1.0\r\n\r\n").upgrade);
    EXPECT_FALSE(accepted("connect h.example:443 HTTP/1.1\r\nHost: x\r\n\r\n").upgrade);  // case-sensitive
    EXPECT_FALSE(accepted("CONNECTX h.example:443 HTTP/1.1\r\nHost: x\r\n\r\n").upgrade);
}

}  // namespace
}  // namespace loopwire
