// A job slurmctld forgets before the reconciler has followed it (a controller that lost its
// state, a restore, a fast job in direct mode): the attempt leaves `submitted` through the same
// evidence as a job that vanished while followed — slurmdbd, exit.json, then a clear end — its
// retries spaced and said once, a cancel ends it, and a held job that never ran is retried at
// no cost to the job's attempts.
#include <filesystem>
#include <thread>

#include "reconcile_fixture.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::CleanupStep;
using model::JobPhase;

class ForgottenTest : public ReconcileTest {
 protected:
  // The job is submitted, but its identify's read is lost: it stays submitted, unidentified.
  std::uint32_t submitted_unidentified(const std::string& job_id, int max_attempts = 1) {
    fault(R"({"kind": "error_response", "status": 500, "method": "GET", "path_prefix": "/slurm/v0.0.45/job/", "count": 1})");
    add_job(job_id, Shape::cpu_only, max_attempts);
    once();
    const auto a = attempt(job_id);
    EXPECT_EQ(a.state, AttemptState::submitted);
    EXPECT_TRUE(a.identified_at.empty());
    return a.slurm_job_id.value_or(0);
  }
  // Time enough for every spaced retry so far to be due.
  void let_retries_fall_due() { pass_local_time(std::chrono::minutes(6)); }
};

TEST_F(ForgottenTest, AHeldJobSlurmForgotBeforeIdentifyIsRetriedAtNoCost) {
  start();
  submitted_unidentified("j1");
  forget_slurm_jobs();
  let_retries_fall_due();
  once();
  const auto first = attempt("j1", 1);
  EXPECT_EQ(first.state, AttemptState::failed);
  EXPECT_NE(first.outcome_reason.find("before it started"), std::string::npos) << first.outcome_reason;
  EXPECT_EQ(first.cleanup, CleanupStep::closed);
  EXPECT_NE(event_detail("j1", "failed").find("costs none of the job's attempts"), std::string::npos);
  EXPECT_EQ(job("j1").max_attempts, 2) << "the attempt that never ran is granted back";
  EXPECT_EQ(attempt("j1", 2).state, AttemptState::pending);
  EXPECT_EQ(count_events("j1", "anomaly"), 0);
  EXPECT_EQ(sim->stat("submits_received"), 2);
}

// Released, but forgotten before it started: nothing shows it ran (no record with nodes, an
// empty logs/), and Slurm cannot start a job it no longer knows.
TEST_F(ForgottenTest, AReleasedJobSlurmForgotBeforeItStartedIsRetriedAtNoCost) {
  start();
  add_job("j1", Shape::cpu_only);
  once();
  ASSERT_EQ(attempt("j1").state, AttemptState::pending);
  ASSERT_FALSE(attempt("j1").released_at.empty());
  forget_slurm_jobs();
  let_retries_fall_due();
  once();
  EXPECT_EQ(attempt("j1", 1).state, AttemptState::failed);
  EXPECT_NE(attempt("j1", 1).outcome_reason.find("before it started"), std::string::npos);
  EXPECT_EQ(attempt("j1", 2).state, AttemptState::pending);
  EXPECT_EQ(job("j1").max_attempts, 2);
}

TEST_F(ForgottenTest, AForgottenJobThatLeftItsStartEvidenceIsLostNotRetried) {
  start();
  submitted_unidentified("j1", 3);
  tpslurm::testing::write_test_file(attempt("j1").attempt_dir + "/logs/slurm-job.json", R"({"job_id": 1})");
  forget_slurm_jobs();
  let_retries_fall_due();
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::lost) << "its batch script started: it may have run";
  EXPECT_EQ(job("j1").phase, JobPhase::lost);
  EXPECT_EQ(journal().attempts("j1")->size(), 1u);
}

TEST_F(ForgottenTest, WhileASourceDoesNotAnswerItWaitsSaysSoOnceAndACancelEndsIt) {
  start();
  submitted_unidentified("j1");
  forget_slurm_jobs();
  fault(R"({"kind": "accounting_outage"})");
  for (int i = 0; i < 4; ++i) {
    let_retries_fall_due();
    once();
  }
  EXPECT_EQ(attempt("j1").state, AttemptState::submitted) << "nothing proves how it ended";
  EXPECT_EQ(count_events("j1", "slurm.forgot"), 1) << "said once, however often it is looked at";
  set_desire_cancel("j1");
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::cancelled);
  EXPECT_EQ(job("j1").phase, JobPhase::cancelled);
}

// The daemon wakes every live job whenever the journal changes and every cycle: the search for
// a forgotten job still runs only when its spaced retry is due.
TEST_F(ForgottenTest, TheDaemonAsksAgainSpacedNotOnEveryWake) {
  settings.poll_interval = std::chrono::seconds(1);
  start();
  submitted_unidentified("j1");
  for (int i = 0; i < 4; ++i) add_job("busy-" + std::to_string(i), Shape::cpu_only);
  forget_slurm_jobs();
  fault(R"({"kind": "accounting_outage"})");
  const std::int64_t searches_before = sim->route_count("GET /slurmdb/v0.0.45/jobs");
  start_daemon();
  std::this_thread::sleep_for(std::chrono::seconds(4));
  stop_daemon();
  EXPECT_EQ(attempt("j1").state, AttemptState::submitted);
  EXPECT_EQ(count_events("j1", "slurm.forgot"), 1);
  EXPECT_EQ(sim->route_count("GET /slurmdb/v0.0.45/jobs") - searches_before, 1)
      << "the first look, and the next one 5 s later at the earliest";
}

// Direct mode: a fast job ran, ended and left slurmctld before identify.
TEST_F(ForgottenTest, ADirectJobThatRanAndLeftBeforeIdentifyEndsFromSlurmdbd) {
  settings.submit_mode = model::SubmitMode::direct;
  start();
  const std::uint32_t id = submitted_unidentified("j1");
  step(id, R"({"state": "RUNNING"})");
  step(id, R"({"state": "COMPLETED"})");
  advance_sim(600);  // past MinJobAge
  let_retries_fall_due();
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::succeeded);
  EXPECT_NE(event_detail("j1", "succeeded").find("slurmdbd"), std::string::npos);
}

// scancel while the daemon was down: the batch script saw SIGTERM and wrote exit status 143;
// slurmdbd knows it was a cancel.
TEST_F(ForgottenTest, AJobCancelledWhileTheDaemonWasDownEndsCancelledNotFailed) {
  start();
  add_job("j1", Shape::cpu_only);
  once();
  const auto a = attempt("j1");
  ASSERT_EQ(a.state, AttemptState::pending);
  step(*a.slurm_job_id, R"({"state": "RUNNING"})");
  once();
  restart();
  tpslurm::testing::write_test_file(a.attempt_dir + "/logs/exit.json", R"({"exit_status": 143, "failed_phase": "program"})");
  step(*a.slurm_job_id, R"({"state": "CANCELLED", "signal": 15})");
  advance_sim(600);
  once();
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::cancelled);
  EXPECT_EQ(job("j1").phase, JobPhase::cancelled);
}

// slurmctld purged a job whose end slurmctld's DBD agent queue still holds: slurmdbd's silence
// proves nothing until the queue is empty, and then slurmdbd tells the end.
TEST_F(ForgottenTest, AJobPurgedWhileSlurmdbdCatchesUpIsNotLost) {
  start();
  add_job("j1", Shape::cpu_only);
  once();
  const std::uint32_t id = attempt("j1").slurm_job_id.value_or(0);
  step(id, R"({"state": "RUNNING"})");
  once();
  fault(R"({"kind": "accounting_lag", "seconds": 36000})");
  step(id, R"({"state": "COMPLETED"})");
  advance_sim(600);  // past MinJobAge: slurmctld forgets it; slurmdbd has not heard of its end
  for (int i = 0; i < 3; ++i) {
    let_retries_fall_due();
    once();
  }
  EXPECT_EQ(attempt("j1").state, AttemptState::running) << "absence is no evidence while slurmdbd is behind";
  EXPECT_EQ(count_events("j1", "slurm.forgot"), 1);
  ASSERT_TRUE(sim->control(slurm::HttpMethod::del, "/sim/faults").ok());
  let_retries_fall_due();
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::succeeded);
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
