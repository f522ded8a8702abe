// The RESP writer: commands as arrays of bulk strings.
#include "broker/RespWriter.h"

#include "broker/RespFramer.h"

#include <gtest/gtest.h>

#include <string>

namespace loopwire::resp {
namespace {

TEST(RespWriter, WritesACommandAsAnArrayOfBulkStrings) {
    ByteBuffer out;
    RespWriter::appendCommand(out, {"PUBLISH", {"app:", "chat"}, "hi"});
    EXPECT_EQ(out.view(), "*3\r\n$7\r\nPUBLISH\r\n$8\r\napp:chat\r\n$2\r\nhi\r\n");
}

TEST(RespWriter, WritesEmptyAndBinaryArguments) {
    ByteBuffer out;
    RespWriter::appendCommand(out, {"SET", "", std::string_view("\0\r\n", 3)});
    EXPECT_EQ(out.view(), std::string_view("*3\r\n$3\r\nSET\r\n$0\r\n\r\n$3\r\n\0\r\n\r\n", 28));
    RespFramer framer;
    RespResult result = framer.next(out.view());
    EXPECT_EQ(result.status, RespStatus::Complete);
    EXPECT_EQ(result.consumed, out.size());
}

TEST(RespWriter, WritesCommandsOfAnyArgumentCount) {
    ByteBuffer out;
    RespWriter::appendCommandHeader(out, 12);
    RespWriter::appendArgument(out, "SUBSCRIBE");
    for (int i = 0; i < 11; ++i)
        RespWriter::appendArgument(out, {"p:", std::to_string(i)});
    EXPECT_TRUE(out.view().starts_with("*12\r\n$9\r\nSUBSCRIBE\r\n$3\r\np:0\r\n"));
    EXPECT_TRUE(out.view().ends_with("$4\r\np:10\r\n"));
    RespFramer framer;
    EXPECT_EQ(framer.next(out.view()).consumed, out.size());
}

TEST(RespWriter, KnowsTheSizeOfAnArgument) {
    for (std::size_t length : {0u, 9u, 10u, 99u, 100u, 12345u}) {
        ByteBuffer out;
        std::string text(length, 'x');
        RespWriter::appendArgument(out, {"", text});
        EXPECT_EQ(RespWriter::encodedSize({"", text}), out.size()) << length;
    }
}

}  // namespace
}  // namespace loopwire::resp
