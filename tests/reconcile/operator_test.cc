// What an operator does and what the reconciler does for them: resolve a blocked submit as
// absent (a new attempt; the old tag stays watched), adopt a job found by hand, safe mode
// after a journal restore, the orphan and duplicate sweep.
#include "operations/resolution.h"
#include "reconcile/attempt_tag.h"
#include "reconcile_fixture.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::JobPhase;

class OperatorTest : public ReconcileTest {
 protected:
  // The daemon died right after committing the intent, before sending: the next start finds
  // the attempt submitting without a receipt, and Slurm never created the job.
  void block_without_a_job(const std::string& id) {
    fault(R"({"kind": "outage", "mode": "refuse", "seconds": 3600})");
    add_job(id, Shape::cpu_only);
    once();
    ASSERT_EQ(attempt(id).state, AttemptState::prepared);
    ASSERT_TRUE(sim->control(slurm::HttpMethod::del, "/sim/faults").ok());
    ASSERT_TRUE(journal().transition({id, 1}, AttemptState::prepared, AttemptState::submitting, {}, {}).ok());
    once();
    ASSERT_EQ(attempt(id).state, AttemptState::submit_unknown);
    ASSERT_EQ(sim->stat("submits_received"), 0);
  }

  model::JobSnapshot tagged_like(const journal::AttemptRecord& a) {
    const model::JobTag tag = attempt_tag(settings, a);
    model::JobSnapshot record;
    record.name = tag.name;
    record.comment = tag.comment;
    record.working_directory = tag.working_directory;
    return record;
  }
};

TEST_F(OperatorTest, AResolvedAbsentSubmitGetsANewAttemptAndItsTagStaysWatched) {
  start();
  block_without_a_job("j1");
  restart();
  once();  // a daemon's first search is complete; it finds nothing: still blocked, never proof
  EXPECT_EQ(attempt("j1").state, AttemptState::submit_unknown);
  EXPECT_FALSE(attempt("j1").complete_search_at.empty());
  ASSERT_TRUE(journal().resolve_absent({"j1", 1}, "tester", "slurmctld logs show no such job").ok());
  EXPECT_EQ(attempt("j1").state, AttemptState::abandoned);
  once();
  const auto second = attempt("j1", 2);
  EXPECT_EQ(second.state, AttemptState::pending);
  EXPECT_EQ(attempt("j1").cleanup, model::CleanupStep::closed) << "cleaned before the retry";
  EXPECT_EQ(slurm_job_count("j1", 2), 1);
  // The first attempt's job turns up after all: it is cancelled, never adopted.
  const std::uint32_t late = submit_copy(tagged_like(attempt("j1", 1)));
  once();
  EXPECT_EQ(sim_view(late).at("state").as_string(), "CANCELLED");
  EXPECT_EQ(attempt("j1").state, AttemptState::abandoned);
  const auto events = story("j1");
  EXPECT_NE(std::find(events.begin(), events.end(), "late_arrival"), events.end());
}

// A cluster without accounting: slurmctld's complete listing after the quiet period is the
// search every source answered, so an operator can resolve the blocked submit as absent ...
TEST_F(OperatorTest, WithoutAccountingAResolveAbsentGoesOnSlurmctldsCompleteListing) {
  start({"--no-accounting"});
  block_without_a_job("j1");
  pass_local_time(std::chrono::seconds(2));  // the quiet period (1 s here)
  restart();
  once();
  EXPECT_FALSE(attempt("j1").complete_search_at.empty()) << attempt("j1").search_report;
  EXPECT_NE(attempt("j1").search_report.find("no accounting"), std::string::npos) << attempt("j1").search_report;
  auto answer = operations::resolve_absent(journal(), attempt("j1"), settings, local_clock().now(), "tester", "gone");
  ASSERT_TRUE(answer.ok()) << answer.error().message();
  EXPECT_FALSE(answer->refused) << answer->message;
  EXPECT_EQ(attempt("j1").state, AttemptState::abandoned);
}

// ... but never while the attempt's own files show that a copy ran.
TEST_F(OperatorTest, AResolveAbsentIsRefusedWhileTheAttemptsEvidenceShowsACopyRan) {
  start({"--no-accounting"});
  block_without_a_job("j1");
  tpslurm::testing::write_test_file(attempt("j1").attempt_dir + "/logs/exit.json", R"({"exit_status": 0})");
  pass_local_time(std::chrono::seconds(2));
  restart();
  once();
  auto answer = operations::resolve_absent(journal(), attempt("j1"), settings, local_clock().now(), "tester", "gone");
  ASSERT_TRUE(answer.ok()) << answer.error().message();
  ASSERT_TRUE(answer->refused.has_value());
  EXPECT_EQ(*answer->refused, operations::Refusal::ran);
  EXPECT_NE(answer->message.find("its logs/ holds what a copy of it wrote"), std::string::npos) << answer->message;
  EXPECT_EQ(attempt("j1").state, AttemptState::submit_unknown);
}

TEST_F(OperatorTest, ResolvingAbsentAJobWhoseCancelWasAskedEndsIt) {
  start();
  block_without_a_job("j1");
  set_desire_cancel("j1");
  ASSERT_TRUE(journal().resolve_absent({"j1", 1}, "tester", "gone").ok());
  once();
  EXPECT_EQ(job("j1").phase, JobPhase::cancelled);
  EXPECT_EQ(journal().attempts("j1")->size(), 1u) << "no new attempt for a cancelled job";
  EXPECT_EQ(sim->stat("submits_received"), 0);
}

TEST_F(OperatorTest, ARestoredJournalSearchesBeforeSendingAndAdoptsWhatSlurmHas) {
  start();
  fault(R"({"kind": "outage", "mode": "refuse", "seconds": 3600})");
  add_job("j1", Shape::cpu_only);
  once();
  ASSERT_EQ(attempt("j1").state, AttemptState::prepared);
  ASSERT_TRUE(journal().backup(dir.file("backup.db")).ok());
  ASSERT_TRUE(sim->control(slurm::HttpMethod::del, "/sim/faults").ok());
  once();
  ASSERT_EQ(attempt("j1").state, AttemptState::pending);
  const std::uint32_t id = *attempt("j1").slurm_job_id;
  // The journal goes back to before the submit; Slurm still has the job.
  ASSERT_TRUE(journal().restore_from(dir.file("backup.db")).ok());
  ASSERT_TRUE(journal().set_control("safe_mode", "tester", "restored").ok());
  ASSERT_EQ(attempt("j1").state, AttemptState::prepared);
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::pending);
  EXPECT_EQ(*a.slurm_job_id, id);
  EXPECT_EQ(a.found_by, "search");
  EXPECT_EQ(sim->stat("submits_received"), 1) << "safe mode never sends what Slurm may already have";
}

// The copy Slurm has is still held (the journal was lost before its release): safe mode adopts
// it and releases it.
TEST_F(OperatorTest, SafeModeReleasesAHeldCopyItAdopts) {
  start();
  ASSERT_TRUE(journal().set_control("safe_mode", "tester", "restored").ok());
  fault(R"({"kind": "outage", "mode": "refuse", "seconds": 3600})");
  add_job("j1", Shape::cpu_only);
  once();
  ASSERT_EQ(attempt("j1").state, AttemptState::prepared);
  ASSERT_TRUE(sim->control(slurm::HttpMethod::del, "/sim/faults").ok());
  const model::JobTag tag = attempt_tag(settings, attempt("j1"));
  model::JobSnapshot copy;
  copy.name = tag.name;
  copy.comment = tag.comment;
  copy.working_directory = tag.working_directory;
  const std::uint32_t held = submit_copy(copy);
  ASSERT_TRUE(sim_view(held).at("hold").as_bool());
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.slurm_job_id, held);
  EXPECT_FALSE(a.released_at.empty());
  EXPECT_FALSE(sim_view(held).at("hold").as_bool()) << "a held copy adopted in safe mode is released";
  EXPECT_EQ(sim->stat("submits_received"), 1) << "only the copy";
}

TEST_F(OperatorTest, SafeModeSendsWhatACompleteSearchDidNotFind) {
  start();
  ASSERT_TRUE(journal().set_control("safe_mode", "tester", "restored").ok());
  add_job("j1", Shape::cpu_only);
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::pending);
  EXPECT_EQ(attempt("j1").found_by, "receipt");
}

TEST_F(OperatorTest, TheSweepReportsOrphansAndCancelsCopiesButNeverTheJournaledJob) {
  start();
  add_job("j1", Shape::cpu_only);
  once();
  const auto a = attempt("j1");
  const std::uint32_t copy = submit_copy(slurm_jobs("j1").front());
  model::JobSnapshot ghost;
  ghost.name = "tp-t-ghost-1";
  ghost.comment = "tuneplane:unknown";
  ghost.working_directory = dir.file("elsewhere");
  const std::uint32_t orphan = submit_copy(ghost);
  restart();  // the sweep runs on a daemon's first cycle (then every 30)
  once();
  EXPECT_EQ(sim_view(copy).at("state").as_string(), "CANCELLED");
  EXPECT_NE(sim_view(*a.slurm_job_id).at("state").as_string(), "CANCELLED");
  EXPECT_NE(sim_view(orphan).at("state").as_string(), "CANCELLED") << "orphans are reported only";
  auto orphans = journal().orphans();
  ASSERT_TRUE(orphans.ok());
  ASSERT_EQ(orphans->size(), 1u);
  EXPECT_EQ((*orphans)[0].slurm_job_id, orphan);
  EXPECT_EQ((*orphans)[0].name, "tp-t-ghost-1");
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
