#include "base/DateClock.h"

#include <gtest/gtest.h>

namespace loopwire {
namespace {

TEST(DateClock, FormatsTheRfc9110Example) {
    DateClock clock;
    clock.refresh(784111777);  // the example date of RFC 9110 section 5.6.7
    EXPECT_EQ(clock.text(), "Sun, 06 Nov 1994 08:49:37 GMT");
}

TEST(DateClock, FormatsALeapDayAndAFourDigitYear) {
    DateClock clock;
    clock.refresh(4107542399);  // 2100-02-28 23:59:59 UTC
    EXPECT_EQ(clock.text(), "Sun, 28 Feb 2100 23:59:59 GMT");
    clock.refresh(951782400);  // 2000-02-29 00:00:00 UTC
    EXPECT_EQ(clock.text(), "Tue, 29 Feb 2000 00:00:00 GMT");
}

TEST(DateClock, AlwaysTwentyNineBytes) {
    DateClock clock;
    EXPECT_EQ(clock.text().size(), DateClock::kLength);
}

}  // namespace
}  // namespace loopwire
