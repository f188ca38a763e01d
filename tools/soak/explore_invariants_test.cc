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

SimJob slurm_job(std::int64_t id, const std::string& name, bool started, const std::string& state = "") {
  SimJob job;
  job.id = id;
  job.name = name;
  job.state = !state.empty() ? state : started ? "COMPLETED" : "CANCELLED";
  job.started = started;
  return job;
}

const std::vector<std::string> kInstances{"explore"};

Invariants check(const std::vector<AttemptRow>& attempts, const std::map<AttemptKey, std::string>& retry,
                 const std::vector<SimJob>& jobs, const std::vector<std::string>& instances = kInstances) {
  return check_invariants(EndState{attempts, retry, jobs, instances, {}});
}

TEST(ExploreInvariants, ACleanEndIsZeroEverywhere) {
  const auto i = check({attempt("exp-001", 1, "succeeded", "succeeded")}, {},
                                  {slurm_job(1, "tp-explore-exp-001-1", true)});
  EXPECT_EQ(i.attempts, 1);
  EXPECT_EQ(i.duplicate_runs + i.runs_twice + i.ended_without_running + i.stuck, 0);
}

TEST(ExploreInvariants, TwoStartedCopiesAreADuplicateRunAndAHeldCopyCancelledIsNot) {
  const auto held = check({attempt("exp-001", 1, "succeeded", "succeeded")}, {},
                                     {slurm_job(1, "tp-explore-exp-001-1", true),
                                      slurm_job(2, "tp-explore-exp-001-1", false)},
                                     kInstances);
  EXPECT_EQ(held.duplicate_runs, 0);
  const auto ran = check({attempt("exp-001", 1, "succeeded", "succeeded")}, {},
                                    {slurm_job(1, "tp-explore-exp-001-1", true),
                                     slurm_job(2, "tp-explore-exp-001-1", true)},
                                    kInstances);
  EXPECT_EQ(ran.duplicate_runs, 1);
  EXPECT_EQ(ran.runs_twice, 0);
}

TEST(ExploreInvariants, ASecondRunIsFineOnlyAfterTheClustersFailureTheArchiveShows) {
  const std::vector<AttemptRow> rows{attempt("exp-001", 1, "failed", "succeeded"),
                                     attempt("exp-001", 2, "succeeded", "succeeded")};
  const std::vector<SimJob> node_fail{slurm_job(1, "tp-explore-exp-001-1", true, "NODE_FAIL"),
                                      slurm_job(2, "tp-explore-exp-001-2", true)};
  const std::string infra = "yes: NODE_FAIL on the job, the cluster's failure: retry 1 of 2 (TUNEPLANE_INFRA_RETRIES), "
                            "which costs none of the job's attempts";
  const auto retried = check(rows, {{"exp-001/1", infra}}, node_fail);
  EXPECT_EQ(retried.runs_twice, 0);
  EXPECT_EQ(retried.free_retries_of_a_run, 0);
  EXPECT_EQ(check(rows, {{"exp-001/1", "no: NODE_FAIL on the job, but a cancel was asked"}}, node_fail).runs_twice, 1);
  // The daemon's word that the cluster failed is not enough: the archive shows the job completed.
  const std::vector<SimJob> completed{slurm_job(1, "tp-explore-exp-001-1", true),
                                      slurm_job(2, "tp-explore-exp-001-2", true)};
  EXPECT_EQ(check(rows, {{"exp-001/1", infra}}, completed).runs_twice, 1);
  EXPECT_EQ(check(rows, {{"exp-001/1", "no: the program's own"}}, completed).runs_twice, 1);
  // An attempt the journal no longer holds (a restore's) counts by its Slurm job's name.
  const auto ghost = check({attempt("exp-002", 1, "succeeded", "succeeded")}, {},
                           {slurm_job(3, "tp-explore-exp-002-1", true), slurm_job(4, "tp-explore-exp-002-2", true)});
  EXPECT_EQ(ghost.runs_twice, 1);
}

TEST(ExploreInvariants, ARetrySayingAnAttemptNeverRanIsJudgedByTheArchive) {
  const std::string never_ran =
      "yes: Slurm forgot it before it started; it never ran, so it costs none of the job's attempts; attempt 2 "
      "starts when this one's cleanup has closed";
  const std::vector<AttemptRow> rows{attempt("exp-001", 1, "failed", "succeeded"),
                                     attempt("exp-001", 2, "succeeded", "succeeded")};
  // It was given nodes: the retry was not free, and the job ran twice.
  const auto ran = check(rows, {{"exp-001/1", never_ran}},
                         {slurm_job(1, "tp-explore-exp-001-1", true), slurm_job(2, "tp-explore-exp-001-2", true)});
  EXPECT_EQ(ran.free_retries_of_a_run, 1);
  EXPECT_EQ(ran.runs_twice, 1);
  ASSERT_FALSE(ran.findings.empty());
  EXPECT_EQ(ran.findings.front(),
            "free retry of a run: exp-001/1 was given nodes in Slurm (ended COMPLETED), but its retry decision says: " +
                never_ran);
  // Not given nodes (held, cancelled or forgotten before it started): the retry is what it says.
  const auto not_ran = check(rows, {{"exp-001/1", never_ran}},
                             {slurm_job(1, "tp-explore-exp-001-1", false), slurm_job(2, "tp-explore-exp-001-2", true)});
  EXPECT_EQ(not_ran.free_retries_of_a_run + not_ran.runs_twice, 0);
  // Even after the cluster's failure, "it never ran" is wrong for a job that was given nodes.
  EXPECT_EQ(check(rows, {{"exp-001/1", never_ran}},
                  {slurm_job(1, "tp-explore-exp-001-1", true, "NODE_FAIL"), slurm_job(2, "tp-explore-exp-001-2", true)})
                .free_retries_of_a_run,
            1);
  // Without a second attempt a free retry of a run is still counted (the job had attempts to spare).
  EXPECT_EQ(check({attempt("exp-003", 1, "failed", "failed")}, {{"exp-003/1", never_ran}},
                  {slurm_job(5, "tp-explore-exp-003-1", true)})
                .free_retries_of_a_run,
            1);
}

TEST(ExploreInvariants, AForeignJobCancelledOrReleasedIsCounted) {
  const std::vector<SimJob> jobs{slurm_job(7, "tp-explore-exp-001-1", true), slurm_job(7, "foreign-1", false, "PENDING"),
                                 slurm_job(8, "foreign-2", false, "CANCELLED"), slurm_job(9, "foreign-3", false, "PENDING")};
  std::vector<SimJob> with_hold = jobs;
  with_hold[1].held = true;
  EndState end{{attempt("exp-001", 1, "succeeded", "succeeded")}, {}, with_hold, kInstances,
               {{7, "foreign-1", true}, {8, "foreign-2", true}, {9, "foreign-3", true}, {10, "foreign-4", true}}};
  const auto i = check_invariants(end);
  EXPECT_EQ(i.foreign_touched, 3);  // cancelled, released, missing; foreign-1 is untouched
  EXPECT_EQ(i.slurm_jobs, 1);       // foreign names are not ours
  EXPECT_EQ(i.duplicate_runs + i.runs_twice + i.free_retries_of_a_run, 0);
}

TEST(ExploreInvariants, EndingLostWithoutRunningNeedsARetryUnlessCancelledOrRejected) {
  const auto lost = check({attempt("exp-001", 1, "lost", "lost")}, {},
                                     {slurm_job(1, "tp-explore-exp-001-1", false)});
  EXPECT_EQ(lost.ended_without_running, 1);
  const auto retried = check({attempt("exp-001", 1, "failed", "queued"), attempt("exp-001", 2, "succeeded",
                                                                                             "succeeded")},
                                        {}, {slurm_job(2, "tp-explore-exp-001-2", true)});
  EXPECT_EQ(retried.ended_without_running, 0);
  AttemptRow cancelled = attempt("exp-001", 1, "failed", "failed");
  cancelled.desire = "cancel";
  EXPECT_EQ(check({cancelled}, {}, {}).ended_without_running, 0);
  EXPECT_EQ(check({attempt("exp-001", 1, "rejected", "failed")}, {}, {}).ended_without_running,
            0);
  const auto ran = check({attempt("exp-001", 1, "lost", "lost")}, {},
                                    {slurm_job(1, "tp-explore-exp-001-1", true)});
  EXPECT_EQ(ran.ended_without_running, 0);
}

TEST(ExploreInvariants, AJobNotEndedOrACleanupOpenIsStuck) {
  EXPECT_EQ(check({attempt("exp-001", 1, "running", "running", "none")}, {}, {}).stuck, 1);
  EXPECT_EQ(check({attempt("exp-001", 1, "succeeded", "succeeded", "sealing")}, {}, {}).stuck,
            1);
  AttemptRow queued;
  queued.job_id = "exp-002";
  queued.job_phase = "queued";
  EXPECT_EQ(check({queued}, {}, {}).stuck, 1);
}

TEST(ExploreInvariants, JobsOfARenamedInstanceAreStillOurs) {
  AttemptRow renamed = attempt("exp-001", 2, "succeeded", "succeeded");
  renamed.tag_name = "tp-exploreb-exp-001-2";
  const auto i = check({attempt("exp-001", 1, "failed", "queued"), renamed}, {},
                                  {slurm_job(1, "tp-explore-exp-001-1", true),
                                   slurm_job(2, "tp-exploreb-exp-001-2", true)},
                                  {"explore", "exploreb"});
  EXPECT_EQ(i.slurm_jobs, 2);
  EXPECT_EQ(i.runs_twice, 1);  // attempt 1 decided no retry
}

}  // namespace
}  // namespace tpslurm::soak
