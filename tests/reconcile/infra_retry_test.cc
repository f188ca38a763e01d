// The cluster's failures against the simulator in every dialect: an attempt ended PREEMPTED,
// NODE_FAIL or BOOT_FAIL fails with its own failure phase and is retried on
// TUNEPLANE_INFRA_RETRIES, never on the request's max_attempts; each retry waits its back-off
// (doubling) from the end of the cleanup; when the retries are spent the job fails and says so;
// a cancel asked meanwhile ends it without a retry. The program's own failure is still never
// retried.
#include "operations/job_views.h"
#include "reconcile_fixture.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::CleanupStep;
using model::JobPhase;
using std::chrono::seconds;

class InfraRetryTest : public ReconcileTest, public ::testing::WithParamInterface<const char*> {
 protected:
  void SetUp() override {
    settings.infra_retries = 2;
    settings.infra_retry_backoff = seconds(30);
    start({"--release", GetParam()}, "auto");
  }
  // Attempt `number` of the job, released and running in Slurm.
  std::uint32_t running(const std::string& job_id, int number) {
    once();
    const auto a = attempt(job_id, number);
    EXPECT_EQ(a.state, AttemptState::pending) << "attempt " << number;
    step(*a.slurm_job_id, R"({"state": "RUNNING"})");
    once();
    EXPECT_EQ(attempt(job_id, number).state, AttemptState::running);
    return *a.slurm_job_id;
  }
  long infra_failures_shown(const std::string& job_id) {
    auto view = operations::job_status(journal(), job_id);
    EXPECT_TRUE(view.ok() && view->has_value());
    return (**view).at("infra_failures").as_int64();
  }
  std::size_t attempts_of(const std::string& job_id) { return journal().attempts(job_id)->size(); }
  // Time passes for the daemon (its monotonic clock: the back-off) and for Slurm alike.
  void wait_out(seconds s) {
    pass_local_time(s);
    advance_sim(static_cast<int>(s.count()));
  }
};

TEST_P(InfraRetryTest, TheClustersFailuresAreRetriedOnTheirOwnBudgetWithABackOffUntilItIsSpent) {
  add_job("j1", Shape::cpu_only, 1);  // the request allows no retry of its own
  std::uint32_t id = running("j1", 1);

  // A node fails: attempt 1 fails as the cluster's failure; attempt 2 waits 30 s from the cleanup.
  step(id, R"({"state": "NODE_FAIL"})");
  once();
  auto first = attempt("j1", 1);
  EXPECT_EQ(first.state, AttemptState::failed);
  EXPECT_EQ(first.failure_phase, "node_failure");
  EXPECT_NE(first.outcome_reason.find("a node it ran on failed, not the program's failure"), std::string::npos)
      << first.outcome_reason;
  EXPECT_EQ(first.cleanup, CleanupStep::closed);
  const std::string detail = event_detail("j1", "failed");
  EXPECT_NE(detail.find("\"retry\":\"yes"), std::string::npos) << detail;
  EXPECT_NE(detail.find("\"infra_retry\":\"1/2\""), std::string::npos) << detail;
  EXPECT_EQ(job("j1").phase, JobPhase::queued);
  EXPECT_EQ(job("j1").max_attempts, 2) << "the retry costs none of the request's attempts: one is granted";
  EXPECT_EQ(infra_failures_shown("j1"), 1);
  wait_out(seconds(25));
  once();
  EXPECT_EQ(attempts_of("j1"), 1u) << "the back-off has 5 s to go";
  wait_out(seconds(6));

  // Preempted: attempt 2 fails; attempt 3 waits twice as long, 60 s.
  id = running("j1", 2);
  step(id, R"({"state": "PREEMPTED"})");
  once();
  EXPECT_EQ(attempt("j1", 2).failure_phase, "preemption");
  EXPECT_NE(attempt("j1", 2).outcome_reason.find("its nodes went to a job of higher priority"), std::string::npos);
  EXPECT_NE(event_detail("j1", "failed").find("\"infra_retry\":\"2/2\""), std::string::npos);
  wait_out(seconds(55));
  once();
  EXPECT_EQ(attempts_of("j1"), 2u) << "the second back-off is 60 s";
  wait_out(seconds(6));

  // A node does not boot: the two retries are spent, the job fails and says so.
  id = running("j1", 3);
  step(id, R"({"state": "BOOT_FAIL"})");
  once();
  EXPECT_EQ(attempt("j1", 3).failure_phase, "boot_failure");
  const std::string last = event_detail("j1", "failed");
  EXPECT_NE(last.find("\"retry\":\"no: BOOT_FAIL on the job, but the job's retries after the cluster's failures are "
                      "spent: 2 of 2 (TUNEPLANE_INFRA_RETRIES)\""),
            std::string::npos)
      << last;
  EXPECT_EQ(job("j1").phase, JobPhase::failed);
  EXPECT_EQ(job("j1").max_attempts, 3);
  EXPECT_EQ(infra_failures_shown("j1"), 3);
  wait_out(seconds(3600));
  once();
  EXPECT_EQ(attempts_of("j1"), 3u);
  EXPECT_EQ(slurm_job_count("j1", 4), 0);
}

TEST_P(InfraRetryTest, TheProgramsOwnFailureStillEndsTheJobAndACancelStopsTheRetry) {
  add_job("own", Shape::cpu_only, 3);
  const std::uint32_t own = running("own", 1);
  step(own, R"({"state": "FAILED", "exit_code": 3})");
  once();
  EXPECT_EQ(job("own").phase, JobPhase::failed) << "the program's exit is never retried";
  EXPECT_EQ(infra_failures_shown("own"), 0);

  add_job("stop", Shape::cpu_only, 1);
  const std::uint32_t stop = running("stop", 1);
  step(stop, R"({"state": "PREEMPTED"})");
  once();
  ASSERT_EQ(job("stop").phase, JobPhase::queued);
  set_desire_cancel("stop");
  once();
  EXPECT_EQ(job("stop").phase, JobPhase::cancelled) << "a job waiting out its back-off is cancelled at once";
  EXPECT_EQ(attempts_of("stop"), 1u);
}

INSTANTIATE_TEST_SUITE_P(Releases, InfraRetryTest, every_release(), release_test_name);

}  // namespace
}  // namespace tpslurm::reconcile::testing
