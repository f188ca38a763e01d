#include "base/clock.h"

#include <gtest/gtest.h>

namespace tpslurm {
namespace {

TEST(ClockTest, ManualClockMovesOnlyWhenTold) {
  ManualClock clock(from_unix_seconds(1796040374));
  EXPECT_EQ(unix_seconds(clock.now()), 1796040374);
  clock.advance(std::chrono::seconds(30));
  EXPECT_EQ(unix_seconds(clock.now()), 1796040404);
}

TEST(ClockTest, FormatsUtc) { EXPECT_EQ(format_utc(from_unix_seconds(0)), "1970-01-01T00:00:00Z"); }

}  // namespace
}  // namespace tpslurm
