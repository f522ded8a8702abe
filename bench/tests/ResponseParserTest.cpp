#include "ResponseParser.h"

#include "GuardedBytes.h"
#include "LoadLimits.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace loopwire::lwload {
namespace {

struct Parsed {
    int status;
    bool keepAlive;
    std::uint64_t body;
    bool operator==(const Parsed&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Parsed& p) {
    return os << "{" << p.status << ", keepAlive=" << p.keepAlive << ", body=" << p.body << "}";
}

struct Outcome {
    std::vector<Parsed> responses;
    ResponseError error = ResponseError::None;
};

// Feeds the pieces in order, each in its own guarded buffer, the way a connection feeds its reads.
Outcome feedPieces(const std::vector<std::string>& pieces, bool eof, bool head = false) {
    Outcome out;
    ResponseParser parser;
    parser.setHeadRequest(head);
    for (const std::string& piece : pieces) {
        test::GuardedBytes guarded(piece);
        std::string_view input = guarded.view();
        while (!input.empty()) {
            const ResponseResult r = parser.feed(input);
            if (r.status == ResponseStatus::Error) {
                out.error = r.error;
                return out;
            }
            EXPECT_LE(r.consumed, input.size());
            input.remove_prefix(r.consumed);
            if (r.status == ResponseStatus::NeedMore) {
                EXPECT_TRUE(input.empty());
                break;
            }
            out.responses.push_back({parser.statusCode(), parser.keepAlive(), parser.bodyBytes()});
            parser.reset();
        }
    }
    if (eof) {
        const ResponseResult r = parser.finish();
        if (r.status == ResponseStatus::Complete) {
            out.responses.push_back({parser.statusCode(), parser.keepAlive(), parser.bodyBytes()});
        } else if (r.status == ResponseStatus::Error) {
            out.error = r.error;
        }
    }
    return out;
}

// Parses input whole, split in two at every byte boundary, and one byte at a time; every way must agree.
void grind(const std::string& input, const std::vector<Parsed>& expected, ResponseError error = ResponseError::None,
           bool eof = false, bool head = false) {
    auto check = [&](const std::vector<std::string>& pieces, const std::string& how) {
        const Outcome out = feedPieces(pieces, eof, head);
        EXPECT_EQ(out.error, error) << how << ": " << responseErrorName(out.error);
        EXPECT_EQ(out.responses, expected) << how;
    };
    check({input}, "whole");
    for (std::size_t split = 1; split < input.size(); ++split) {
        check({input.substr(0, split), input.substr(split)}, "split at " + std::to_string(split));
    }
    std::vector<std::string> bytes;
    for (char c : input)
        bytes.emplace_back(1, c);
    check(bytes, "byte by byte");
}

TEST(ResponseParser, ContentLengthResponse) {
    grind("HTTP/1.1 200 OK\r\nContent-Length: 12\r\nContent-Type: text/plain\r\n\r\nHello world!", {{200, true, 12}});
}

TEST(ResponseParser, ChunkedResponseWithExtensionsAndTrailers) {
    grind(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        "5;name=value\r\nHello\r\n7 ; x\r\n, world\r\n00\r\nX-Trailer: yes\r\n\r\n",
        {{200, true, 12}});
}

TEST(ResponseParser, ChunkedCodingIsCaseInsensitiveAndMayFollowOthers) {
    grind("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, CHUNKED\r\n\r\n3\r\nabc\r\n0\r\n\r\n", {{200, true, 3}});
}

TEST(ResponseParser, PipelinedResponsesKeepTheirStatusCodes) {
    grind(
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n9\r\nnot found\r\n0\r\n\r\n"
        "HTTP/1.1 204 No Content\r\nContent-Length: 50\r\n\r\n"
        "HTTP/1.1 304 Not Modified\r\nContent-Length: 7\r\n\r\n"
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n"
        "HTTP/1.1 201 Created\r\ncontent-length: 1\r\n\r\nx",
        {{200, true, 2}, {404, true, 9}, {204, true, 0}, {304, true, 0}, {503, true, 0}, {201, true, 1}});
}

TEST(ResponseParser, ConnectionHeaderDecidesKeepAlive) {
    grind("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", {{200, false, 0}});
    grind("HTTP/1.1 200 OK\r\nConnection: Keep-Alive, Close\r\nContent-Length: 0\r\n\r\n", {{200, false, 0}});
    grind("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", {{200, false, 0}});
    grind("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", {{200, true, 0}});
}

TEST(ResponseParser, StatusLineWithoutReasonIsAccepted) {
    grind("HTTP/1.1 200 \r\nContent-Length: 1\r\n\r\nx", {{200, true, 1}});
    grind("HTTP/1.1 500\r\nContent-Length: 1\r\n\r\nx", {{500, true, 1}});
}

TEST(ResponseParser, BodyUntilCloseCompletesAtEndOfConnection) {
    grind("HTTP/1.1 200 OK\r\nServer: x\r\n\r\nabcdef", {{200, false, 6}}, ResponseError::None, true);
    grind("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nabc", {{200, false, 3}}, ResponseError::None, true);
}

TEST(ResponseParser, HeadResponsesHaveNoBody) {
    grind("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
          {{200, true, 0}, {200, true, 0}}, ResponseError::None, false, true);
}

TEST(ResponseParser, CleanCloseBetweenResponsesIsNotAnError) {
    ResponseParser parser;
    EXPECT_TRUE(parser.idle());
    EXPECT_EQ(parser.finish().status, ResponseStatus::NeedMore);
}

TEST(ResponseParser, TruncatedResponseIsAnErrorAtEndOfConnection) {
    grind("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", {}, ResponseError::Truncated, true);
    grind("HTTP/1.1 200 OK\r\nContent-Le", {}, ResponseError::Truncated, true);
    grind("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", {}, ResponseError::Truncated, true);
}

TEST(ResponseParser, RejectsBareLineFeed) {
    grind("HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", {}, ResponseError::BadLineEnding);
    grind("HTTP/1.1 200 OK\r\nContent-Length: 0\n\r\n", {}, ResponseError::BadLineEnding);
}

TEST(ResponseParser, RejectsMalformedStatusLines) {
    for (const char* line : {"HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n",
                             "HTTP/1.2 200 OK\r\n\r\n", "http/1.1 200 OK\r\n\r\n", "HTTP/1.1 099 OK\r\n\r\n",
                             "HTTP/1.1 200 O\x01K\r\n\r\n", " HTTP/1.1 200 OK\r\n\r\n", "\r\n"}) {
        grind(line, {}, ResponseError::BadStatusLine);
    }
}

TEST(ResponseParser, RejectsMalformedHeaderFields) {
    grind("HTTP/1.1 200 OK\r\nContent-Length : 1\r\n\r\nx", {}, ResponseError::BadHeader);
    grind("HTTP/1.1 200 OK\r\nNo colon\r\n\r\n", {}, ResponseError::BadHeader);
    grind("HTTP/1.1 200 OK\r\n: empty name\r\n\r\n", {}, ResponseError::BadHeader);
    grind("HTTP/1.1 200 OK\r\nX: a\r\n folded\r\n\r\n", {}, ResponseError::BadHeader);
    grind("HTTP/1.1 200 OK\r\nX: a\x7f\r\n\r\n", {}, ResponseError::BadHeader);
}

TEST(ResponseParser, RejectsBadContentLength) {
    grind("HTTP/1.1 200 OK\r\nContent-Length: 5a\r\n\r\n", {}, ResponseError::BadContentLength);
    grind("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", {}, ResponseError::BadContentLength);
    grind("HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n", {}, ResponseError::BadContentLength);
    grind("HTTP/1.1 200 OK\r\nContent-Length: 1234567890123456789\r\n\r\n", {}, ResponseError::BadContentLength);
    grind("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", {}, ResponseError::BadContentLength);
    grind("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", {{200, true, 1}});
}

TEST(ResponseParser, RejectsAmbiguousFraming) {
    grind("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", {},
          ResponseError::ConflictingFraming);
    grind("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", {}, ResponseError::BadTransferEncoding);
    grind("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", {},
          ResponseError::BadTransferEncoding);
}

TEST(ResponseParser, RejectsBadChunks) {
    const std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    grind(head + "zz\r\n", {}, ResponseError::BadChunkSize);
    grind(head + "\r\n", {}, ResponseError::BadChunkSize);
    grind(head + "5 x\r\n", {}, ResponseError::BadChunkSize);
    grind(head + "00000000000000001\r\n", {}, ResponseError::BadChunkSize);
    grind(head + "8000000000000000\r\n", {}, ResponseError::BadChunkSize);
    // Chunk data longer than its size is caught at the first extra byte, without waiting for a line end.
    grind(head + "5\r\nHelloX", {}, ResponseError::BadChunkEnd);
    grind(head + "5\r\nHello\rX", {}, ResponseError::BadChunkEnd);
    grind(head + "0\r\nbad trailer\r\n\r\n", {}, ResponseError::BadHeader);
}

TEST(ResponseParser, RejectsUpgradeToAPlainRequest) {
    grind("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", {}, ResponseError::UnexpectedUpgrade);
}

TEST(ResponseParser, LimitsInterimResponses) {
    std::string input;
    for (std::size_t i = 0; i <= limits::kMaxInterimResponses; ++i)
        input += "HTTP/1.1 100 Continue\r\n\r\n";
    EXPECT_EQ(feedPieces({input}, false).error, ResponseError::TooManyInterim);
}

TEST(ResponseParser, LimitsLineLength) {
    const std::string longValue(limits::kMaxLineBytes, 'a');
    const std::string atLimit = "HTTP/1.1 200 OK\r\nX: " + longValue.substr(3) + "\r\nContent-Length: 0\r\n\r\n";
    EXPECT_EQ(feedPieces({atLimit}, false).responses.size(), 1u);
    const std::string over = "HTTP/1.1 200 OK\r\nX: " + longValue.substr(2) + "\r\nContent-Length: 0\r\n\r\n";
    EXPECT_EQ(feedPieces({over}, false).error, ResponseError::LineTooLong);
    // Split lines are refused as soon as they pass the limit, before their end arrives.
    const std::string unterminated = "HTTP/1.1 200 OK\r\nX: " + longValue;
    EXPECT_EQ(feedPieces({unterminated.substr(0, 100), unterminated.substr(100)}, false).error,
              ResponseError::LineTooLong);
    EXPECT_EQ(feedPieces({unterminated}, false).error, ResponseError::LineTooLong);
}

TEST(ResponseParser, LimitsHeaderCountAndHeadSize) {
    std::string many = "HTTP/1.1 200 OK\r\n";
    for (std::size_t i = 0; i <= limits::kMaxHeaderCount; ++i)
        many += "X: y\r\n";
    EXPECT_EQ(feedPieces({many + "\r\n"}, false).error, ResponseError::TooManyHeaders);

    std::string large = "HTTP/1.1 200 OK\r\n";
    const std::string field = "X: " + std::string(limits::kMaxHeadBytes / 16, 'v') + "\r\n";
    while (large.size() <= limits::kMaxHeadBytes)
        large += field;
    EXPECT_EQ(feedPieces({large + "\r\n"}, false).error, ResponseError::HeadTooLarge);
}

TEST(ResponseParser, StaysInErrorUntilReset) {
    ResponseParser parser;
    EXPECT_EQ(parser.feed("HTTP/9").status, ResponseStatus::NeedMore);
    EXPECT_EQ(parser.feed(".9 200 OK\r\n").status, ResponseStatus::Error);
    EXPECT_EQ(parser.feed("HTTP/1.1 200 OK\r\n\r\n").status, ResponseStatus::Error);
    parser.reset();
    const ResponseResult r = parser.feed("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    EXPECT_EQ(r.status, ResponseStatus::Complete);
}

}  // namespace
}  // namespace loopwire::lwload
