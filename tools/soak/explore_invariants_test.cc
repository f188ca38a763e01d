// The explorer's invariants on hand-made end states: each case raises its own figure only.
#include <gtest/gtest.h>

#include "explore_invariants.h"

namespace tpslurm::soak {
namespace {

AttemptRow attempt(const std::string& job, int number, const std::string& state, const std::string& phase,
                   const std::string& cleanup = "closed") {
  AttemptRow a;
  a.job_id = job;
  a.number = number;
  a.state = state;
  a.cleanup = cleanup;
  a.job_phase = phase;
  a.desire = "run";
  a.tag_name = "tp-explore-" + job + "-" + std::to_string(number);
  return a;
}

SimJob slurm_job(std::int64_t id, const std::string& name, bool started) {
  SimJob job;
  job.id = id;
  job.name = name;
  job.state = started ? "COMPLETED" : "CANCELLED";
  job.started = started;
  return job;
}

const std::vector<std::string> kInstances{"explore"};

TEST(ExploreInvariants, ACleanEndIsZeroEverywhere) {
  const auto i = check_invariants({attempt("exp-001", 1, "succeeded", "succeeded")}, {},
                                  {slurm_job(1, "tp-explore-exp-001-1", true)}, kInstances);
  EXPECT_EQ(i.attempts, 1);
  EXPECT_EQ(i.duplicate_runs + i.runs_twice + i.ended_without_running + i.stuck, 0);
}

TEST(ExploreInvariants, TwoStartedCopiesAreADuplicateRunAndAHeldCopyCancelledIsNot) {
  const auto held = check_invariants({attempt("exp-001", 1, "succeeded", "succeeded")}, {},
                                     {slurm_job(1, "tp-explore-exp-001-1", true),
                                      slurm_job(2, "tp-explore-exp-001-1", false)},
                                     kInstances);
  EXPECT_EQ(held.duplicate_runs, 0);
  const auto ran = check_invariants({attempt("exp-001", 1, "succeeded", "succeeded")}, {},
                                    {slurm_job(1, "tp-explore-exp-001-1", true),
                                     slurm_job(2, "tp-explore-exp-001-1", true)},
                                    kInstances);
  EXPECT_EQ(ran.duplicate_runs, 1);
  EXPECT_EQ(ran.runs_twice, 0);
}

TEST(ExploreInvariants, TwoAttemptsRunAreFineOnlyAfterARetryDecision) {
  const std::vector<AttemptRow> rows{attempt("exp-001", 1, "failed", "succeeded"),
                                     attempt("exp-001", 2, "succeeded", "succeeded")};
  const std::vector<SimJob> jobs{slurm_job(1, "tp-explore-exp-001-1", true), slurm_job(2, "tp-explore-exp-001-2", true)};
  EXPECT_EQ(check_invariants(rows, {{"exp-001/1", "yes: NODE_FAIL"}}, jobs, kInstances).runs_twice, 0);
  const auto i = check_invariants(rows, {{"exp-001/1", "no: the program's own"}}, jobs, kInstances);
  EXPECT_EQ(i.runs_twice, 1);
  // An attempt the journal no longer holds (a restore's) counts by its Slurm job's name.
  const auto ghost = check_invariants({attempt("exp-002", 1, "succeeded", "succeeded")}, {},
                                      {slurm_job(3, "tp-explore-exp-002-1", true),
                                       slurm_job(4, "tp-explore-exp-002-2", true)},
                                      kInstances);
  EXPECT_EQ(ghost.runs_twice, 1);
}

TEST(ExploreInvariants, EndingLostWithoutRunningNeedsARetryUnlessCancelledOrRejected) {
  const auto lost = check_invariants({attempt("exp-001", 1, "lost", "lost")}, {},
                                     {slurm_job(1, "tp-explore-exp-001-1", false)}, kInstances);
  EXPECT_EQ(lost.ended_without_running, 1);
  const auto retried = check_invariants({attempt("exp-001", 1, "failed", "queued"), attempt("exp-001", 2, "succeeded",
                                                                                             "succeeded")},
                                        {}, {slurm_job(2, "tp-explore-exp-001-2", true)}, kInstances);
  EXPECT_EQ(retried.ended_without_running, 0);
  AttemptRow cancelled = attempt("exp-001", 1, "failed", "failed");
  cancelled.desire = "cancel";
  EXPECT_EQ(check_invariants({cancelled}, {}, {}, kInstances).ended_without_running, 0);
  EXPECT_EQ(check_invariants({attempt("exp-001", 1, "rejected", "failed")}, {}, {}, kInstances).ended_without_running,
            0);
  const auto ran = check_invariants({attempt("exp-001", 1, "lost", "lost")}, {},
                                    {slurm_job(1, "tp-explore-exp-001-1", true)}, kInstances);
  EXPECT_EQ(ran.ended_without_running, 0);
}

TEST(ExploreInvariants, AJobNotEndedOrACleanupOpenIsStuck) {
  EXPECT_EQ(check_invariants({attempt("exp-001", 1, "running", "running", "none")}, {}, {}, kInstances).stuck, 1);
  EXPECT_EQ(check_invariants({attempt("exp-001", 1, "succeeded", "succeeded", "sealing")}, {}, {}, kInstances).stuck,
            1);
  AttemptRow queued;
  queued.job_id = "exp-002";
  queued.job_phase = "queued";
  EXPECT_EQ(check_invariants({queued}, {}, {}, kInstances).stuck, 1);
}

TEST(ExploreInvariants, JobsOfARenamedInstanceAreStillOurs) {
  AttemptRow renamed = attempt("exp-001", 2, "succeeded", "succeeded");
  renamed.tag_name = "tp-exploreb-exp-001-2";
  const auto i = check_invariants({attempt("exp-001", 1, "failed", "queued"), renamed}, {},
                                  {slurm_job(1, "tp-explore-exp-001-1", true),
                                   slurm_job(2, "tp-exploreb-exp-001-2", true)},
                                  {"explore", "exploreb"});
  EXPECT_EQ(i.slurm_jobs, 2);
  EXPECT_EQ(i.runs_twice, 1);  // attempt 1 decided no retry
}

}  // namespace
}  // namespace tpslurm::soak
