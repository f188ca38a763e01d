// Following jobs Slurm holds to their end, against the simulator: states and phases, het
// components, ends with their reasons and exit codes (the cluster's failures and their retries:
// infra_retry_test.cc), anomalies, pending reasons that never clear, jobs that left slurmctld
// (exit.json, slurmdbd, lost only when every source answered), cancel with grace, and the
// cleanup steps to closed.
#include <filesystem>
#include <thread>

#include "journal/components.h"
#include "reconcile_fixture.h"
#include "storage/layout.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::CleanupStep;
using model::JobPhase;

class FollowTest : public ReconcileTest {
 protected:
  // Runs the job until it was released and seen pending; returns its leader's id.
  std::uint32_t released(const std::string& job_id, Shape shape = Shape::cpu_only, int max_attempts = 1) {
    add_job(job_id, shape, max_attempts);
    once();
    const auto a = attempt(job_id);
    EXPECT_EQ(a.state, AttemptState::pending);
    EXPECT_EQ(job(job_id).phase, JobPhase::pending);
    EXPECT_FALSE(a.released_at.empty());
    return a.slurm_job_id.value_or(0);
  }
  bool has_event(const std::string& job_id, const std::string& kind) {
    for (const auto& e : story(job_id)) {
      if (e == kind) return true;
    }
    return false;
  }
  std::string attempt_file(const std::string& job_id, int number, const std::string& relative) {
    return attempt(job_id, number).attempt_dir + "/" + relative;
  }
};

TEST_F(FollowTest, ACpuJobIsFollowedFromReleaseToAClosedCleanup) {
  start();
  const std::uint32_t id = released("j1");
  step(id, R"({"state": "RUNNING"})");
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::running);
  EXPECT_EQ(job("j1").phase, JobPhase::running);
  EXPECT_FALSE(attempt("j1").observed_at.empty());

  step(id, R"({"state": "COMPLETED", "completing": true})");
  once();
  auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::succeeded);
  EXPECT_EQ(job("j1").phase, JobPhase::succeeded);
  EXPECT_EQ(a.cleanup, CleanupStep::epilog_pending) << "COMPLETING: Slurm still holds the nodes";
  EXPECT_TRUE(std::filesystem::exists(a.attempt_dir + "/credentials")) << "nothing is released early";

  step(id, R"({"completing": false})");
  once();
  a = attempt("j1");
  EXPECT_EQ(a.cleanup, CleanupStep::closed);
  EXPECT_FALSE(std::filesystem::exists(a.attempt_dir + "/credentials"));
  EXPECT_FALSE(std::filesystem::exists(a.attempt_dir + "/scratch"));
  for (const char* kept : {"job.sh", "env", "manifest.json", "logs"}) {
    EXPECT_TRUE(std::filesystem::exists(a.attempt_dir + "/" + kept)) << kept;
  }
  EXPECT_NE(a.logs_sha256.find("\"files\""), std::string::npos) << a.logs_sha256;
  const auto logs = std::filesystem::status(a.attempt_dir + "/logs").permissions();
  EXPECT_EQ(logs & std::filesystem::perms::owner_write, std::filesystem::perms::none) << "logs/ sealed read-only";
  const auto kinds = story("j1");
  for (const char* expected : {"cleanup:none->epilog_pending", "cleanup:epilog_pending->staging_pending",
                               "cleanup:staging_pending->sealing", "cleanup:sealing->closed"}) {
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), expected), kinds.end()) << expected;
  }
}

TEST_F(FollowTest, AnUnchangedJobCostsNoJournalWrite) {
  start();
  const std::uint32_t id = released("j1");
  step(id, R"({"state": "RUNNING"})");
  once();
  const auto before = attempt("j1");
  const CycleReport report = once();
  EXPECT_EQ(report.progressed, 0);
  EXPECT_EQ(attempt("j1").version, before.version);
}

TEST_F(FollowTest, AProgramsOwnFailureEndsTheJobWithoutARetry) {
  start();
  const std::uint32_t id = released("j1", Shape::cpu_only, 3);
  step(id, R"({"state": "RUNNING"})");
  once();
  step(id, R"({"state": "FAILED", "exit_code": 3})");
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::failed);
  EXPECT_EQ(a.exit_code, 3);
  EXPECT_EQ(a.slurm_reason, "NonZeroExitCode");
  EXPECT_EQ(job("j1").phase, JobPhase::failed);
  EXPECT_EQ(a.cleanup, CleanupStep::closed);
  EXPECT_EQ(journal().attempts("j1")->size(), 1u);
  EXPECT_NE(event_detail("j1", "failed").find("\"retry\":\"no"), std::string::npos) << event_detail("j1", "failed");
}

TEST_F(FollowTest, AHetJobFailsWithTheFailedComponentsReason) {
  start({"--nodes", "n1,n2,n3"});
  const std::uint32_t leader = released("j1", Shape::three_pools);
  step(leader, R"({"state": "RUNNING"})");
  once();
  step(leader + 1, R"({"state": "FAILED", "exit_code": 2, "component_only": true})");
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::running) << "two components still run";
  step(leader, R"({"state": "CANCELLED", "signal": 15, "component_only": true})");
  step(leader + 2, R"({"state": "CANCELLED", "signal": 15, "component_only": true})");
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::failed);
  EXPECT_EQ(a.exit_code, 2);
  EXPECT_NE(a.outcome_reason.find("component 1"), std::string::npos) << a.outcome_reason;
  const auto components = journal::parse_components(a.components);
  ASSERT_EQ(components.size(), 3u);
  EXPECT_EQ(components[1].state, "FAILED");
}

TEST_F(FollowTest, ARequeueIsAnAnomalyThatIsCancelledAndRetried) {
  start();
  const std::uint32_t id = released("j1", Shape::cpu_only, 2);
  step(id, R"({"state": "RUNNING"})");
  once();
  ASSERT_TRUE(
      sim->control(slurm::HttpMethod::post, "/sim/jobs/" + std::to_string(id) + "/requeue", R"({"force": true})").ok());
  once();
  const auto first = attempt("j1", 1);
  EXPECT_EQ(first.state, AttemptState::failed);
  EXPECT_EQ(first.failure_phase, "anomaly");
  EXPECT_EQ(sim_view(id).at("state").as_string(), "CANCELLED");
  EXPECT_EQ(attempt("j1", 2).state, AttemptState::pending) << "an anomaly is not the program's failure";
}

TEST_F(FollowTest, APendingReasonThatNeverClearsCancelsTheJobWithoutARetry) {
  start();
  const std::uint32_t id = released("j1", Shape::cpu_only, 3);
  step(id, R"({"state": "PENDING", "reason": "BadConstraints"})");
  once();
  ASSERT_EQ(attempt("j1").state, AttemptState::pending) << "a bulk state has no reasons";
  restart();  // the next daemon's first poll lists every job in full, reasons included
  const std::int64_t listings = sim->route_count("GET /slurm/v0.0.45/jobs");
  once();
  EXPECT_EQ(sim->route_count("GET /slurm/v0.0.45/jobs") - listings, 1)
      << "the first cycle's reasons and its sweep share one listing";
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::failed);
  EXPECT_NE(a.outcome_reason.find("BadConstraints"), std::string::npos) << a.outcome_reason;
  EXPECT_EQ(sim_view(id).at("state").as_string(), "CANCELLED");
  EXPECT_EQ(journal().attempts("j1")->size(), 1u) << "it would fail the same way again";
}

TEST_F(FollowTest, AJobPendingLongerThanTheLimitIsCancelled) {
  settings.max_pending = std::chrono::seconds(1);
  start();
  const std::uint32_t id = released("j1");
  step(id, R"({"state": "PENDING", "reason": "Resources"})");
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::pending) << "within the limit";
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::failed);
  EXPECT_EQ(sim_view(id).at("state").as_string(), "CANCELLED");
  EXPECT_NE(attempt("j1").outcome_reason.find("TUNEPLANE_MAX_PENDING"), std::string::npos);
}

TEST_F(FollowTest, AJobGoneFromSlurmctldEndsWithItsExitJson) {
  start();
  const std::uint32_t id = released("j1");
  step(id, R"({"state": "RUNNING"})");
  once();
  tpslurm::testing::write_test_file(attempt_file("j1", 1, "logs/exit.json"),
                                    R"({"exit_status": 0, "failed_phase": null})");
  step(id, R"({"state": "COMPLETED"})");
  advance_sim(600);  // past MinJobAge: slurmctld forgets it
  once();
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::succeeded);
  EXPECT_EQ(a.cleanup, CleanupStep::closed);
  EXPECT_NE(event_detail("j1", "succeeded").find("exit.json"), std::string::npos);
}

TEST_F(FollowTest, AJobGoneFromSlurmctldEndsWithSlurmdbdsState) {
  start();
  const std::uint32_t id = released("j1");
  step(id, R"({"state": "RUNNING"})");
  once();
  step(id, R"({"state": "FAILED", "exit_code": 4})");
  advance_sim(600);
  once();
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::failed);
  EXPECT_EQ(a.exit_code, 4);
  EXPECT_NE(event_detail("j1", "failed").find("slurmdbd"), std::string::npos);
}

// A cluster without accounting: once slurmctld purged a job, its exit.json is all that says how
// it ended; without one every source there is has answered, and the job is lost.
TEST_F(FollowTest, WithoutSlurmdbdAVanishedJobEndsFromExitJsonElseIsLost) {
  start({"--no-accounting"});
  const std::uint32_t first = released("j1");
  const std::uint32_t second = released("j2");
  step(first, R"({"state": "RUNNING"})");
  step(second, R"({"state": "RUNNING"})");
  once();
  tpslurm::testing::write_test_file(attempt_file("j1", 1, "logs/exit.json"),
                                    R"({"exit_status": 0, "failed_phase": null})");
  step(first, R"({"state": "COMPLETED"})");
  step(second, R"({"state": "COMPLETED"})");
  advance_sim(600);
  for (int i = 0; i < 3; ++i) once();
  EXPECT_EQ(attempt("j1").state, AttemptState::succeeded);
  EXPECT_NE(event_detail("j1", "succeeded").find("exit.json"), std::string::npos);
  EXPECT_EQ(attempt("j2").state, AttemptState::lost) << "slurmctld and the attempt's files are every source there is";
  EXPECT_EQ(attempt("j2").cleanup, CleanupStep::closed);
  EXPECT_NE(event_detail("j2", "lost").find("every source answered"), std::string::npos);
}

TEST_F(FollowTest, AJobNoSourceKnowsIsLostWithTheEvidence) {
  start();
  // An attempt the journal holds as submitted under an id that neither slurmctld nor
  // slurmdbd has ever known.
  add_job("j1", Shape::cpu_only);
  const journal::AttemptKey key{"j1", 1};
  ASSERT_TRUE(journal().add_attempt("j1", 1, "token-1", job("j1").request_sha256).ok());
  ASSERT_TRUE(journal().transition(key, AttemptState::preparing, AttemptState::prepared, {}, {}).ok());
  journal::AttemptChanges submitting;
  submitting.submit_mode = "direct";
  ASSERT_TRUE(journal().transition(key, AttemptState::prepared, AttemptState::submitting, submitting, {}).ok());
  journal::AttemptChanges receipt;
  receipt.slurm_job_id = 987654;
  ASSERT_TRUE(journal().transition(key, AttemptState::submitting, AttemptState::submitted, receipt, {}).ok());
  journal::AttemptChanges identified;
  identified.identified = true;
  ASSERT_TRUE(journal().update_attempt(key, AttemptState::submitted, identified, "identified", {}).ok());
  // Its batch step launched once: Slurm opened its output in the attempt's logs/.
  tpslurm::testing::write_test_file(storage::attempt_dir(settings.storage_root, "j1", 1) + "/logs/batch.out",
                                    "started\n");
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::submitted) << "one poll without the job is not yet gone";
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::lost);
  EXPECT_EQ(job("j1").phase, JobPhase::lost);
  EXPECT_NE(event_detail("j1", "lost").find("every source answered"), std::string::npos);
}

TEST_F(FollowTest, CancelWithGraceSendsTheCheckpointSignalThenKills) {
  start();
  const std::uint32_t id = released("j1");
  step(id, R"({"state": "RUNNING"})");
  once();
  const journal::JobRecord record = job("j1");
  ASSERT_TRUE(journal().set_desire("j1", model::Desire::cancel, "test", record.version, 1).ok());
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::running) << "the kill waits for the grace";
  EXPECT_FALSE(attempt("j1").signalled_at.empty());
  EXPECT_EQ(sim_view(id).at("state").as_string(), "RUNNING");
  EXPECT_EQ(sim_view(id).at("last_signal").as_int64(), 10) << "SIGUSR1 reached the job";
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::cancelled);
  EXPECT_EQ(sim_view(id).at("state").as_string(), "CANCELLED");
}

TEST_F(FollowTest, AJobStillCompletingPastTheLimitIsReportedOnceAndKeepsWaiting) {
  settings.completing_warn_after = std::chrono::seconds(0);
  start();
  const std::uint32_t id = released("j1");
  step(id, R"({"state": "COMPLETED", "completing": true})");
  once();
  once();
  EXPECT_EQ(attempt("j1").cleanup, CleanupStep::epilog_pending);
  const auto kinds = story("j1");
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), "cleanup.slow"), 1);
}

TEST_F(FollowTest, RetentionRemovesClosedAttemptDirectoriesAndKeepsTheirRecord) {
  settings.attempt_retention = std::chrono::seconds(1);
  start();
  const std::uint32_t id = released("j1");
  step(id, R"({"state": "COMPLETED"})");
  once();
  const auto a = attempt("j1");
  ASSERT_EQ(a.cleanup, CleanupStep::closed);
  ASSERT_TRUE(std::filesystem::exists(a.attempt_dir));
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  restart();
  once();  // a restarted daemon sweeps on its first cycle
  EXPECT_FALSE(std::filesystem::exists(a.attempt_dir));
  EXPECT_EQ(attempt("j1").state, AttemptState::succeeded);
  EXPECT_TRUE(has_event("j1", "retention"));
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
