// The submit protocol end to end against the simulator (docs/architecture.md §4): held submit,
// identify, release; every classification of the answer; cancel before and after sending.
#include <sys/stat.h>

#include <filesystem>

#include "reconcile_fixture.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::JobPhase;

bool exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

class SubmitProtocolTest : public ReconcileTest {};

TEST_F(SubmitProtocolTest, AJobIsSubmittedHeldIdentifiedAndOnlyThenReleased) {
  start();
  add_job("j1", Shape::gpu_single);
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::pending);
  ASSERT_TRUE(a.slurm_job_id.has_value());
  EXPECT_EQ(a.submit_mode, "held");
  EXPECT_FALSE(a.identified_at.empty());
  EXPECT_FALSE(a.released_at.empty());
  EXPECT_FALSE(a.sluid.empty()) << "26.05 records carry SLUIDs";
  EXPECT_EQ(a.found_by, "receipt");
  EXPECT_EQ(job("j1").phase, JobPhase::pending);
  EXPECT_EQ(slurm_job_count("j1"), 1);
  const auto view = sim_view(*a.slurm_job_id);
  EXPECT_FALSE(view.at("hold").as_bool()) << view;
  EXPECT_EQ(sim->stat("submits_received"), 1);
  // The order the journal tells: intent before the receipt, identify before release.
  const auto events = story("j1");
  const auto at = [&](const std::string& e) { return std::find(events.begin(), events.end(), e) - events.begin(); };
  EXPECT_LT(at("attempt.state:prepared->submitting"), at("attempt.state:submitting->submitted"));
  EXPECT_LT(at("attempt.state:submitting->submitted"), at("identified"));
  EXPECT_LT(at("identified"), at("released"));
  EXPECT_LT(at("released"), static_cast<long>(events.size()));
}

// An attempt whose submit can go as soon as its directory is written journals `prepared` and
// its intent in one write, still as two events in their order.
TEST_F(SubmitProtocolTest, APreparedAttemptWhoseSubmitCanGoJournalsItsIntentInTheSameWrite) {
  start();
  add_job("j1", Shape::cpu_only);
  once();
  ASSERT_EQ(attempt("j1").state, AttemptState::pending);
  EXPECT_EQ(once_counts().writes, 6) << "seven when prepared and the intent were two writes";
  const auto events = story("j1");
  const auto at = [&](const std::string& e) { return std::find(events.begin(), events.end(), e) - events.begin(); };
  EXPECT_EQ(at("attempt.state:preparing->prepared") + 1, at("attempt.state:prepared->submitting"));
}

// The release right after identify in one pass goes by the records identify has just read and
// checked: the job is read once before its release (then once more by the first status poll).
TEST_F(SubmitProtocolTest, AHeldSubmitReadsTheJobOnceBeforeItsRelease) {
  start();
  add_job("j1", Shape::three_pools);
  once();
  ASSERT_FALSE(attempt("j1").released_at.empty());
  EXPECT_EQ(sim->stat("updates_received"), 3) << "every component released by its own id";
  EXPECT_EQ(sim->route_count("GET /slurm/v0.0.45/job/{job_id}"), 2) << "identify's read and the status poll's";
}

TEST_F(SubmitProtocolTest, AReleasedJobIsNeverSubmittedOrReleasedAgain) {
  start();
  add_job("j1", Shape::cpu_only);
  once();
  once();
  once();
  EXPECT_EQ(sim->stat("submits_received"), 1);
  EXPECT_EQ(sim->stat("updates_received"), 1);
  EXPECT_EQ(slurm_job_count("j1"), 1);
}

TEST_F(SubmitProtocolTest, DirectModeSubmitsRunnable) {
  settings.submit_mode = model::SubmitMode::direct;
  start();
  add_job("j1", Shape::cpu_only);
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.submit_mode, "direct");
  EXPECT_TRUE(a.released_at.empty());
  EXPECT_FALSE(a.identified_at.empty());
  EXPECT_EQ(sim->stat("updates_received"), 0);
  EXPECT_FALSE(sim_view(*a.slurm_job_id).at("hold").as_bool());
}

TEST_F(SubmitProtocolTest, AHetjobIsOneSlurmJobWithEveryComponentIdentified) {
  start();
  add_job("h1", Shape::three_pools);
  once();
  const auto a = attempt("h1");
  EXPECT_EQ(a.state, AttemptState::pending);
  EXPECT_EQ(slurm_jobs("h1").size(), 3u);
  EXPECT_EQ(slurm_job_count("h1"), 1);
  EXPECT_EQ(a.het_job_id, a.slurm_job_id);
  EXPECT_NE(a.components.find("\"offset\":2"), std::string::npos) << a.components;
  for (const auto& component : slurm_jobs("h1")) EXPECT_FALSE(component.requeue) << component.job_id;
}

// While submits hold off nothing would be sent: a job whose turn comes after two submit
// answers in a row were lost in the same cycle stays queued, with no attempt begun and no
// intent journaled and taken back (the soak found 15 such round trips per attempt under faults).
TEST_F(SubmitProtocolTest, WhileTheRequestBudgetBacksOffNoIntentIsJournaled) {
  client_asks_budget = true;
  start();
  add_job("j1", Shape::cpu_only);
  add_job("j2", Shape::cpu_only);
  add_job("j3", Shape::cpu_only);
  fault(R"({"kind": "drop_response", "method": "POST", "path_prefix": "/slurm/v0.0.45/job/submit", "count": 2})");
  once();
  EXPECT_EQ(attempt("j1").found_by, "search") << "its answer was lost";
  EXPECT_EQ(attempt("j2").found_by, "search") << "the second in a row: submits hold off";
  EXPECT_TRUE(journal().attempts("j3")->empty()) << "no attempt is begun while submits hold off";
  EXPECT_EQ(job("j3").phase, JobPhase::queued);
  EXPECT_EQ(story("j3"), std::vector<std::string>{"job.created:->queued"});
  EXPECT_EQ(sim->stat("submits_received"), 2);
  step_local_clock(std::chrono::seconds(2));
  once();
  EXPECT_TRUE(attempt("j3").slurm_job_id.has_value()) << "submitted once the back-off ended";
}

// A sweep larger than one window of the request budget: each submit takes its call before its
// intent is journaled, and leaves room for its identify and release, so a submit the window has
// no room for waits for the next one without a row changed or an event (no `queued` <->
// `submitting` flips in the platform's feed), and every job is sent once. The local clock
// stands still: each cycle of once() starts a new window.
TEST_F(SubmitProtocolTest, ASubmitTheWindowHasNoRoomForJournalsNothingAndWaitsForTheNextWindow) {
  client_asks_budget = true;
  budget_limits.calls_per_second = 12;
  start();
  constexpr int kJobs = 10;
  for (int i = 0; i < kJobs; ++i) add_job("j" + std::to_string(i), Shape::cpu_only);
  const CycleReport report = once();
  EXPECT_GE(report.cycles, 3) << "10 jobs of 3 calls each do not fit in one window of 12";
  for (int i = 0; i < kJobs; ++i) {
    const std::string id = "j" + std::to_string(i);
    EXPECT_EQ(attempt(id).state, AttemptState::pending) << id;
    EXPECT_EQ(story(id), (std::vector<std::string>{
                             "job.created:->queued", "attempt.created:->preparing", "attempt.state:preparing->prepared",
                             "attempt.state:prepared->submitting", "job.phase:queued->submitting",
                             "attempt.state:submitting->submitted", "job.phase:submitting->pending", "identified",
                             "released", "attempt.state:submitted->pending"}))
        << id;
  }
  EXPECT_EQ(sim->stat("submits_received"), kJobs);
  EXPECT_EQ(sim->stat("jobs_created"), kJobs);
}

// A token that turns bad after the cycle's pre-flight blocks the one submit that met it: every
// other job of the cycle waits, prepared and never sent, for a pre-flight that passes.
TEST_F(SubmitProtocolTest, ATokenTurnedBadMidCycleBlocksOneSubmitNotTheCycle) {
  start();
  constexpr int kJobs = 8;
  for (int i = 0; i < kJobs; ++i) add_job("j" + std::to_string(i), Shape::cpu_only);
  turn_token_bad_after(1);  // the cycle's pre-flight passes; every call after it is refused
  once();
  int blocked = 0;
  int prepared = 0;
  for (int i = 0; i < kJobs; ++i) {
    const auto a = attempt("j" + std::to_string(i));
    blocked += a.state == AttemptState::submit_unknown ? 1 : 0;
    prepared += a.state == AttemptState::prepared ? 1 : 0;
  }
  EXPECT_EQ(blocked, 1) << "the submit that met the bad token may have happened";
  EXPECT_EQ(prepared, kJobs - 1) << "no later submit is sent before a pre-flight passes";
  EXPECT_EQ(sim->stat("submits_received"), 1);
  mend_token();
  once();
  for (int i = 0; i < kJobs; ++i) {
    const auto a = attempt("j" + std::to_string(i));
    if (a.state == AttemptState::submit_unknown) continue;
    EXPECT_EQ(a.state, AttemptState::pending) << "j" << i;
  }
  EXPECT_EQ(sim->stat("jobs_created"), kJobs - 1) << "slurmctld refused the bad token's submit";
}

// One lost answer between successes holds no other job back: the next job of the same cycle
// is submitted at once.
TEST_F(SubmitProtocolTest, OneLostAnswerHoldsNoOtherSubmitBack) {
  client_asks_budget = true;
  start();
  add_job("j1", Shape::cpu_only);
  add_job("j2", Shape::cpu_only);
  fault(R"({"kind": "drop_response", "method": "POST", "path_prefix": "/slurm/v0.0.45/job/submit", "count": 1})");
  once();  // the local clock stands still: a back-off would keep the second job prepared
  EXPECT_EQ(sim->stat("submits_received"), 2);
  EXPECT_TRUE(attempt("j1").slurm_job_id.has_value());
  EXPECT_TRUE(attempt("j2").slurm_job_id.has_value());
}

// A directory that cannot be written for one attempt, while the storage root takes writes, holds
// back that attempt only: it waits, said once, and goes on when its directory can be written.
TEST_F(SubmitProtocolTest, OneAttemptsUnwritableDirectoryHoldsBackNoOtherJob) {
  start();
  add_job("j1", Shape::cpu_only);
  add_job("j2", Shape::cpu_only);
  const std::string attempts = settings.storage_root + "/slurm/jobs/j1/attempts";
  tpslurm::testing::write_test_file(attempts, "not a directory");
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::preparing);
  EXPECT_EQ(attempt("j2").state, AttemptState::pending) << "another attempt's storage problem is not this one's";
  once();
  EXPECT_EQ(count_events("j1", "prepare.blocked"), 1);
  std::filesystem::remove(attempts);
  pass_local_time(std::chrono::minutes(6));
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::pending);
}

TEST_F(SubmitProtocolTest, ARejectedJobFailsWithSlurmsWordsAndIsCleanedUp) {
  settings.partition = "no-such-partition";
  start();
  add_job("bad", Shape::gpu_single);
  once();
  const auto a = attempt("bad");
  EXPECT_EQ(a.state, AttemptState::rejected);
  EXPECT_NE(a.outcome_reason.find("2000"), std::string::npos) << a.outcome_reason;
  EXPECT_EQ(job("bad").phase, JobPhase::failed);
  EXPECT_EQ(a.cleanup, model::CleanupStep::closed);
  EXPECT_FALSE(exists(a.attempt_dir + "/credentials")) << "an interrupted submit is cleaned";
  EXPECT_FALSE(exists(a.attempt_dir + "/scratch"));
  EXPECT_TRUE(exists(a.attempt_dir + "/job.sh")) << "the script, env and manifest stay";
  EXPECT_TRUE(exists(a.attempt_dir + "/manifest.json"));
  EXPECT_EQ(sim->stat("jobs_created"), 0);
}

TEST_F(SubmitProtocolTest, NotSentGoesBackToPreparedAndIsSentLater) {
  start();
  fault(R"({"kind": "outage", "mode": "refuse", "seconds": 3600})");
  add_job("j1", Shape::cpu_only);
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::prepared);
  EXPECT_EQ(job("j1").phase, JobPhase::queued);
  ASSERT_TRUE(sim->control(slurm::HttpMethod::del, "/sim/faults").ok());
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::pending);
  EXPECT_EQ(slurm_job_count("j1"), 1);
}

// An attempt prepared in an earlier pass is checked against its manifest before it is sent
// (one prepared and sent in the same pass is not read back): a script changed meanwhile is
// never sent, and the attempt fails naming the file.
TEST_F(SubmitProtocolTest, AScriptChangedAfterItsAttemptWasPreparedIsNeverSent) {
  start();
  fault(R"({"kind": "outage", "mode": "refuse", "seconds": 3600})");
  add_job("j1", Shape::cpu_only);
  once();
  ASSERT_EQ(attempt("j1").state, AttemptState::prepared);
  const std::string script = attempt("j1").attempt_dir + "/job.sh";
  const auto mode = std::filesystem::status(script).permissions();
  std::filesystem::permissions(script, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  tpslurm::testing::write_test_file(script, tpslurm::testing::read_test_file(script) + "echo changed\n", mode);
  ASSERT_TRUE(sim->control(slurm::HttpMethod::del, "/sim/faults").ok());
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::failed);
  EXPECT_NE(a.outcome_reason.find("job.sh changed since it was written"), std::string::npos) << a.outcome_reason;
  const auto events = story("j1");
  EXPECT_NE(std::find(events.begin(), events.end(), "attempt.state:prepared->preparing"), events.end());
  EXPECT_EQ(sim->stat("submits_received"), 0);
}

TEST_F(SubmitProtocolTest, AJobCancelledBeforeItIsSentIsNeverSent) {
  start();
  add_job("j1", Shape::cpu_only);
  set_desire_cancel("j1");
  once();
  EXPECT_EQ(job("j1").phase, JobPhase::cancelled);
  EXPECT_EQ(sim->stat("submits_received"), 0);
}

TEST_F(SubmitProtocolTest, APreparedJobCancelledIsNeverSent) {
  start();
  fault(R"({"kind": "outage", "mode": "refuse", "seconds": 3600})");
  add_job("j1", Shape::cpu_only);
  once();
  ASSERT_EQ(attempt("j1").state, AttemptState::prepared);
  set_desire_cancel("j1");
  ASSERT_TRUE(sim->control(slurm::HttpMethod::del, "/sim/faults").ok());
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::cancelled);
  EXPECT_EQ(attempt("j1").cleanup, model::CleanupStep::closed);
  EXPECT_EQ(sim->stat("submits_received"), 0);
}

TEST_F(SubmitProtocolTest, ASubmittedJobIsCancelledInSlurm) {
  start();
  add_job("j1", Shape::three_pools);
  once();
  set_desire_cancel("j1");
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::cancelled);
  for (const auto& component : slurm_jobs("j1")) {
    EXPECT_EQ(component.state.base, model::SlurmBaseState::cancelled) << component.job_id;
  }
}

TEST_F(SubmitProtocolTest, PausedSubmitsNothingAndResumeSubmits) {
  start();
  ASSERT_TRUE(journal().set_control("paused", "tester", "maintenance").ok());
  add_job("j1", Shape::cpu_only);
  once();
  EXPECT_EQ(sim->stat("submits_received"), 0);
  EXPECT_EQ(job("j1").phase, JobPhase::queued);
  ASSERT_TRUE(journal().clear_control("paused", "tester", "done").ok());
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::pending);
}

TEST_F(SubmitProtocolTest, APausedDaemonStillAppliesCancelsToSubmittedJobs) {
  start();
  add_job("j1", Shape::cpu_only);
  once();
  ASSERT_TRUE(journal().set_control("paused", "tester", "maintenance").ok());
  set_desire_cancel("j1");
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::cancelled);
}

TEST_F(SubmitProtocolTest, TheOldDialectHoldsReleasesAndIdentifiesByTag) {
  start({"--release", "22.05.8"}, "v0.0.38");
  add_job("j1", Shape::gpu_single);
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::pending);
  EXPECT_FALSE(a.released_at.empty());
  EXPECT_TRUE(a.sluid.empty()) << "22.05 has no SLUIDs";
  EXPECT_EQ(a.dialect, "v0.0.38");
  EXPECT_EQ(slurm_job_count("j1"), 1);
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
