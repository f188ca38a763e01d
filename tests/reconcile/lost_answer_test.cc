// A lost submit answer blocks its job until the original allocation is found (docs/architecture.md
// §4 step 5): never a second submit, the attempt directory intact, found -> adopted; copies
// cancelled; an operator's resolve; safe mode after a restore.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <set>

#include "reconcile_fixture.h"
#include "support/eventually.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::JobPhase;

class LostAnswerTest : public ReconcileTest {
 protected:
  // 22.05, whose pre-flight (ping) the faults below leave alone: the submit's answer is lost
  // and slurmctld's listing and slurmdbd fail until the test clears the faults.
  void start_blind() {
    start({"--release", "22.05.8"}, "v0.0.38");
    fault(R"({"kind": "drop_response", "method": "POST", "path_prefix": "/slurm/v0.0.38/job/submit"})");
    fault(
        R"({"kind": "error_response", "status": 500, "method": "GET", "path_prefix": "/slurm/v0.0.38/jobs", "count": -1})");
    fault(R"({"kind": "accounting_outage"})");
  }

  // A CPU job whose submit answer was lost while every search failed: blocked, with the one
  // Slurm job its submit created (the faults are cleared).
  model::JobSnapshot blocked_with_its_job(const std::string& id) {
    start_blind();
    add_job(id, Shape::cpu_only);
    once();
    EXPECT_EQ(attempt(id).state, AttemptState::submit_unknown);
    EXPECT_TRUE(sim->control(slurm::HttpMethod::del, "/sim/faults").ok());
    const auto created = slurm_jobs(id);
    EXPECT_EQ(created.size(), 1u);
    return created.empty() ? model::JobSnapshot{} : created.front();
  }

  // `runs` jobs, each behind one fault drawn from `faults` by `seed`, each checked: submitted,
  // found by search, one Slurm job, released, and no submit beyond one per job.
  void seeded_runs(const std::vector<std::string>& faults, unsigned seed, int runs) {
    std::mt19937 random(seed);
    const Shape shapes[] = {Shape::gpu_single, Shape::three_pools, Shape::cpu_only};
    int made = 0;
    for (int run = 0; run < runs; ++run) {
      const std::string id = "lost-" + std::to_string(seed) + "-" + std::to_string(run);
      const std::string& rule = faults[random() % faults.size()];
      const Shape shape = shapes[random() % 3];
      fault(rule);
      add_job(id, shape);
      once();
      ++made;
      const auto a = attempt(id);
      EXPECT_EQ(a.state, AttemptState::pending) << id << " " << rule;
      EXPECT_EQ(a.found_by, "search") << id << " " << rule;
      EXPECT_EQ(slurm_job_count(id), 1) << id << " " << rule;
      EXPECT_FALSE(a.released_at.empty()) << id;
      EXPECT_EQ(sim->stat("submits_received"), made) << "a lost answer is never followed by another submit";
      // Lost answers in a row make submits hold off: the next run's submit waits for that.
      pass_local_time(std::chrono::minutes(6));
    }
  }
};

TEST_F(LostAnswerTest, ALostAnswerBlocksThenTheJobIsFoundAndAdopted) {
  start();
  fault(R"({"kind": "drop_response", "method": "POST", "path_prefix": "/slurm/v0.0.45/job/submit"})");
  add_job("j1", Shape::gpu_single);
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::pending);
  EXPECT_EQ(a.found_by, "search");
  EXPECT_FALSE(a.released_at.empty());
  EXPECT_EQ(sim->stat("submits_received"), 1) << "nothing is sent again after a lost answer";
  EXPECT_EQ(slurm_job_count("j1"), 1);
  const auto events = story("j1");
  EXPECT_NE(std::find(events.begin(), events.end(), "attempt.state:submitting->submit_unknown"), events.end());
  EXPECT_NE(std::find(events.begin(), events.end(), "attempt.state:submit_unknown->submitted"), events.end());
}

TEST_F(LostAnswerTest, ABlockedJobIsSubmitUnconfirmedUntilFound) {
  // The answer is lost and every search fails: nothing proves anything either way.
  start_blind();
  add_job("j1", Shape::cpu_only);
  once();
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::submit_unknown);
  EXPECT_EQ(job("j1").phase, JobPhase::submit_unconfirmed);
  EXPECT_EQ(sim->stat("submits_received"), 1);
  auto blocked = journal().blocked();
  ASSERT_TRUE(blocked.ok());
  ASSERT_EQ(blocked->size(), 1u);
  EXPECT_FALSE((*blocked)[0].last_search_at.empty());
  EXPECT_TRUE((*blocked)[0].last_complete_search_at.empty()) << "an incomplete search proves nothing";
  EXPECT_NE((*blocked)[0].search_report.find("\"complete\":false"), std::string::npos) << (*blocked)[0].search_report;
  ASSERT_TRUE(sim->control(slurm::HttpMethod::del, "/sim/faults").ok());
  once();
  EXPECT_EQ(attempt("j1").state, AttemptState::pending);
  EXPECT_EQ(slurm_job_count("j1"), 1);
}

TEST_F(LostAnswerTest, ACancelThatArrivesWhileUnknownIsAppliedWhenFound) {
  start_blind();
  add_job("j1", Shape::cpu_only);
  once();
  ASSERT_EQ(attempt("j1").state, AttemptState::submit_unknown);
  set_desire_cancel("j1");
  ASSERT_TRUE(sim->control(slurm::HttpMethod::del, "/sim/faults").ok());
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::cancelled);
  EXPECT_TRUE(a.released_at.empty()) << "a job found after a cancel is never released";
  ASSERT_EQ(slurm_jobs("j1").size(), 1u);
  EXPECT_EQ(slurm_jobs("j1")[0].state.base, model::SlurmBaseState::cancelled);
}

TEST_F(LostAnswerTest, AResentPostsCopyIsCancelledWhileHeldAndTheFirstKept) {
  // The first answer is lost and the searches fail, so the job stays blocked ...
  const model::JobSnapshot first = blocked_with_its_job("j1");
  // ... while a second copy of the same body reaches Slurm (a proxy re-sent it).
  const std::uint32_t copy = submit_copy(first);
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::pending);
  EXPECT_EQ(*a.slurm_job_id, first.job_id) << "the first copy Slurm created is kept";
  EXPECT_EQ(sim_view(copy).at("state").as_string(), "CANCELLED");
  EXPECT_FALSE(sim_view(copy).at("allocated").as_bool()) << "the copy was held: it never ran";
  const auto events = story("j1");
  EXPECT_NE(std::find(events.begin(), events.end(), "duplicate"), events.end());
}

// Two copies, the first ended (cancelled by someone while held) and the second still held: the
// one that can still run is the attempt's job; nothing ran yet, and nothing is lost.
TEST_F(LostAnswerTest, OfTwoCopiesTheOneThatCanStillRunIsKept) {
  const model::JobSnapshot first = blocked_with_its_job("j1");
  const std::uint32_t copy = submit_copy(first);
  step(first.job_id, R"({"state": "CANCELLED"})");
  once();
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::pending);
  EXPECT_EQ(*a.slurm_job_id, copy) << "the copy that can still run";
  EXPECT_FALSE(a.released_at.empty());
  EXPECT_EQ(sim_view(copy).at("state").as_string(), "PENDING");
  EXPECT_EQ(job("j1").phase, JobPhase::pending);
}

// Every copy ended without running: nothing ran, so the job is retried at no cost.
TEST_F(LostAnswerTest, WhenEveryCopyEndedWithoutRunningTheJobIsRetriedAtNoCost) {
  step(blocked_with_its_job("j1").job_id, R"({"state": "CANCELLED"})");
  once();
  EXPECT_EQ(attempt("j1", 1).state, AttemptState::abandoned);
  EXPECT_NE(attempt("j1", 1).outcome_reason.find("ended without running"), std::string::npos);
  EXPECT_EQ(job("j1").max_attempts, 2);
  EXPECT_EQ(attempt("j1", 2).state, AttemptState::pending);
  EXPECT_EQ(sim->stat("submits_received"), 2);
}

// One fault rule per kind on a submit of REST version `version`; `kind` names it, with its
// status for error_response ("error_response 502").
std::vector<std::string> submit_faults(const std::string& version, const std::vector<std::string>& kinds) {
  std::vector<std::string> rules;
  const std::string where = R"("method": "POST", "path_prefix": "/slurm/)" + version + R"(/job/submit"})";
  for (const std::string& kind : kinds) {
    const auto space = kind.find(' ');
    if (space == std::string::npos) {
      rules.push_back(R"({"kind": ")" + kind + R"(", )" + where);
    } else {
      rules.push_back(R"({"kind": ")" + kind.substr(0, space) + R"(", "status": )" + kind.substr(space + 1) + ", " +
                      where);
    }
  }
  return rules;
}

// Every fault a server can show after it created the job, in many seeded orders: zero
// duplicates, every job found and adopted.
TEST_F(LostAnswerTest, SeededLostAnswersNeverDuplicateAndAlwaysAdopt) {
  start();
  const auto faults = submit_faults(
      "v0.0.45", {"drop_response", "close_mid_body", "error_response 502", "error_response 504", "garbage"});
  seeded_runs(faults, 20261201, 60);
}

TEST_F(LostAnswerTest, AnAnswerLaterThanTheRequestTimeoutIsALostAnswer) {
  start();
  seeded_runs({R"({"kind": "delay", "ms": 4000, "method": "POST", "path_prefix": "/slurm/v0.0.45/job/submit"})"}, 7, 1);
}

// 22.05 answers a failed RPC with a 500 that carries no job id: the same rules hold there.
TEST_F(LostAnswerTest, SeededLostAnswersOnTheOldDialect) {
  start({"--release", "22.05.8"}, "v0.0.38");
  const auto faults =
      submit_faults("v0.0.38", {"drop_response", "close_mid_body", "error_response 500", "error_response 502"});
  seeded_runs(faults, 38, 50);
}

// 24.11 speaks v0.0.42 with its own rules (cancels answered with a status list, 1007 as 511):
// the client chooses it by itself, and the same rules hold.
TEST_F(LostAnswerTest, SeededLostAnswersOn2411) {
  start({"--release", "24.11.7"}, "auto");
  const auto faults =
      submit_faults("v0.0.42", {"drop_response", "close_mid_body", "error_response 502", "error_response 511"});
  seeded_runs(faults, 2411, 50);
}

// The daemon's pass threads send several submits at once while a third of the answers are
// lost at random (and others come late, keeping submits on the wire together): still one Slurm
// job per job, each found and adopted, and never a second submit.
TEST_F(LostAnswerTest, LostAnswersWithSeveralSubmitsInFlightNeverDuplicateAndAlwaysAdopt) {
  using namespace std::chrono_literals;
  settings.poll_interval = 1s;  // each cycle's search finds the blocked attempts
  start();
  const auto armed = sim->control(slurm::HttpMethod::post, "/sim/faults/random", R"({"seed": 2912, "probability": 0.5,
      "kinds": ["drop_response", "close_mid_body", "error_response", "garbage", "delay"], "status": 502, "ms": 300,
      "method": "POST", "path_prefix": "/slurm/v0.0.45/job/submit"})");
  ASSERT_TRUE(armed.ok()) << armed.error().message();
  constexpr int kJobs = 24;
  const Shape shapes[] = {Shape::gpu_single, Shape::three_pools, Shape::cpu_only};
  std::vector<std::string> ids;
  for (int i = 0; i < kJobs; ++i) {
    ids.push_back("inflight-" + std::to_string(i));
    add_job(ids.back(), shapes[i % 3]);
  }
  // Submits on the wire at once: entered `submitting` and not yet left it.
  std::mutex mutex;
  std::set<std::string> sending;
  std::size_t most_at_once = 0;
  start_daemon(
      [&](const journal::AttemptKey& key, std::string_view step) {
        std::lock_guard lock(mutex);
        if (step == "prepared->submitting") sending.insert(key.job_id);
        if (step.starts_with("submitting->")) sending.erase(key.job_id);
        most_at_once = std::max(most_at_once, sending.size());
      },
      8);
  const auto all_released = [&] {
    // Lost answers in a row make submits hold off (seconds, doubling): local time runs ahead.
    pass_local_time(std::chrono::seconds(2));
    return std::all_of(ids.begin(), ids.end(), [&](const std::string& id) {
      auto attempts = journal().attempts(id);
      return attempts.ok() && !attempts->empty() && !attempts->back().released_at.empty();
    });
  };
  const bool released = tpslurm::testing::eventually(all_released, 120s);
  stop_daemon();
  ASSERT_TRUE(released) << "not every job was found and released";
  {
    std::lock_guard lock(mutex);
    EXPECT_GE(most_at_once, 2u) << "the submits never overlapped: this test proves nothing";
    std::cout << "submits on the wire at once: at most " << most_at_once << "\n";
  }
  int found_by_search = 0;
  for (const auto& id : ids) {
    auto attempts = journal().attempts(id);
    ASSERT_TRUE(attempts.ok());
    EXPECT_EQ(attempts->size(), 1u) << id << ": a lost answer never costs a new attempt";
    EXPECT_EQ(slurm_job_count(id), 1) << id;
    if (attempt(id).found_by == "search") ++found_by_search;
  }
  std::cout << "answers lost, each found by the search: " << found_by_search << " of " << kJobs << "\n";
  EXPECT_GE(found_by_search, 3) << "too few answers were lost to prove anything";
  EXPECT_EQ(sim->stat("submits_received"), kJobs) << "a lost answer is never followed by another submit";
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
