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

namespace tpslurm {
namespace {

TEST(ClockTest, ParsesWhatItFormats) {
  const TimePoint t = from_unix_seconds(1796040374);
  EXPECT_EQ(parse_utc(format_utc(t)), t);
  EXPECT_FALSE(parse_utc("2026-11-30 12:00:00").has_value());
  EXPECT_FALSE(parse_utc("2026-11-30T12:00:00Z trailing").has_value());
  EXPECT_FALSE(parse_utc("").has_value());
}

}  // namespace
}  // namespace tpslurm
