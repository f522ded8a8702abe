#include "base/ByteBuffer.h"

#include <gtest/gtest.h>

#include <string>

namespace loopwire {
namespace {

TEST(ByteBuffer, AppendsAndConsumesInOrder) {
    ByteBuffer buffer;
    EXPECT_TRUE(buffer.empty());
    buffer.append("hello ");
    buffer.append("world");
    EXPECT_EQ(buffer.view(), "hello world");
    buffer.consume(6);
    EXPECT_EQ(buffer.view(), "world");
    buffer.consume(5);
    EXPECT_TRUE(buffer.empty());
}

TEST(ByteBuffer, TruncateKeepsTheFrontBytes) {
    ByteBuffer buffer;
    buffer.append("headbody");
    buffer.consume(2);
    buffer.truncate(4);
    EXPECT_EQ(buffer.view(), "adbo");
    buffer.truncate(10);  // longer than what it holds: nothing changes
    EXPECT_EQ(buffer.view(), "adbo");
    buffer.truncate(0);
    EXPECT_TRUE(buffer.empty());
}

TEST(ByteBuffer, KeepsItsCapacityWhenDrained) {
    ByteBuffer buffer;
    buffer.append(std::string(1000, 'x'));
    std::size_t capacity = buffer.capacity();
    buffer.consume(1000);
    buffer.append(std::string(1000, 'y'));
    EXPECT_EQ(buffer.capacity(), capacity);
}

TEST(ByteBuffer, SlidesLiveBytesBeforeGrowing) {
    ByteBuffer buffer;
    buffer.append(std::string(200, 'a'));
    std::size_t capacity = buffer.capacity();
    buffer.consume(150);
    buffer.append(std::string(150, 'b'));
    EXPECT_EQ(buffer.capacity(), capacity);
    EXPECT_EQ(buffer.view(), std::string(50, 'a') + std::string(150, 'b'));
}

TEST(ByteBuffer, PrepareAndCommit) {
    ByteBuffer buffer;
    char* at = buffer.prepare(3);
    at[0] = 'a';
    at[1] = 'b';
    buffer.commit(2);
    EXPECT_EQ(buffer.view(), "ab");
}

// A reader holding the start of a message reads into the room behind it: the buffer grows only when that room is
// under the minimum asked for, not whenever a whole chunk does not fit behind the live bytes.
TEST(ByteBuffer, PrepareAtLeastGivesAllTheRoomAndGrowsOnlyBelowTheMinimum) {
    ByteBuffer buffer;
    std::span<char> room = buffer.prepareAtLeast(1024);
    ASSERT_GE(room.size(), 1024u);
    EXPECT_EQ(room.size(), buffer.capacity());
    const std::size_t capacity = buffer.capacity();
    buffer.commit(room.size());
    buffer.consume(room.size() - 100);  // 100 bytes of a message left, at the end of the storage

    room = buffer.prepareAtLeast(capacity / 2);
    EXPECT_EQ(buffer.capacity(), capacity) << "slid to the front, not grown";
    EXPECT_EQ(room.size(), capacity - 100);
    EXPECT_EQ(room.data(), buffer.data() + 100);

    buffer.commit(room.size() - 10);  // 10 bytes of room left
    room = buffer.prepareAtLeast(64);
    EXPECT_GT(buffer.capacity(), capacity) << "under the minimum: grown";
    EXPECT_GE(room.size(), 64u);
    EXPECT_EQ(room.size(), buffer.capacity() - buffer.size());
}

TEST(ByteBuffer, ReleaseFreesTheStorage) {
    ByteBuffer buffer;
    buffer.append("x");
    buffer.release();
    EXPECT_EQ(buffer.capacity(), 0u);
    EXPECT_TRUE(buffer.empty());
}

}  // namespace
}  // namespace loopwire
