// The envelope of a message that crosses the broker.
#include "broker/BrokerEnvelope.h"

#include <gtest/gtest.h>

#include <string>

namespace loopwire::broker {
namespace {

TEST(BrokerEnvelope, CarriesKindCompressionAndOrigin) {
    for (bool binary : {false, true}) {
        for (bool compress : {false, true}) {
            char bytes[BrokerEnvelope::kBytes];
            std::string message(BrokerEnvelope{binary, compress, false, 0x0123456789abcdefULL}.writeTo(bytes));
            message += "payload";
            std::string_view view = message;
            BrokerEnvelope read;
            ASSERT_TRUE(read.readFrom(view));
            EXPECT_EQ(view, "payload");
            EXPECT_EQ(read.binary, binary);
            EXPECT_EQ(read.compress, compress);
            EXPECT_EQ(read.origin, 0x0123456789abcdefULL);
        }
    }
}

TEST(BrokerEnvelope, LeavesAMessageWithoutOneAlone) {
    for (std::string_view text : {std::string_view("hello"), std::string_view(""), std::string_view("\0LW", 3),
                                  std::string_view("\0LW\x02............", 16)}) {
        std::string_view view = text;
        BrokerEnvelope read;
        EXPECT_FALSE(read.readFrom(view));
        EXPECT_EQ(view, text);
    }
}

}  // namespace
}  // namespace loopwire::broker
