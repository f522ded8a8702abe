// Grind: feeds a test message to the HTTP parser or the chunked decoder whole, split at every byte boundary
// into two calls, and one byte at a time, and checks that every way of feeding it gives the same verdict.
//
// Every call's input ends exactly against a PROT_NONE page, so a read of even one byte past the input crashes
// at once (picohttpparser's and Beast's technique). The parser's caller semantics are kept: each call passes
// the bytes as the previous call left them (header names lowercased in place) followed by more bytes, copied
// to a fresh place against the guard page so the buffer also moves between calls.
//
// The helpers return an owned snapshot of the verdict of the whole message, so tests assert on it directly.
#pragma once

#include "http/ChunkedDecoder.h"
#include "http/HttpError.h"
#include "http/HttpParser.h"
#include "../GuardedBuffer.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loopwire {

// So that GoogleTest prints names, not numbers, when an expectation on these fails.
inline void PrintTo(HttpError error, std::ostream* os) { *os << nameOf(error); }
inline void PrintTo(ParseStatus status, std::ostream* os) {
    *os << (status == ParseStatus::Complete ? "Complete" : status == ParseStatus::NeedMore ? "NeedMore" : "Error");
}
inline void PrintTo(BodyFraming framing, std::ostream* os) {
    *os << (framing == BodyFraming::None            ? "None"
            : framing == BodyFraming::ContentLength ? "ContentLength"
                                                    : "Chunked");
}

namespace test {

// How a message is fed. Whole is always run; it is the reference the others must match.
struct GrindOptions {
    bool splits = true;           // every split into two calls
    bool bytewise = true;         // one more byte per call
    std::size_t splitStride = 1;  // test only every n-th split point (for the limit tests' 16 KiB messages)
};

// An owned copy of one parse() verdict and the head it filled.
struct HeadSnapshot {
    ParseStatus status = ParseStatus::NeedMore;
    HttpError error = HttpError::None;
    std::size_t consumed = 0;
    std::string method, target, path, query;
    unsigned httpMinor = 0;
    BodyFraming framing = BodyFraming::None;
    std::uint64_t contentLength = 0;
    bool keepAlive = false;
    bool expectContinue = false;
    bool upgrade = false;
    std::vector<std::pair<std::string, std::string>> headers;

    bool operator==(const HeadSnapshot&) const = default;

    // The first value of a field, by lower-case name; empty when absent.
    std::string header(std::string_view name) const {
        for (const auto& [n, v] : headers) {
            if (n == name) return v;
        }
        return {};
    }
};

inline std::ostream& operator<<(std::ostream& os, const HeadSnapshot& s) {
    os << "{status=";
    PrintTo(s.status, &os);
    os << " error=" << nameOf(s.error) << " consumed=" << s.consumed;
    if (s.status == ParseStatus::Complete) {
        os << " method=" << s.method << " target=" << s.target << " minor=" << s.httpMinor << " framing=";
        PrintTo(s.framing, &os);
        os << " cl=" << s.contentLength << " keepAlive=" << s.keepAlive << " expect=" << s.expectContinue
           << " upgrade=" << s.upgrade << " headers=" << s.headers.size();
    }
    return os << "}";
}
inline void PrintTo(const HeadSnapshot& s, std::ostream* os) { *os << s; }

namespace detail {

inline bool viewInside(std::string_view view, const char* data, std::size_t length) {
    if (view.empty()) return true;
    return view.data() >= data && view.data() + view.size() <= data + length;
}

inline HeadSnapshot snapshotOf(const ParseResult& r, const RequestHead& head, const char* data, std::size_t length) {
    HeadSnapshot s;
    s.status = r.status;
    s.error = r.status == ParseStatus::Error ? r.error : HttpError::None;
    if (r.status != ParseStatus::Complete) return s;
    EXPECT_LE(r.consumed, length);
    EXPECT_TRUE(viewInside(head.method, data, length));
    EXPECT_TRUE(viewInside(head.target, data, length));
    EXPECT_TRUE(viewInside(head.path, data, length));
    EXPECT_TRUE(viewInside(head.query, data, length));
    s.consumed = r.consumed;
    s.method = head.method;
    s.target = head.target;
    s.path = head.path;
    s.query = head.query;
    s.httpMinor = head.httpMinor;
    s.framing = head.framing;
    s.contentLength = head.contentLength;
    s.keepAlive = head.keepAlive;
    s.expectContinue = head.expectContinue;
    s.upgrade = head.upgrade;
    for (std::uint16_t i = 0; i < head.headerCount; ++i) {
        EXPECT_TRUE(viewInside(head.headers[i].name, data, length));
        EXPECT_TRUE(viewInside(head.headers[i].value, data, length));
        s.headers.emplace_back(head.headers[i].name, head.headers[i].value);
    }
    return s;
}

// One run: call i passes the first lengths[i] bytes of message (the prefix as the previous call left it).
inline HeadSnapshot parseInCalls(std::string_view message, const std::vector<std::size_t>& lengths,
                                 GuardedBuffer& buffer) {
    HttpParser parser;
    // Poisoned, so that a field parse() forgets to fill shows up as a wrong value rather than a default.
    RequestHead head;
    head.method = "poison";
    head.httpMinor = 7;
    head.framing = BodyFraming::Chunked;
    head.contentLength = 12345;
    head.keepAlive = !head.keepAlive;
    head.expectContinue = !head.expectContinue;
    head.upgrade = !head.upgrade;
    head.headerCount = 3;
    std::string held;  // the caller's buffer between calls
    for (const std::size_t length : lengths) {
        held.append(message.substr(held.size(), length - held.size()));
        char* data = buffer.place(held);
        const ParseResult r = parser.parse(data, held.size(), head);
        held.assign(data, held.size());
        if (r.status != ParseStatus::NeedMore) return snapshotOf(r, head, data, held.size());
    }
    return {};
}

inline std::string describeLengths(const std::vector<std::size_t>& lengths) {
    std::ostringstream os;
    os << "calls with lengths";
    for (std::size_t i = 0; i < lengths.size() && i < 4; ++i)
        os << ' ' << lengths[i];
    if (lengths.size() > 4) os << " ... (" << lengths.size() << " calls)";
    return os.str();
}

}  // namespace detail

// Parses one head every way; every way must agree with the whole message. Returns the verdict.
namespace detail {

inline HeadSnapshot grindParseInOneMode(std::string_view message, GrindOptions options) {
    GuardedBuffer buffer(message.size());
    const HeadSnapshot whole = detail::parseInCalls(message, {message.size()}, buffer);
    if (options.splits) {
        for (std::size_t cut = 1; cut < message.size(); cut += options.splitStride) {
            const std::vector<std::size_t> lengths{cut, message.size()};
            const HeadSnapshot split = detail::parseInCalls(message, lengths, buffer);
            if (split != whole) {
                ADD_FAILURE() << detail::describeLengths(lengths) << ": " << split << " but whole: " << whole;
                break;
            }
        }
    }
    if (options.bytewise && message.size() > 1) {
        std::vector<std::size_t> lengths;
        for (std::size_t n = 1; n <= message.size(); ++n)
            lengths.push_back(n);
        const HeadSnapshot bytewise = detail::parseInCalls(message, lengths, buffer);
        EXPECT_EQ(bytewise, whole) << "one byte at a time";
    }
    return whole;
}

}  // namespace detail

// Grinds message with the parser's 16-byte vector scanning (where the build has it) and again with the portable
// scan only, which must give the same verdict: both paths run over every case of the tests.
inline HeadSnapshot grindParse(std::string_view message, GrindOptions options = {}) {
    const HeadSnapshot vector = detail::grindParseInOneMode(message, options);
    if (!HttpParser::vectorScanning()) return vector;
    HttpParser::setVectorScanningForTesting(false);
    const HeadSnapshot portable = detail::grindParseInOneMode(message, options);
    HttpParser::setVectorScanningForTesting(true);
    EXPECT_EQ(portable, vector) << "the portable scan and the vector scan disagree";
    return vector;
}

// An owned copy of a chunked body's decoding: the verdict, the input consumed in all, and the payload.
struct BodySnapshot {
    ParseStatus status = ParseStatus::NeedMore;
    HttpError error = HttpError::None;
    std::size_t consumed = 0;
    std::string payload;

    bool operator==(const BodySnapshot&) const = default;
};

inline std::ostream& operator<<(std::ostream& os, const BodySnapshot& s) {
    os << "{status=";
    PrintTo(s.status, &os);
    return os << " error=" << nameOf(s.error) << " consumed=" << s.consumed << " payload=" << s.payload.size()
              << " bytes}";
}
inline void PrintTo(const BodySnapshot& s, std::ostream* os) { *os << s; }

namespace detail {

// One run: the body arrives in segments ending at the given offsets; each segment is decoded as the
// connection would, calling decode() again on what remains while it stops early.
inline BodySnapshot decodeInSegments(std::string_view body, const std::vector<std::size_t>& ends,
                                     GuardedBuffer& buffer) {
    ChunkedDecoder decoder;
    BodySnapshot s;
    std::size_t fed = 0;
    for (const std::size_t segmentEnd : ends) {
        std::string_view rest = body.substr(fed, segmentEnd - fed);
        fed = segmentEnd;
        while (!rest.empty()) {
            const char* data = buffer.place(rest);
            const ChunkedResult r = decoder.decode(std::string_view(data, rest.size()));
            EXPECT_LE(r.consumed, rest.size());
            if (!r.data.empty()) {
                EXPECT_TRUE(r.data.data() >= data && r.data.data() + r.data.size() <= data + r.consumed)
                    << "payload outside the consumed input";
            }
            s.payload.append(r.data);
            s.consumed += r.consumed;
            if (r.status != ParseStatus::NeedMore) {
                s.status = r.status;
                s.error = r.status == ParseStatus::Error ? r.error : HttpError::None;
                return s;
            }
            if (r.consumed == 0) {
                ADD_FAILURE() << "decode() made no progress on " << rest.size() << " bytes";
                return s;
            }
            rest.remove_prefix(r.consumed);
        }
    }
    return s;
}

}  // namespace detail

// Decodes one chunked body every way; every way must agree with the whole body. Returns the verdict.
inline BodySnapshot grindDecode(std::string_view body, GrindOptions options = {}) {
    GuardedBuffer buffer(body.size());
    const BodySnapshot whole = detail::decodeInSegments(body, {body.size()}, buffer);
    if (options.splits) {
        for (std::size_t cut = 1; cut < body.size(); cut += options.splitStride) {
            const std::vector<std::size_t> ends{cut, body.size()};
            const BodySnapshot split = detail::decodeInSegments(body, ends, buffer);
            if (split != whole) {
                ADD_FAILURE() << "split at " << cut << ": " << split << " but whole: " << whole;
                break;
            }
        }
    }
    if (options.bytewise && body.size() > 1) {
        std::vector<std::size_t> ends;
        for (std::size_t n = 1; n <= body.size(); ++n)
            ends.push_back(n);
        const BodySnapshot bytewise = detail::decodeInSegments(body, ends, buffer);
        EXPECT_EQ(bytewise, whole) << "one byte at a time";
    }
    return whole;
}

}  // namespace test
}  // namespace loopwire
