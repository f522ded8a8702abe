// Replays the 166 llhttp request cases of shared/conformance/http1-requests.jsonl through the parser and the body
// framing, as a connection would read them: whole, split at every byte boundary, and one byte at a time.
//
// Each case's verdict must be llhttp's strict verdict, except for the cases in kDeviations, where loopwire
// deliberately decides otherwise; those are asserted to give loopwire's verdict, not skipped. The same table, with
// the reasons, is in docs/decisions/http-parser.md.
#include "ConformanceCases.h"
#include "ConformanceDeviations.h"
#include "Grind.h"

#include "http/ChunkedDecoder.h"
#include "http/HttpParser.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace loopwire {
namespace {

using test::ConformanceCase;
using test::Deviation;
using test::deviationFor;
using test::kDeviations;

// A connection's reading side without the sockets: heads through HttpParser, bodies by Content-Length or through
// ChunkedDecoder, pipelined requests one after another, until a refusal, an upgrade or a close.
class ReplayConnection {
public:
    void feed(std::string_view bytes) {
        buffer_.append(bytes);
        process();
    }

    // The verdict in the vocabulary of the conformance file.
    std::string verdict() const {
        switch (stage_) {
            case Stage::Failed:
                return "reject";
            case Stage::Upgraded:
                return "upgrade";
            case Stage::Closed:
                return buffer_.size() > messageEnd_ ? "close-after" : "accept";
            default:
                return messages_ > 0 ? "accept" : "wait";
        }
    }
    int messages() const { return messages_; }
    HttpError error() const { return error_; }

private:
    enum class Stage { Head, FixedBody, ChunkedBody, Upgraded, Closed, Failed };

    void process() {
        for (;;) {
            switch (stage_) {
                case Stage::Head: {
                    const ParseResult r = parser_.parse(buffer_.data() + start_, buffer_.size() - start_, *head_);
                    if (r.status == ParseStatus::NeedMore) return;
                    if (r.status == ParseStatus::Error) {
                        error_ = r.error;
                        stage_ = Stage::Failed;
                        return;
                    }
                    start_ += r.consumed;
                    keepAlive_ = head_->keepAlive;
                    if (head_->upgrade) {
                        ++messages_;
                        stage_ = Stage::Upgraded;
                        return;
                    }
                    if (head_->framing == BodyFraming::ContentLength) {
                        remaining_ = head_->contentLength;
                        stage_ = Stage::FixedBody;
                    } else if (head_->framing == BodyFraming::Chunked) {
                        decoder_.reset();
                        stage_ = Stage::ChunkedBody;
                    } else {
                        finishMessage();
                    }
                    break;
                }
                case Stage::FixedBody: {
                    const std::size_t available = buffer_.size() - start_;
                    const std::size_t n = remaining_ < available ? static_cast<std::size_t>(remaining_) : available;
                    start_ += n;
                    remaining_ -= n;
                    if (remaining_ != 0) return;
                    finishMessage();
                    break;
                }
                case Stage::ChunkedBody: {
                    const ChunkedResult r = decoder_.decode(std::string_view(buffer_).substr(start_));
                    start_ += r.consumed;
                    if (r.status == ParseStatus::Error) {
                        error_ = r.error;
                        stage_ = Stage::Failed;
                        return;
                    }
                    if (r.status == ParseStatus::Complete) {
                        finishMessage();
                    } else if (start_ == buffer_.size()) {
                        return;
                    }
                    break;
                }
                default:
                    return;
            }
        }
    }

    void finishMessage() {
        ++messages_;
        messageEnd_ = start_;
        stage_ = keepAlive_ ? Stage::Head : Stage::Closed;
    }

    std::string buffer_;  // everything received; parse() leaves its lowercased names in it, as a connection would
    std::size_t start_ = 0;
    std::size_t messageEnd_ = 0;
    Stage stage_ = Stage::Head;
    HttpParser parser_;
    std::unique_ptr<RequestHead> head_ = std::make_unique<RequestHead>();
    ChunkedDecoder decoder_;
    std::uint64_t remaining_ = 0;
    bool keepAlive_ = true;
    int messages_ = 0;
    HttpError error_ = HttpError::None;
};

struct Outcome {
    std::string verdict;
    int messages = 0;
    HttpError error = HttpError::None;
    bool operator==(const Outcome&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Outcome& o) {
    os << o.verdict << " after " << o.messages << " message(s)";
    if (o.error != HttpError::None) os << " (" << nameOf(o.error) << ")";
    return os;
}

// Feeds the bytes in calls that end at the given offsets.
Outcome replay(std::string_view bytes, const std::vector<std::size_t>& ends) {
    ReplayConnection connection;
    std::size_t fed = 0;
    for (const std::size_t end : ends) {
        connection.feed(bytes.substr(fed, end - fed));
        fed = end;
    }
    return {connection.verdict(), connection.messages(), connection.error()};
}

const std::vector<ConformanceCase>& allCases() {
    static const std::vector<ConformanceCase> cases = test::loadConformanceCases();
    return cases;
}

TEST(HttpConformance, LoadsAll166Cases) {
    const auto& cases = allCases();
    ASSERT_EQ(cases.size(), 166u) << "cannot read " LW_CONFORMANCE_DIR "/http1-requests.jsonl";
    std::set<int> ids;
    for (const ConformanceCase& c : cases) {
        EXPECT_GT(c.id, 0) << "a line that could not be parsed";
        EXPECT_FALSE(c.raw.empty()) << c.id;
        EXPECT_TRUE(c.expect == "accept" || c.expect == "reject" || c.expect == "wait" || c.expect == "upgrade" ||
                    c.expect == "close-after")
            << c.id << ": " << c.expect;
        ids.insert(c.id);
    }
    EXPECT_EQ(ids.size(), 166u);
}

TEST(HttpConformance, EveryDeviationNamesARealCaseAndDiffers) {
    for (const Deviation& d : kDeviations) {
        bool found = false;
        for (const ConformanceCase& c : allCases()) {
            if (c.id != d.id) continue;
            found = true;
            EXPECT_FALSE(c.expect == d.expect && c.messages == d.messages) << "case " << d.id << " is no deviation";
        }
        EXPECT_TRUE(found) << "no case " << d.id;
        EXPECT_STRNE(d.reason, "") << d.id;
    }
}

TEST(HttpConformance, InsertsHostOnlyWhereMissing) {
    EXPECT_EQ(test::withHostWhereMissing("GET / HTTP/1.1\r\n\r\n"), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(test::withHostWhereMissing("GET / HTTP/1.1\r\nHOST: a\r\n\r\n"), "GET / HTTP/1.1\r\nHOST: a\r\n\r\n");
    EXPECT_EQ(test::withHostWhereMissing("GET / HTTP/1.0\r\n\r\n"), "GET / HTTP/1.0\r\n\r\n");
    EXPECT_EQ(test::withHostWhereMissing("GET /a HTTP/1.1\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 1\r\n\r\nx"),
              "GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx");
    // A request line inside a body is not a request.
    EXPECT_EQ(test::withHostWhereMissing("PUT / HTTP/1.0\r\nContent-Length: 16\r\n\r\nGET / HTTP/1.1\r\n"),
              "PUT / HTTP/1.0\r\nContent-Length: 16\r\n\r\nGET / HTTP/1.1\r\n");
}

class HttpConformanceCase : public testing::TestWithParam<ConformanceCase> {};

TEST_P(HttpConformanceCase, MatchesExpectedVerdict) {
    const ConformanceCase& c = GetParam();
    SCOPED_TRACE("case " + std::to_string(c.id) + " (" + c.source + "): " + c.name);
    const std::string bytes = test::withHostWhereMissing(c.raw);

    const Outcome whole = replay(bytes, {bytes.size()});
    const Deviation* deviation = deviationFor(c.id);
    const std::string expect = deviation ? deviation->expect : c.expect;
    const int messages = deviation ? deviation->messages : c.messages;
    EXPECT_EQ(whole.verdict, expect) << "got " << whole << "; llhttp: " << c.expect << " after " << c.messages;
    EXPECT_EQ(whole.messages, messages) << "got " << whole;
    if (deviation) {
        EXPECT_EQ(whole.error, deviation->error) << "got " << whole;
    }

    for (std::size_t cut = 1; cut < bytes.size(); ++cut) {
        const Outcome split = replay(bytes, {cut, bytes.size()});
        if (split != whole) {
            ADD_FAILURE() << "split at " << cut << ": " << split << " but whole: " << whole;
            break;
        }
    }
    std::vector<std::size_t> bytewise;
    for (std::size_t n = 1; n <= bytes.size(); ++n)
        bytewise.push_back(n);
    EXPECT_EQ(replay(bytes, bytewise), whole) << "one byte at a time";
}

INSTANTIATE_TEST_SUITE_P(Llhttp, HttpConformanceCase, testing::ValuesIn(allCases()),
                         [](const testing::TestParamInfo<ConformanceCase>& param) {
                             return "case" + std::to_string(param.param.id);
                         });

}  // namespace
}  // namespace loopwire
