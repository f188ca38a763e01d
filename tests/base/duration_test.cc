#include "base/duration.h"

#include <gtest/gtest.h>

namespace tpslurm {
namespace {

using std::chrono::seconds;

TEST(DurationTest, ReadsEachUnit) {
  EXPECT_EQ(parse_duration("10s").value(), seconds(10));
  EXPECT_EQ(parse_duration("5m").value(), seconds(300));
  EXPECT_EQ(parse_duration("1h").value(), seconds(3600));
  EXPECT_EQ(parse_duration("2d").value(), seconds(172800));
}

TEST(DurationTest, ReadsSums) { EXPECT_EQ(parse_duration("1h30m5s").value(), seconds(5405)); }

TEST(DurationTest, RefusesABareNumberWithTheFix) {
  const auto result = parse_duration("10");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message(), "expected a duration such as 10s, 5m, 1h or 1h30m (a unit is required)");
}

TEST(DurationTest, RefusesGarbage) {
  for (const char* text : {"", "s", "10x", "-5s", "1.5h", " 10s", "10s ", "99999999999999999999s"}) {
    EXPECT_FALSE(parse_duration(text).ok()) << text;
  }
}

TEST(DurationTest, RefusesMoreThanTenYears) {
  EXPECT_FALSE(parse_duration("3651d").ok());
  EXPECT_TRUE(parse_duration("3650d").ok());
}

TEST(DurationTest, FormatsShortestForm) {
  EXPECT_EQ(format_duration(seconds(0)), "0s");
  EXPECT_EQ(format_duration(seconds(90)), "1m30s");
  EXPECT_EQ(format_duration(seconds(1800)), "30m");
  EXPECT_EQ(format_duration(seconds(90061)), "1d1h1m1s");
}

TEST(DurationTest, FormatReadsBack) {
  for (long n : {1L, 59L, 61L, 3599L, 86399L, 123456L}) {
    EXPECT_EQ(parse_duration(format_duration(seconds(n))).value(), seconds(n));
  }
}

}  // namespace
}  // namespace tpslurm
