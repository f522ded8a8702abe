// The RESP framer: every reply type whole, split at every byte and one byte at a time against a guard page, and
// each limit and error.
#include "broker/RespFramer.h"

#include "../GuardedBuffer.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace loopwire::resp {
namespace {

// Feeds message the way a client does (the bytes of the unfinished reply, then more), in every split and one
// byte at a time, each call's input ending against a guard page; checks every way gives the same verdict as the
// whole, and returns the whole's.
RespResult grind(std::string_view message) {
    test::GuardedBuffer guard(message.size() + 1);
    RespFramer whole;
    const RespResult reference = whole.next({guard.place(message), message.size()});
    for (std::size_t split = 0; split <= message.size(); ++split) {
        RespFramer framer;
        RespResult first = framer.next({guard.place(message.substr(0, split)), split});
        if (first.status != RespStatus::NeedMore) {
            // The first part alone decided: it must agree with the whole.
            EXPECT_EQ(first.status, reference.status) << "split at " << split;
            if (first.status == RespStatus::Error) {
                EXPECT_EQ(first.error, reference.error) << "split at " << split;
            } else {
                EXPECT_EQ(first.consumed, reference.consumed) << "split at " << split;
            }
            continue;
        }
        RespResult second = framer.next({guard.place(message), message.size()});
        EXPECT_EQ(second.status, reference.status) << "split at " << split;
        EXPECT_EQ(second.consumed, reference.consumed) << "split at " << split;
        EXPECT_EQ(second.error, reference.error) << "split at " << split;
    }
    RespFramer bytewise;
    RespResult last;
    for (std::size_t length = 0; length <= message.size(); ++length) {
        last = bytewise.next({guard.place(message.substr(0, length)), length});
        if (last.status != RespStatus::NeedMore) break;
    }
    EXPECT_EQ(last.status, reference.status) << "one byte at a time";
    EXPECT_EQ(last.consumed, reference.consumed) << "one byte at a time";
    return reference;
}

void expectComplete(std::string_view reply) {
    SCOPED_TRACE(std::string(reply));
    RespResult result = grind(reply);
    EXPECT_EQ(result.status, RespStatus::Complete);
    EXPECT_EQ(result.consumed, reply.size());
    // With the next reply's first bytes behind it, the same length.
    RespFramer framer;
    std::string twice = std::string(reply) + "+O";
    RespResult followed = framer.next(twice);
    EXPECT_EQ(followed.status, RespStatus::Complete);
    EXPECT_EQ(followed.consumed, reply.size());
}

void expectError(std::string_view reply, RespError error) {
    SCOPED_TRACE(std::string(reply));
    RespResult result = grind(reply);
    EXPECT_EQ(result.status, RespStatus::Error);
    EXPECT_EQ(result.error, error) << nameOf(result.error);
}

TEST(RespFramer, FramesEverySimpleType) {
    expectComplete("+OK\r\n");
    expectComplete("-ERR unknown command\r\n");
    expectComplete(":0\r\n");
    expectComplete(":-9223372036854775808\r\n");
    expectComplete(":9223372036854775807\r\n");
    expectComplete("_\r\n");
    expectComplete("#t\r\n");
    expectComplete("#f\r\n");
    expectComplete(",3.14\r\n");
    expectComplete(",inf\r\n");
    expectComplete("(3492890328409238509324850943850943825024385\r\n");
    expectComplete("+\r\n");
}

TEST(RespFramer, FramesBulkStringsByLengthNotByContent) {
    expectComplete("$0\r\n\r\n");
    expectComplete("$-1\r\n");
    expectComplete("$5\r\nhello\r\n");
    expectComplete(std::string("$6\r\na\r\nb\0c\r\n", 12));
    expectComplete("!21\r\nSYNTAX invalid syntax\r\n");
    expectComplete("=15\r\ntxt:Some string\r\n");
}

TEST(RespFramer, FramesAggregatesAndTheirNesting) {
    expectComplete("*0\r\n");
    expectComplete("*-1\r\n");
    expectComplete("*2\r\n$3\r\nfoo\r\n:1\r\n");
    expectComplete("*2\r\n*1\r\n:1\r\n*0\r\n");
    expectComplete("%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n");
    expectComplete("~2\r\n+a\r\n+b\r\n");
    expectComplete(">3\r\n$7\r\nmessage\r\n$4\r\nchat\r\n$5\r\nhello\r\n");
    expectComplete("*3\r\n*2\r\n:1\r\n*1\r\n_\r\n%1\r\n$1\r\nk\r\n*0\r\n#t\r\n");
    // The reply HELLO 3 gets from Redis 7.
    expectComplete(
        "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:3\r\n$2\r\nid\r\n:3\r\n"
        "$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n");
}

TEST(RespFramer, EndsAtTheFirstReplyOfSeveral) {
    RespFramer framer;
    const std::string_view replies = ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n:7\r\n+PONG\r\n";
    RespResult first = framer.next(replies);
    ASSERT_EQ(first.status, RespStatus::Complete);
    EXPECT_EQ(replies.substr(0, first.consumed), ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n");
    RespResult second = framer.next(replies.substr(first.consumed));
    ASSERT_EQ(second.status, RespStatus::Complete);
    EXPECT_EQ(second.consumed, 4u);
    RespResult third = framer.next(replies.substr(first.consumed + second.consumed));
    ASSERT_EQ(third.status, RespStatus::Complete);
    EXPECT_EQ(third.consumed, 7u);
}

TEST(RespFramer, NeedsMoreForEveryPrefix) {
    const std::string_view reply = "*2\r\n$5\r\nhello\r\n%1\r\n+k\r\n:1\r\n";
    for (std::size_t length = 0; length < reply.size(); ++length) {
        RespFramer framer;
        EXPECT_EQ(framer.next(reply.substr(0, length)).status, RespStatus::NeedMore) << length;
    }
}

TEST(RespFramer, RefusesWhatIsNotResp) {
    expectError("GET / HTTP/1.1\r\n", RespError::UnknownType);
    expectError("|1\r\n+key\r\n+value\r\n+OK\r\n", RespError::UnknownType);  // attributes are not taken
    expectError("+OK\n", RespError::MissingCrlf);
    expectError("\n", RespError::UnknownType);
    expectError("+\n", RespError::MissingCrlf);
    expectError("$3\r\nabcd\r\n", RespError::MissingCrlf);
    expectError("$x\r\n", RespError::BadLength);
    expectError("$-2\r\n", RespError::BadLength);
    expectError("$\r\n", RespError::BadLength);
    expectError("*1x\r\n", RespError::BadLength);
    expectError(":12a\r\n", RespError::BadInteger);
    expectError(":9223372036854775808\r\n", RespError::BadInteger);
    expectError(":\r\n", RespError::BadInteger);
    expectError("#x\r\n", RespError::BadBoolean);
    expectError("_x\r\n", RespError::BadLength);
    expectError("*2\r\n:1\r\n?\r\n", RespError::UnknownType);
}

TEST(RespFramer, LimitsALineWithoutItsEnd) {
    std::string line = "+" + std::string(kMaxLineBytes, 'a') + "\r\n";
    RespFramer framer;
    EXPECT_EQ(framer.next(line).status, RespStatus::Complete);
    std::string longer = "+" + std::string(kMaxLineBytes + 1, 'a');
    RespResult result = framer.next(longer);
    EXPECT_EQ(result.status, RespStatus::Error);
    EXPECT_EQ(result.error, RespError::LineTooLong);
    // Shorter, it may still end.
    EXPECT_EQ(framer.next(longer.substr(0, kMaxLineBytes)).status, RespStatus::NeedMore);
}

TEST(RespFramer, LimitsABulkStringsLength) {
    RespFramer framer;
    EXPECT_EQ(framer.next("$" + std::to_string(kMaxBulkBytes) + "\r\n").status, RespStatus::NeedMore);
    framer.reset();
    RespResult result = framer.next("$" + std::to_string(kMaxBulkBytes + 1) + "\r\n");
    EXPECT_EQ(result.status, RespStatus::Error);
    EXPECT_EQ(result.error, RespError::BulkTooLong);
}

TEST(RespFramer, LimitsAnAggregatesElements) {
    RespFramer framer;
    EXPECT_EQ(framer.next("*" + std::to_string(kMaxAggregateElements) + "\r\n").status, RespStatus::NeedMore);
    framer.reset();
    RespResult result = framer.next("*" + std::to_string(kMaxAggregateElements + 1) + "\r\n");
    EXPECT_EQ(result.error, RespError::TooManyElements);
}

TEST(RespFramer, LimitsTheNestingDepth) {
    std::string deep;
    for (std::size_t level = 0; level < kMaxDepth; ++level)
        deep += "*1\r\n";
    expectComplete(deep + ":1\r\n");
    expectError(deep + "*1\r\n:1\r\n", RespError::TooDeep);
}

TEST(RespFramer, IsReadyForTheNextReplyAfterAnError) {
    RespFramer framer;
    EXPECT_EQ(framer.next("*2\r\n:1\r\n?").status, RespStatus::Error);
    RespResult result = framer.next("+OK\r\n");
    EXPECT_EQ(result.status, RespStatus::Complete);
    EXPECT_EQ(result.consumed, 5u);
}

TEST(RespFramer, NamesEveryError) {
    for (RespError error : {RespError::None, RespError::UnknownType, RespError::BadLength, RespError::BadInteger,
                            RespError::BadBoolean, RespError::MissingCrlf, RespError::LineTooLong,
                            RespError::BulkTooLong, RespError::TooManyElements, RespError::TooDeep}) {
        EXPECT_NE(nameOf(error), "unknown");
    }
}

}  // namespace
}  // namespace loopwire::resp
