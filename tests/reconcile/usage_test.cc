// What an ended attempt used, against the simulator in every release: read once from slurmdbd
// while the cleanup seals the logs, journaled with the attempt (each component's elapsed time,
// CPUs, memory, GPUs and GPU series; the attempt's GPU-hours), shown in the job's view; a cluster
// without accounting says so, never zeros; slurmdbd behind or down holds the cleanup only for a
// few spaced tries, then the attempt says why it has no usage and its cleanup closes.
#include "model/usage.h"

#include "operations/job_views.h"
#include "reconcile_fixture.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::CleanupStep;
using std::chrono::seconds;

class UsageTest : public ReconcileTest, public ::testing::WithParamInterface<const char*> {
 protected:
  // The job runs for `ran` seconds of Slurm's time, then completes and is concluded.
  void run_to_the_end(const std::string& job_id, Shape shape, int ran) {
    add_job(job_id, shape);
    once();
    const std::uint32_t id = *attempt(job_id).slurm_job_id;
    step(id, R"({"state": "RUNNING"})");
    once();
    advance_sim(ran);
    step(id, R"({"state": "COMPLETED"})");
    once();
    ASSERT_EQ(attempt(job_id).state, AttemptState::succeeded);
  }
  model::AttemptUsage usage_of(const std::string& job_id) {
    auto usage = model::parse_usage(attempt(job_id).usage);
    EXPECT_TRUE(usage) << "usage journaled: " << attempt(job_id).usage;
    return usage.value_or(model::AttemptUsage{});
  }
};

TEST_P(UsageTest, AnEndedAttemptsUsageIsJournaledOnceWithItsGpuHours) {
  start({"--release", GetParam()}, "auto");
  run_to_the_end("three", Shape::three_pools, 540);  // within its 10 minutes
  const auto a = attempt("three");
  EXPECT_EQ(a.cleanup, CleanupStep::closed);
  const model::AttemptUsage usage = usage_of("three");
  ASSERT_EQ(usage.components.size(), 3u);
  for (const auto& c : usage.components) {
    EXPECT_EQ(c.allocation.elapsed_seconds, 540) << c.offset;
    EXPECT_EQ(c.allocation.gpus, 1) << c.offset;
    EXPECT_GE(c.allocation.cpus, 1) << c.offset;
    EXPECT_GT(c.allocation.memory_mb, 0) << c.offset;
    EXPECT_EQ(c.gpu_series, "h100-80g");
    EXPECT_EQ(c.partition, "gpu");
  }
  EXPECT_DOUBLE_EQ(usage.gpu_hours(), 0.45);
  EXPECT_EQ(count_events("three", "usage"), 1);
  auto view = operations::job_status(journal(), "three");
  ASSERT_TRUE(view.ok() && view->has_value());
  const auto& shown = (**view).at("attempts").as_array().back().at("usage");
  EXPECT_DOUBLE_EQ(shown.at("gpu_hours").to_number<double>(), 0.45);
  once();
  EXPECT_EQ(count_events("three", "usage"), 1) << "read once";

  run_to_the_end("cpu", Shape::cpu_only, 60);
  const model::AttemptUsage cpu = usage_of("cpu");
  ASSERT_EQ(cpu.components.size(), 1u);
  EXPECT_EQ(cpu.components[0].allocation.gpus, 0);
  EXPECT_EQ(cpu.components[0].gpu_series, "");
  EXPECT_DOUBLE_EQ(cpu.gpu_hours(), 0);
}

TEST_P(UsageTest, WithoutAccountingTheAttemptSaysSoNeverZeros) {
  start({"--release", GetParam(), "--no-accounting"}, "auto");
  run_to_the_end("j1", Shape::gpu_single, 60);
  EXPECT_EQ(attempt("j1").cleanup, CleanupStep::closed);
  EXPECT_EQ(usage_of("j1").none, "accounting is off");
  EXPECT_TRUE(usage_of("j1").components.empty());
}

TEST_P(UsageTest, SlurmdbdBehindIsWaitedForAndSlurmdbdDownOnlyForAFewTries) {
  start({"--release", GetParam()}, "auto");
  fault(R"({"kind": "accounting_lag", "seconds": 30})");
  run_to_the_end("late", Shape::gpu_single, 10);  // inside the 30 s lag
  EXPECT_EQ(attempt("late").cleanup, CleanupStep::sealing) << "slurmdbd has no record yet: asked again, spaced";
  advance_sim(31);
  pass_local_time(seconds(6));
  once();
  EXPECT_EQ(usage_of("late").components.size(), 1u);
  EXPECT_EQ(attempt("late").cleanup, CleanupStep::closed);

  fault(R"({"kind": "accounting_outage"})");
  run_to_the_end("down", Shape::gpu_single, 120);
  for (int i = 0; i < 4 && attempt("down").cleanup != CleanupStep::closed; ++i) {
    pass_local_time(seconds(21));
    once();
  }
  EXPECT_EQ(attempt("down").cleanup, CleanupStep::closed) << "usage never holds the cleanup for long";
  EXPECT_EQ(usage_of("down").none.rfind("slurmdbd did not answer", 0), 0u) << usage_of("down").none;
}

INSTANTIATE_TEST_SUITE_P(Releases, UsageTest, every_release(), release_test_name);

}  // namespace
}  // namespace tpslurm::reconcile::testing
