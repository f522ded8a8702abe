#include "h2/RequestHeadBuilder.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace loopwire::h2 {
namespace {

using Field = std::pair<std::string, std::string>;

class Builder {
public:
    explicit Builder(bool extendedConnect = false, std::size_t scratchBytes = 256)
        : scratch_(scratchBytes), extendedConnect_(extendedConnect) {}

    // Builds from fields as literal names (their kind from classifyName, their values unchecked), or, where kinds
    // are given, as the decoder gives table entries (the kind given, the value checked).
    // bodyFollows: as if the HEADERS frame did not end the stream.
    RequestFieldError build(const std::vector<Field>& fields, std::vector<FieldKind> kinds = {},
                            bool bodyFollows = false) {
        fields_ = fields;
        builder.begin(head, scratch_.data(), scratch_.size(), extendedConnect_);
        for (std::size_t i = 0; i < fields_.size(); ++i) {
            DecodedField f;
            f.name = fields_[i].first;
            f.value = fields_[i].second;
            if (i < kinds.size()) {
                f.kind = kinds[i];
                f.valueCheck = ValueCheck::Valid;
            } else {
                f.kind = classifyName(f.name);
            }
            builder.add(f);
        }
        return builder.finish(bodyFollows);
    }

    RequestHead head;
    RequestHeadBuilder builder;

private:
    std::vector<Field> fields_;
    std::vector<char> scratch_;
    bool extendedConnect_;
};

const std::vector<Field> kGet = {
    {":method", "GET"}, {":scheme", "https"}, {":path", "/a/b?x=1&y"}, {":authority", "example.com:8443"}};

std::vector<Field> with(std::vector<Field> fields, std::vector<Field> more) {
    fields.insert(fields.end(), more.begin(), more.end());
    return fields;
}

TEST(RequestHeadBuilder, FillsTheHeadAsHttp11Would) {
    Builder b;
    ASSERT_EQ(b.build(with(kGet, {{"accept", "*/*"}, {"user-agent", "curl/8"}})), RequestFieldError::None);
    EXPECT_EQ(b.head.method, "GET");
    EXPECT_EQ(b.head.target, "/a/b?x=1&y");
    EXPECT_EQ(b.head.path, "/a/b");
    EXPECT_EQ(b.head.query, "x=1&y");
    EXPECT_EQ(b.head.header("accept"), "*/*");
    EXPECT_EQ(b.head.header("user-agent"), "curl/8");
    EXPECT_EQ(b.head.header("host"), "example.com:8443");  // :authority
    EXPECT_EQ(b.head.headerCount, 3);
    EXPECT_EQ(b.builder.scheme(), "https");
    EXPECT_FALSE(b.builder.contentLength().has_value());
    EXPECT_FALSE(b.head.upgrade);
}

TEST(RequestHeadBuilder, PseudoHeadersFromTheTables) {
    Builder b;
    ASSERT_EQ(b.build(kGet, {staticFieldKind(2), staticFieldKind(7), staticFieldKind(4), staticFieldKind(1)}),
              RequestFieldError::None);
    EXPECT_EQ(b.head.path, "/a/b");
    EXPECT_EQ(b.head.header("host"), "example.com:8443");
}

TEST(RequestHeadBuilder, HostMustMatchAuthority) {
    Builder b;
    EXPECT_EQ(b.build(with(kGet, {{"host", "example.com:8443"}})), RequestFieldError::None);
    EXPECT_EQ(b.head.headerCount, 1);
    EXPECT_EQ(b.build(with(kGet, {{"host", "other.example"}})), RequestFieldError::HostMismatch);
    // Without :authority, Host is the host.
    EXPECT_EQ(b.build({{":method", "GET"}, {":scheme", "http"}, {":path", "/"}, {"host", "h"}}),
              RequestFieldError::None);
    EXPECT_EQ(b.head.header("host"), "h");
}

TEST(RequestHeadBuilder, JoinsCookies) {
    Builder b;
    ASSERT_EQ(b.build(with(kGet, {{"cookie", "a=1"}, {"accept", "x"}, {"cookie", "b=2"}, {"cookie", "c=3"}})),
              RequestFieldError::None);
    EXPECT_EQ(b.head.header("cookie"), "a=1; b=2; c=3");
    EXPECT_EQ(b.head.headerCount, 3);  // cookie, accept, host
    Builder small(false, 8);
    EXPECT_EQ(small.build(with(kGet, {{"cookie", "a=1"}, {"cookie", "b=2"}})), RequestFieldError::None);
    EXPECT_EQ(small.build(with(kGet, {{"cookie", "a=1"}, {"cookie", "bb=2"}})), RequestFieldError::CookieTooLong);
}

TEST(RequestHeadBuilder, ContentLength) {
    Builder b;
    ASSERT_EQ(b.build(with(kGet, {{"content-length", "42"}, {"content-length", "42"}})), RequestFieldError::None);
    EXPECT_EQ(b.builder.contentLength(), 42u);
    EXPECT_EQ(b.head.contentLength, 42u);
    EXPECT_EQ(b.build(with(kGet, {{"content-length", "42"}, {"content-length", "43"}})),
              RequestFieldError::BadContentLength);
    for (const char* bad : {"", "-1", "4 2", "0x10", "12345678901234567890"})
        EXPECT_EQ(b.build(with(kGet, {{"content-length", bad}})), RequestFieldError::BadContentLength) << bad;
}

TEST(RequestHeadBuilder, ABodyOfUnknownLengthIsPresentedAsChunked) {
    const std::vector<Field> post = {
        {":method", "POST"}, {":scheme", "https"}, {":path", "/upload"}, {":authority", "example.com"}};
    Builder b;
    ASSERT_EQ(b.build(post, {}, true), RequestFieldError::None);
    EXPECT_EQ(b.head.header("transfer-encoding"), "chunked");
    EXPECT_EQ(b.head.headerCount, 2);  // host, transfer-encoding
    // Not when the length is known, nor when no body follows.
    ASSERT_EQ(b.build(with(post, {{"content-length", "5"}}), {}, true), RequestFieldError::None);
    EXPECT_EQ(b.head.header("transfer-encoding"), "");
    ASSERT_EQ(b.build(post, {}, false), RequestFieldError::None);
    EXPECT_EQ(b.head.header("transfer-encoding"), "");
    // Nor on CONNECT, whose stream is a tunnel, not a body.
    ASSERT_EQ(b.build({{":method", "CONNECT"}, {":authority", "example.com:443"}}, {}, true), RequestFieldError::None);
    EXPECT_EQ(b.head.header("transfer-encoding"), "");
    Builder extended(true);
    ASSERT_EQ(extended.build({{":method", "CONNECT"},
                              {":protocol", "websocket"},
                              {":scheme", "https"},
                              {":path", "/chat"},
                              {":authority", "example.com"}},
                             {}, true),
              RequestFieldError::None);
    EXPECT_EQ(extended.head.header("transfer-encoding"), "");
}

TEST(RequestHeadBuilder, ConnectionSpecificFieldsAreMalformed) {
    Builder b;
    for (const char* name : {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"})
        EXPECT_EQ(b.build(with(kGet, {{name, "x"}})), RequestFieldError::ConnectionSpecific) << name;
    EXPECT_EQ(b.build(with(kGet, {{"te", "trailers"}})), RequestFieldError::None);
    EXPECT_EQ(b.build(with(kGet, {{"te", "gzip"}})), RequestFieldError::BadTe);
}

TEST(RequestHeadBuilder, NamesAndValues) {
    Builder b;
    for (const char* name : {"Accept", "x y", "x\x7f", "a:b", "x\x01", ""})
        EXPECT_EQ(b.build(with(kGet, {{name, "v"}})), RequestFieldError::BadName) << name;
    EXPECT_EQ(b.build(with(kGet, {{"x-\"odd\"", "v"}})), RequestFieldError::None);  // RFC 9113 allows it
    for (const char* value : {" lead", "trail\t", "a\rb", "a\nb"})
        EXPECT_EQ(b.build(with(kGet, {{"x", value}})), RequestFieldError::BadValue) << value;
    EXPECT_EQ(b.build(with(kGet, {{"x", std::string("a\0b", 3)}})), RequestFieldError::BadValue);
    EXPECT_EQ(b.build(with(kGet, {{"x", "inner space ok"}, {"y", ""}})), RequestFieldError::None);
}

TEST(RequestHeadBuilder, PseudoHeaderRules) {
    Builder b;
    EXPECT_EQ(b.build({{":method", "GET"}, {"accept", "x"}, {":scheme", "https"}, {":path", "/"}}),
              RequestFieldError::PseudoAfterRegular);
    EXPECT_EQ(b.build(with(kGet, {{":method", "GET"}})), RequestFieldError::RepeatedPseudo);
    EXPECT_EQ(b.build(with(kGet, {{":path", "/"}})), RequestFieldError::RepeatedPseudo);
    EXPECT_EQ(b.build({{":method", "GET"}, {":scheme", "https"}, {":path", "/"}, {":status", "200"}}),
              RequestFieldError::UnknownPseudo);
    EXPECT_EQ(b.build({{":method", "GET"}, {":scheme", "https"}, {":path", "/"}, {":foo", "x"}}),
              RequestFieldError::UnknownPseudo);
    EXPECT_EQ(b.build({{":scheme", "https"}, {":path", "/"}}), RequestFieldError::MissingPseudo);
    EXPECT_EQ(b.build({{":method", "GET"}, {":path", "/"}}), RequestFieldError::MissingPseudo);
    EXPECT_EQ(b.build({{":method", "GET"}, {":scheme", "https"}}), RequestFieldError::MissingPseudo);
    EXPECT_EQ(b.build({{":method", "GET"}, {":scheme", "https"}, {":path", ""}}), RequestFieldError::BadPath);
    EXPECT_EQ(b.build({{":method", "GET"}, {":scheme", "https"}, {":path", "a"}}), RequestFieldError::BadPath);
    EXPECT_EQ(b.build({{":method", "GET"}, {":scheme", "https"}, {":path", "/a b"}}), RequestFieldError::BadPath);
    EXPECT_EQ(b.build({{":method", "GET"}, {":scheme", "https"}, {":path", "*"}}), RequestFieldError::BadPath);
    EXPECT_EQ(b.build({{":method", "OPTIONS"}, {":scheme", "https"}, {":path", "*"}}), RequestFieldError::None);
    EXPECT_EQ(b.build({{":method", "G T"}, {":scheme", "https"}, {":path", "/"}}), RequestFieldError::BadMethod);
    // The first error sticks.
    EXPECT_EQ(b.build({{":method", "GET"}, {"Bad", "x"}, {"connection", "x"}}), RequestFieldError::BadName);
}

TEST(RequestHeadBuilder, ConnectTakesOnlyMethodAndAuthority) {
    Builder b;
    ASSERT_EQ(b.build({{":method", "CONNECT"}, {":authority", "example.com:443"}}), RequestFieldError::None);
    EXPECT_EQ(b.head.target, "example.com:443");
    EXPECT_TRUE(b.head.upgrade);
    EXPECT_EQ(b.build({{":method", "CONNECT"}, {":authority", "a:1"}, {":path", "/"}}),
              RequestFieldError::MissingPseudo);
    EXPECT_EQ(b.build({{":method", "CONNECT"}}), RequestFieldError::MissingPseudo);
}

TEST(RequestHeadBuilder, ExtendedConnectOnlyWhenAllowed) {
    const std::vector<Field> ws = {{":method", "CONNECT"},
                                   {":protocol", "websocket"},
                                   {":scheme", "https"},
                                   {":path", "/chat"},
                                   {":authority", "example.com"}};
    Builder off;
    EXPECT_EQ(off.build(ws), RequestFieldError::UnknownPseudo);
    Builder on(true);
    ASSERT_EQ(on.build(ws), RequestFieldError::None);
    EXPECT_EQ(on.builder.protocol(), "websocket");
    EXPECT_EQ(on.head.path, "/chat");
    EXPECT_TRUE(on.head.upgrade);
    EXPECT_EQ(on.build({{":method", "GET"}, {":protocol", "websocket"}, {":scheme", "https"}, {":path", "/"}}),
              RequestFieldError::UnknownPseudo);
    EXPECT_EQ(on.build({{":method", "CONNECT"}, {":protocol", "websocket"}, {":authority", "a"}}),
              RequestFieldError::MissingPseudo);
}

TEST(RequestHeadBuilder, FieldCountLimitIsA431) {
    Builder b;
    std::vector<Field> fields = kGet;
    for (std::size_t i = 0; i < limits::kMaxHeaderCount - 1; ++i)
        fields.push_back({"x-" + std::to_string(i), "v"});
    EXPECT_EQ(b.build(fields), RequestFieldError::None);  // 99 and the host
    // The field a body of unknown length adds counts as well.
    EXPECT_EQ(b.build(fields, {}, true), RequestFieldError::TooManyFields);
    fields.push_back({"x-last", "v"});
    EXPECT_EQ(b.build(fields), RequestFieldError::TooManyFields);
}

}  // namespace
}  // namespace loopwire::h2
