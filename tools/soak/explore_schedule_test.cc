// Schedules are drawn from the seed alone, in time order, within the catalog's rules.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

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
  ASSERT_TRUE(fault_kind("clock_step", kind));
  EXPECT_EQ(kind, FaultKind::clock_step);
  EXPECT_FALSE(fault_kind("clock_steps", kind));
}

TEST(ExploreSchedule, WithTheKindsAddedLaterLeftOutASeedDrawsWhatItDrewBefore) {
  ScheduleOptions options;
  options.seconds = 30;
  options.jobs = 8;
  for (int k = kFirstLaterKind; k < kFaultKinds; ++k) options.without.insert(static_cast<FaultKind>(k));
  // As the explorer drew them before reused_ids, hostile_files, idle_connections and clock_step.
  EXPECT_EQ(describe(draw_schedule(22, options)),
            (std::vector<std::string>{
                "seed 22: slurmdbd present, MinJobAge 5 s, jobs pend 1 s and run 9 s, 8 jobs fed over 21 s, 6 faults",
                "  t=  3.2 s  forget_jobs: releases slowed (2.5 s each), slurmctld forgets in 3 s",
                "  t=  3.2 s  node_fail",
                "  t=  6.2 s  forget_jobs: every job forgotten, ids continue past a gap",
                "  t=  6.7 s  accounting_lag: slurmdbd behind for 7 s",
                "  t= 11.1 s  rename: serve stopped, instance renamed, refused, move-deployment, started",
                "  t= 15.0 s  sigterm",
                "  t= 17.4 s  accounting_lag: slurmdbd behind for 7 s"}));
  EXPECT_EQ(describe(draw_schedule(31, options)),
            (std::vector<std::string>{
                "seed 31: slurmdbd present, MinJobAge 10 s, jobs pend 4 s and run 7 s, 8 jobs fed over 21 s, 6 faults",
                "  t=  6.8 s  sigkill",
                "  t=  7.2 s  sigterm",
                "  t=  9.6 s  auth_fails: 4 jobs at once, 600 ms later: a token signed by another key for 3 s",
                "  t= 12.6 s  auth_fails: the good token back",
                "  t= 14.0 s  plant_links: FIFO exit.json, a link to a file and one to a directory outside the tree",
                "  t= 19.3 s  copies: a held copy of a live attempt",
                "  t= 21.4 s  rename: serve stopped, instance renamed, refused, move-deployment, started"}));
}

TEST(ExploreSchedule, EveryKindAddedLaterIsDrawnAndOnlyOneKindCanBeAskedFor) {
  std::set<FaultKind> drawn;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    for (const auto& a : draw_schedule(seed, ScheduleOptions{}).actions) drawn.insert(a.kind);
  }
  for (int k = kFirstLaterKind; k < kFaultKinds; ++k) EXPECT_TRUE(drawn.count(static_cast<FaultKind>(k))) << k;
  ScheduleOptions only;
  only.without = all_but({FaultKind::hostile_files});
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const Schedule s = draw_schedule(seed, only);
    EXPECT_TRUE(s.accounting) << seed;
    EXPECT_GE(s.faults, only.min_faults) << seed;
    for (const auto& a : s.actions) EXPECT_EQ(a.kind, FaultKind::hostile_files) << seed;
  }
  std::set<FaultKind> kinds;
  std::string error;
  EXPECT_TRUE(parse_kinds("reused_ids,idle_connections", kinds, error));
  EXPECT_EQ(kinds, (std::set<FaultKind>{FaultKind::reused_ids, FaultKind::idle_connections}));
  EXPECT_FALSE(parse_kinds("reused_ids,idle", kinds, error));
  EXPECT_EQ(error, "no fault kind \"idle\"");
}

}  // namespace
}  // namespace tpslurm::soak
