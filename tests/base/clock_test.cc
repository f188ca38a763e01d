#include "base/clock.h"

#include <gtest/gtest.h>

#include <limits>

namespace tpslurm {
namespace {

TEST(ClockTest, ManualClockMovesOnlyWhenTold) {
  ManualClock clock(from_unix_seconds(1796040374));
  EXPECT_EQ(unix_seconds(clock.now()), 1796040374);
  clock.advance(std::chrono::seconds(30));
  EXPECT_EQ(unix_seconds(clock.now()), 1796040404);
}

TEST(ClockTest, FormatsUtc) { EXPECT_EQ(format_utc(from_unix_seconds(0)), "1970-01-01T00:00:00Z"); }

// A token whose `exp` is 51800000000 (found by tools/fuzz jwt): nanoseconds since 1970 overflowed.
TEST(ClockTest, TimesFarFromNowSaturateInsteadOfOverflowing) {
  const TimePoint now = from_unix_seconds(1796040374);
  const TimePoint late = from_unix_seconds(51'800'000'000);
  const TimePoint early = from_unix_seconds(-51'800'000'000);
  EXPECT_GT(late, now);
  EXPECT_LT(early, now);
  EXPECT_EQ(from_unix_seconds(std::numeric_limits<std::int64_t>::max()), late);
  EXPECT_EQ(from_unix_seconds(std::numeric_limits<std::int64_t>::min()), early);
  EXPECT_GT(late - early, std::chrono::hours(24 * 365 * 290));
  EXPECT_EQ(format_utc(late), "2116-02-20T23:53:38Z");
}

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
