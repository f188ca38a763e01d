// Schedules are drawn from the seed alone, in time order, within the catalog's rules.
#include <gtest/gtest.h>

#include "explore_schedule.h"

namespace tpslurm::soak {
namespace {

TEST(ExploreSchedule, TheSameSeedDrawsTheSameScheduleAndAnotherSeedAnother) {
  const ScheduleOptions options;
  EXPECT_EQ(describe(draw_schedule(17, options)), describe(draw_schedule(17, options)));
  EXPECT_NE(describe(draw_schedule(17, options)), describe(draw_schedule(18, options)));
}

TEST(ExploreSchedule, ActionsAreInTimeOrderWithinTheRules) {
  ScheduleOptions options;
  options.max_faults = 8;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const Schedule s = draw_schedule(seed, options);
    ASSERT_EQ(s.feed_at.size(), static_cast<std::size_t>(options.jobs));
    int restores = 0, renames = 0;
    double previous = 0;
    for (const auto& a : s.actions) {
      EXPECT_GE(a.at_s, previous) << seed;
      previous = a.at_s;
      if (a.follow_up) continue;
      restores += a.kind == FaultKind::restore_backup;
      renames += a.kind == FaultKind::rename;
      EXPECT_FALSE(a.kind == FaultKind::accounting_lag && !s.accounting) << seed;
    }
    EXPECT_LE(restores + renames, 1) << seed;
    EXPECT_GE(s.faults, options.min_faults) << seed;
  }
}

TEST(ExploreSchedule, KindsLeftOutAreNeverDrawn) {
  ScheduleOptions options;
  options.without = {FaultKind::forget_jobs, FaultKind::no_accounting};
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const Schedule s = draw_schedule(seed, options);
    EXPECT_TRUE(s.accounting) << seed;
    for (const auto& a : s.actions) EXPECT_NE(a.kind, FaultKind::forget_jobs) << seed;
  }
  FaultKind kind;
  ASSERT_TRUE(fault_kind("plant_links", kind));
  EXPECT_EQ(kind, FaultKind::plant_links);
  EXPECT_FALSE(fault_kind("clock_step", kind));
}

}  // namespace
}  // namespace tpslurm::soak
