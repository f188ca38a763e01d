// Clocks that jump: the local wall clock stepped by hours, forward and back, between cycles
// (ReconcileTest's SteppedClock, read by the journal, the request budget, the client and the
// controller), and a simulator whose clock is days away from ours (--clock-start). Nothing
// may follow from a step alone: no back-off that lasts hours after a backward step, no
// running job lost or ended, no quiet period, pending limit or cancel grace cut short or
// stretched, and slurmdbd's search window stays on the server's clock.
#include <chrono>

#include "journal/journal.h"
#include "operations/resolution.h"
#include "reconcile_fixture.h"
#include "slurm/request_budget.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::CleanupStep;
using model::JobPhase;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

class ClockJumpTest : public ReconcileTest {
 protected:
  void step(std::uint32_t id, const std::string& body) {
    auto answer = sim->control(slurm::HttpMethod::post, "/sim/jobs/" + std::to_string(id) + "/state", body);
    ASSERT_TRUE(answer.ok()) << answer.error().message();
  }

  // Whether the attempt ever entered `state` ("attempt.state:running->lost").
  bool ever(const std::string& job_id, const std::string& state) {
    const std::string arrow = "->" + state;
    for (const auto& e : story(job_id)) {
      if (e.size() >= arrow.size() && e.compare(e.size() - arrow.size(), arrow.size(), arrow) == 0) return true;
    }
    return false;
  }

  // An attempt whose submit answer was lost and that Slurm never received: submit_unknown
  // with its intent now, and nothing any search can find.
  void blocked_attempt(const std::string& job_id) {
    add_job(job_id, Shape::cpu_only);
    const journal::AttemptKey key{job_id, 1};
    ASSERT_TRUE(journal().add_attempt(job_id, 1, "token-" + job_id, job(job_id).request_sha256).ok());
    ASSERT_TRUE(journal().transition(key, AttemptState::preparing, AttemptState::prepared, {}, {}).ok());
    journal::AttemptChanges submitting;
    submitting.submit_mode = "held";
    ASSERT_TRUE(journal().transition(key, AttemptState::prepared, AttemptState::submitting, submitting, {}).ok());
    ASSERT_TRUE(journal().transition(key, AttemptState::submitting, AttemptState::submit_unknown, {}, {}).ok());
  }

  // j1 of `shape` released and followed running; returns its Slurm job id.
  std::uint32_t running(Shape shape) {
    add_job("j1", shape);
    once();
    const std::uint32_t id = attempt("j1").slurm_job_id.value_or(0);
    EXPECT_NE(id, 0U);
    step(id, R"({"state": "RUNNING"})");
    once();
    EXPECT_EQ(attempt("j1").state, AttemptState::running);
    return id;
  }

  // j1 running in Slurm, its cancel asked with a grace of `grace`: the checkpoint signal sent.
  std::uint32_t signalled(seconds grace) {
    const std::uint32_t id = running(Shape::cpu_only);
    const journal::JobRecord record = job("j1");
    EXPECT_TRUE(journal().set_desire("j1", model::Desire::cancel, "test", record.version, grace.count()).ok());
    once();
    EXPECT_FALSE(attempt("j1").signalled_at.empty());
    EXPECT_EQ(sim_view(id).at("last_signal").as_int64(), 10) << "SIGUSR1 reached the job";
    return id;
  }
  // Whether the kill came: the attempt cancelled and Slurm's job with it.
  bool killed(std::uint32_t id) {
    const bool cancelled = attempt("j1").state == AttemptState::cancelled;
    EXPECT_EQ(cancelled, sim_view(id).at("state").as_string() == "CANCELLED");
    return cancelled;
  }

  std::optional<operations::Refusal> resolve(const std::string& job_id) {
    auto resolved = operations::resolve_absent(journal(), attempt(job_id), settings, local_clock().now(), "tester",
                                               "slurmctld's log shows no such job");
    EXPECT_TRUE(resolved.ok()) << resolved.error().message();
    return resolved.ok() ? resolved->refused : std::nullopt;
  }
};

TEST(ClockJumpBudgetTest, ABackwardStepOfHoursNeverStretchesTheBackOff) {
  ManualClock clock(from_unix_seconds(1'800'000'000));
  slurm::RequestBudget budget(clock, slurm::BudgetLimits{});
  for (int failed = 0; failed < 2; ++failed) {
    ASSERT_TRUE(budget.admit().granted);
    budget.record(slurm::Outcome::uncertain);  // the second in a row: back off 1 s
  }
  clock.set(clock.now() - hours(3));
  const auto refused = budget.admit();
  EXPECT_FALSE(refused.granted) << "the back-off still holds";
  ASSERT_TRUE(refused.retry_at);
  EXPECT_LE(*refused.retry_at - clock.now(), seconds(1)) << "not three hours";
  clock.advance(seconds(1));
  EXPECT_TRUE(budget.admit().granted) << "the probe goes one back-off after the step";
}

TEST_F(ClockJumpTest, StepsOfHoursBetweenCyclesNeitherLoseNorEndARunningJob) {
  start();
  const std::uint32_t id = running(Shape::gpu_single);
  ASSERT_EQ(attempt("j1").state, AttemptState::running);
  for (const auto by : {hours(6), -hours(12), hours(30), -hours(24)}) {
    step_local_clock(by);
    once();
    once();
    EXPECT_EQ(attempt("j1").state, AttemptState::running) << "after a step of " << by.count() << " h";
  }
  step(id, R"({"state": "COMPLETED", "exit_code": 0})");
  once();
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::succeeded);
  EXPECT_EQ(a.cleanup, CleanupStep::closed);
  EXPECT_FALSE(ever("j1", "lost"));
  EXPECT_FALSE(ever("j1", "failed"));
  EXPECT_EQ(slurm_job_count("j1"), 1);
}

TEST_F(ClockJumpTest, StepsOfTheWallClockNeitherShortenNorStretchTheQuietPeriod) {
  settings.resolve_quiet_period = minutes(30);
  start();
  blocked_attempt("j1");
  once();  // a complete search: nothing found
  ASSERT_EQ(attempt("j1").state, AttemptState::submit_unknown);
  ASSERT_FALSE(attempt("j1").complete_search_at.empty());
  step_local_clock(hours(2));
  once();
  EXPECT_EQ(resolve("j1"), operations::Refusal::too_early) << "a step forward of 2 h is not 2 h passing";
  step_local_clock(-hours(4));
  once();
  EXPECT_EQ(resolve("j1"), operations::Refusal::too_early) << "2 h before the intent, on our clock";
  pass_local_time(minutes(29));
  once();
  EXPECT_EQ(resolve("j1"), operations::Refusal::too_early) << "29 minutes after the intent";
  pass_local_time(minutes(2));
  EXPECT_EQ(resolve("j1"), operations::Refusal::too_early) << "no complete search since the quiet period ended";
  once();
  EXPECT_EQ(attempt("j1").complete_search_elapsed_s, seconds(minutes(31)).count());
  EXPECT_EQ(resolve("j1"), std::nullopt) << "31 minutes passed, though our clock reads 2 h before the intent";
  EXPECT_EQ(sim->stat("submits_received"), 0);
}

TEST_F(ClockJumpTest, AStepForwardDoesNotCutThePendingLimitShort) {
  settings.max_pending = minutes(30);
  start();
  add_job("j1", Shape::cpu_only);
  once();
  const std::uint32_t id = attempt("j1").slurm_job_id.value_or(0);
  ASSERT_NE(id, 0U);
  step(id, R"({"state": "PENDING", "reason": "Resources"})");
  once();
  ASSERT_EQ(attempt("j1").state, AttemptState::pending);
  step_local_clock(hours(2));
  once();
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::pending) << "a step of 2 h is not 2 h pending";
  pass_local_time(minutes(31));
  once();
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::failed);
  EXPECT_NE(a.outcome_reason.find("TUNEPLANE_MAX_PENDING"), std::string::npos) << a.outcome_reason;
}

TEST_F(ClockJumpTest, StepsOfTheWallClockNeitherShortenNorStretchTheCancelGrace) {
  start();
  const std::uint32_t id = signalled(minutes(10));
  step_local_clock(hours(2));
  once();
  EXPECT_FALSE(killed(id)) << "a step forward of 2 h is not the grace passing";
  step_local_clock(-hours(3));
  pass_local_time(minutes(9));
  once();
  EXPECT_FALSE(killed(id)) << "9 minutes of the grace's 10 passed";
  pass_local_time(minutes(1) + seconds(1));
  once();
  EXPECT_TRUE(killed(id)) << "the grace is over, though our clock reads an hour before the signal";
}

// After a restart nothing measured the time since the signal but the wall clock: it is taken
// once, never below zero, as for the quiet period (elapsed_board.h). A step back while the daemon
// was down gives the job at most one more grace, never the step's length.
TEST_F(ClockJumpTest, AfterARestartAStepBackCostsAtMostOneMoreGrace) {
  start();
  const std::uint32_t id = signalled(minutes(10));
  restart();
  step_local_clock(-hours(1));
  once();
  EXPECT_FALSE(killed(id));
  pass_local_time(minutes(10) + seconds(1));
  once();
  EXPECT_TRUE(killed(id)) << "one grace after the restart, not an hour and a grace";
}

// A job that ended and left slurmctld (MinJobAge) is looked for in slurmdbd from a day before
// its intent on the SERVER's clock, days away from ours: found there with its end, never lost.
class ServerClockTest : public ClockJumpTest, public ::testing::WithParamInterface<int> {};

TEST_P(ServerClockTest, AJobGoneFromSlurmctldIsFoundInSlurmdbdWithTheWindowOnTheServersClock) {
  const auto server = std::chrono::system_clock::now() + hours(24 * GetParam());
  start({"--clock-start", std::to_string(unix_seconds(server))});
  add_job("j1", Shape::cpu_only);
  once();
  const std::uint32_t id = attempt("j1").slurm_job_id.value_or(0);
  ASSERT_NE(id, 0U);
  step(id, R"({"state": "RUNNING"})");
  once();
  step(id, R"({"state": "FAILED", "exit_code": 4})");
  auto advanced = sim->control(slurm::HttpMethod::post, "/sim/clock/advance", R"({"seconds": 600})");
  ASSERT_TRUE(advanced.ok()) << advanced.error().message();
  once();
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::failed) << "server clock " << GetParam() << " days from ours";
  EXPECT_EQ(a.exit_code, 4);
  EXPECT_FALSE(ever("j1", "lost"));
}

INSTANTIATE_TEST_SUITE_P(DaysAway, ServerClockTest, ::testing::Values(-3, 3),
                         [](const auto& days) { return days.param < 0 ? "Behind" : "Ahead"; });

}  // namespace
}  // namespace tpslurm::reconcile::testing
