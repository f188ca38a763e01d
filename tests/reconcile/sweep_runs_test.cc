// A sweep's runs are jobs of their own to the reconciler (docs/api.md, "Sweeps"); its
// max_running holds how many of them hold an attempt at once.
#include <algorithm>

#include "reconcile_fixture.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::JobPhase;

class SweepRunsTest : public ReconcileTest {
 protected:
  const std::vector<std::string> kRuns = {"sw-0", "sw-1", "sw-2"};

  // The runs that hold an attempt that has not ended.
  std::vector<std::string> holding() {
    std::vector<std::string> out;
    for (const std::string& run : kRuns) {
      auto attempts = journal().attempts(run);
      EXPECT_TRUE(attempts.ok());
      if (attempts.ok() && !attempts->empty() && !model::is_final(attempts->back().state)) out.push_back(run);
    }
    return out;
  }
};

TEST_F(SweepRunsTest, AtMostMaxRunningRunsHoldAnAttemptAtOnce) {
  start();
  add_sweep("sw", kRuns, Shape::cpu_only, 2);
  once();
  EXPECT_EQ(holding(), (std::vector<std::string>{"sw-0", "sw-1"}));
  EXPECT_EQ(job("sw-2").phase, JobPhase::queued);
  EXPECT_EQ(slurm_job_count("sw-2"), 0);

  // The first run ends: its room goes to the third at the next cycle.
  const std::uint32_t id = *attempt("sw-0").slurm_job_id;
  step(id, R"({"state": "RUNNING"})");
  once();
  EXPECT_EQ(holding().size(), 2u);
  step(id, R"({"state": "COMPLETED"})");
  once();
  once();
  EXPECT_EQ(attempt("sw-0").state, AttemptState::succeeded);
  EXPECT_EQ(holding(), (std::vector<std::string>{"sw-1", "sw-2"}));
  EXPECT_EQ(slurm_job_count("sw-2"), 1);
}

TEST_F(SweepRunsTest, WithoutMaxRunningEveryRunIsSubmittedAtOnce) {
  start();
  add_sweep("sw", kRuns, Shape::cpu_only, std::nullopt);
  once();
  EXPECT_EQ(holding(), kRuns);
  for (const std::string& run : kRuns) EXPECT_EQ(slurm_job_count(run), 1) << run;
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
