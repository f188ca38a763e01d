// A Slurm job id that slurmctld gave to another job after it let the attempt's go (its ids reset
// by a restart that lost its state, as /sim/ids/reset does): the record at the attempt's id does
// not carry the attempt's tag, so it is not the attempt's. The attempt is concluded as a job
// Slurm forgot (slurmdbd, logs/), an `slurm.id_reused` event says why, and the other job is
// never cancelled, released or signalled, nor its state taken for the attempt's — before
// identify, before the release, while followed, and when a cancel is asked.
#include "reconcile_fixture.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::CleanupStep;
using model::JobPhase;

class ReusedIdTest : public ReconcileTest {
 protected:
  // slurmctld loses every job and gives `id` to someone else's job, in `state`.
  void give_id_to_another_job(std::uint32_t id, const std::string& state) {
    auto reset = sim->control(slurm::HttpMethod::post, "/sim/ids/reset",
                              R"({"next_id": )" + std::to_string(id) + R"(, "forget_jobs": true})");
    ASSERT_TRUE(reset.ok()) << reset.error().message();
    auto made = sim->control(slurm::HttpMethod::post, "/sim/jobs/bulk",
                             R"({"count": 1, "state": ")" + state +
                                 R"(", "names": ["someone-else"], "comments": ["not ours"],
                                 "working_directories": ["/home/someone"]})");
    ASSERT_TRUE(made.ok()) << made.error().message();
    ASSERT_EQ(made->at("first_job_id").to_number<std::int64_t>(), static_cast<std::int64_t>(id));
  }

  // The other job at `id` is as it was made: in `state`, never signalled, named as before.
  void expect_untouched(std::uint32_t id, const std::string& state) {
    const boost::json::value view = sim_view(id);
    ASSERT_TRUE(view.is_object()) << id;
    EXPECT_EQ(view.at("name").as_string(), "someone-else");
    EXPECT_EQ(view.at("state").as_string(), state) << boost::json::serialize(view);
    EXPECT_EQ(view.at("last_signal").to_number<std::int64_t>(), 0) << boost::json::serialize(view);
  }

  // Requests that reached `what` ("DELETE", "POST") on a job's own path, in every version.
  std::int64_t job_requests(const std::string& method) {
    std::int64_t n = 0;
    for (const char* version : {"v0.0.38", "v0.0.40", "v0.0.41", "v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"}) {
      n += sim->route_count(method + " /slurm/" + version + "/job/{job_id}");
    }
    return n;
  }

  // Time enough for every spaced retry so far to be due.
  void let_retries_fall_due() { pass_local_time(std::chrono::minutes(6)); }

  // j1 submitted, but identify's read (by `dialect`) lost once: it stays submitted, unidentified.
  void submitted_unidentified(const std::string& dialect) {
    fault(R"({"kind": "error_response", "status": 500, "method": "GET", "path_prefix": "/slurm/)" + dialect +
          R"(/job/", "count": 1})");
    add_job("j1", Shape::cpu_only);
    once();
    ASSERT_EQ(attempt("j1").state, AttemptState::submitted);
    ASSERT_TRUE(attempt("j1").identified_at.empty());
  }
};

// Before identify: the receipt's id, read back, is another job's. It was never the attempt's
// (none of its marks match): the attempt's own job, held and forgotten, never ran.
TEST_F(ReusedIdTest, AReceiptsIdThatNowNamesAnotherJobConcludesTheAttemptWithoutTouchingThatJob) {
  start();
  submitted_unidentified("v0.0.45");
  const std::uint32_t id = attempt("j1").slurm_job_id.value_or(0);
  give_id_to_another_job(id, "RUNNING");
  const std::int64_t updates = job_requests("POST");
  let_retries_fall_due();
  once();
  const auto first = attempt("j1", 1);
  EXPECT_EQ(first.state, AttemptState::failed) << "its job never started, and slurmctld forgot it";
  EXPECT_NE(first.outcome_reason.find("before it started"), std::string::npos) << first.outcome_reason;
  EXPECT_EQ(first.cleanup, CleanupStep::closed);
  EXPECT_EQ(count_events("j1", "slurm.id_reused"), 1);
  EXPECT_EQ(count_events("j1", "anomaly"), 0);
  EXPECT_EQ(job("j1").max_attempts, 2) << "it never ran: the retry costs none of the job's attempts";
  EXPECT_EQ(attempt("j1", 2).state, AttemptState::pending);
  expect_untouched(id, "RUNNING");
  EXPECT_EQ(job_requests("DELETE"), 0);
  EXPECT_EQ(job_requests("POST") - updates, 1) << "only attempt 2's own release";
}

// Identified, but the release was refused (the token turned bad after identify's read); then
// the id went to another job. 25.11 releases by id after checking the SLUID and the tag.
TEST_F(ReusedIdTest, AnIdThatWentToAnotherJobBeforeTheReleaseIsNeverReleased) {
  start({"--release", "25.11.7"}, "v0.0.44");
  submitted_unidentified("v0.0.44");
  turn_token_bad_after(1);  // identify's read goes through, the release does not
  let_retries_fall_due();
  once();
  mend_token();
  ASSERT_EQ(attempt("j1").state, AttemptState::submitted);
  ASSERT_FALSE(attempt("j1").identified_at.empty());
  ASSERT_TRUE(attempt("j1").released_at.empty());
  const std::uint32_t id = attempt("j1").slurm_job_id.value_or(0);
  give_id_to_another_job(id, "PENDING");
  const std::int64_t updates = job_requests("POST");
  let_retries_fall_due();
  once();
  EXPECT_TRUE(attempt("j1", 1).released_at.empty()) << "the other job's state is not the attempt's release";
  EXPECT_EQ(attempt("j1", 1).state, AttemptState::failed);
  EXPECT_EQ(count_events("j1", "slurm.id_reused"), 1);
  expect_untouched(id, "PENDING");
  EXPECT_EQ(job_requests("POST") - updates, 1) << "only attempt 2's own release";
}

// Once followed, in every release's dialect (jobs/state, or 22.05's listing).
class ReusedIdReleaseTest : public ReusedIdTest, public ::testing::WithParamInterface<const char*> {
 protected:
  void SetUp() override { start({"--release", GetParam()}, "auto"); }

  // j1 released and pending in Slurm; returns its job id.
  std::uint32_t pending_in_slurm() {
    add_job("j1", Shape::cpu_only);
    once();
    EXPECT_EQ(attempt("j1").state, AttemptState::pending);
    return attempt("j1").slurm_job_id.value_or(0);
  }
};

// While the daemon was down the job ran, wrote exit.json, and left slurmctld, which gave its id
// to another job that is RUNNING too: the bulk poll, which has only ids and states, sees no
// change. The first cycle's full listing shows the record without the tag.
TEST_P(ReusedIdReleaseTest, AFollowedAttemptWhoseIdWentToAnotherJobInTheSameStateEndsFromItsEvidence) {
  const std::uint32_t id = pending_in_slurm();
  step(id, R"({"state": "RUNNING"})");
  once();
  ASSERT_EQ(attempt("j1").state, AttemptState::running);
  restart();
  tpslurm::testing::write_test_file(attempt("j1").attempt_dir + "/logs/exit.json", R"({"exit_status": 0})");
  give_id_to_another_job(id, "RUNNING");
  once();
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::succeeded) << GetParam();
  EXPECT_NE(event_detail("j1", "succeeded").find("exit.json"), std::string::npos) << event_detail("j1", "succeeded");
  EXPECT_EQ(a.cleanup, CleanupStep::closed);
  EXPECT_EQ(count_events("j1", "slurm.id_reused"), 1);
  expect_untouched(id, "RUNNING");
}

// A cancel asked of an attempt whose id now names another job: the attempt's job is no longer in
// slurmctld, so the attempt ends cancelled, and the other job is not killed.
TEST_P(ReusedIdReleaseTest, ACancelEndsTheAttemptAndNeverKillsTheJobThatTookItsId) {
  const std::uint32_t id = pending_in_slurm();
  restart();
  give_id_to_another_job(id, "PENDING");
  set_desire_cancel("j1");
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::cancelled) << GetParam();
  EXPECT_EQ(job("j1").phase, JobPhase::cancelled);
  expect_untouched(id, "PENDING");
}

// An attempt past the pending limit whose id another job (pending too) has taken: the poll's
// read of the pending attempt's record for why it waits (22.05: the poll itself) finds the
// other job at the id before the limit's cancel is sent, and the attempt is concluded from its
// evidence; the other job is never touched.
TEST_P(ReusedIdReleaseTest, APendingLimitThatFindsAnotherJobAtTheIdConcludesTheAttempt) {
  settings.max_pending = std::chrono::minutes(30);
  const std::uint32_t id = pending_in_slurm();
  give_id_to_another_job(id, "PENDING");
  pass_local_time(std::chrono::minutes(31));
  once();
  const auto a = attempt("j1", 1);
  EXPECT_EQ(a.state, AttemptState::failed) << GetParam();
  EXPECT_NE(a.outcome_reason.find("before it started"), std::string::npos) << a.outcome_reason;
  EXPECT_EQ(count_events("j1", "slurm.id_reused"), 1);
  expect_untouched(id, "PENDING");
}

INSTANTIATE_TEST_SUITE_P(Releases, ReusedIdReleaseTest, every_release(), release_test_name);

}  // namespace
}  // namespace tpslurm::reconcile::testing
