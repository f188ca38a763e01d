// On the real Slurm 22.05 with slurmdbd and a MinJobAge of 2 s (tools/test's accounting
// cluster): a job that ends while the daemon is down has left slurmctld when the daemon comes
// back; with its exit.json gone too, only slurmdbd knows how it ended — and the job ends with
// that true state, not `lost`; and an ended attempt shows what slurmdbd recorded it used.
#include <filesystem>
#include <thread>

#include "model/usage.h"
#include "real_end_to_end_test.h"
#include "support/local_slurm.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::JobPhase;

TEST_F(EndToEndTest, AJobThatEndedWhileTheDaemonWasDownEndsWithSlurmdbdsState) {
  ASSERT_EQ(env_of("TUNEPLANE_LOCAL_SLURM_ACCOUNTING"), "1") << "this test needs the cluster with slurmdbd";
  submit("acct", R"(["/bin/sh", "-c", "sleep 3; exit 5"])");
  start_serve();
  ASSERT_TRUE(eventually("acct", [](const auto&, const auto& a) { return a.state == AttemptState::running; }));
  kill_serve();
  const auto a = attempts("acct").back();
  // Slurm forgets the job 2 s after it ended.
  bool gone = false;
  for (int i = 0; i < 120 && !gone; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    gone = m_client->get_job(slurm::JobRef{*a.slurm_job_id}).outcome == slurm::Outcome::not_found;
  }
  ASSERT_TRUE(gone) << "slurmctld still knows job " << *a.slurm_job_id;
  std::filesystem::remove(a.attempt_dir + "/logs/exit.json");
  start_serve();
  ASSERT_TRUE(closed_in("acct", JobPhase::failed)) << "phase " << model::to_string(job("acct").phase);
  const auto ended = attempts("acct").back();
  EXPECT_EQ(ended.state, AttemptState::failed);
  EXPECT_EQ(ended.slurm_state, "FAILED");
  if (tpslurm::testing::local_slurm_version() == "v0.0.38") {
    // 22.05's slurmdbd (dbv0.0.38) reports every normal exit as 0: the exit code stays unknown
    // rather than wrong.
    EXPECT_FALSE(ended.exit_code.has_value());
  } else {
    EXPECT_EQ(ended.exit_code, 5) << "23.11 and later record the exit code";
  }
  EXPECT_EQ(attempts("acct").size(), 1u);
  EXPECT_NE(last_state_detail("acct").find("\"evidence\":\"slurmdbd\""), std::string::npos)
      << last_state_detail("acct");
}

TEST_F(EndToEndTest, AnEndedAttemptShowsWhatItUsedAsSlurmdbdRecordedIt) {
  ASSERT_EQ(env_of("TUNEPLANE_LOCAL_SLURM_ACCOUNTING"), "1") << "this test needs the cluster with slurmdbd";
  submit("used", R"(["/bin/sh", "-c", "sleep 3"])", R"([
      {"name": "main", "gpu_series": "local-b", "nodes": 1, "gpus_per_node": 1, "cpus": 1, "memory_gb": 1}])");
  start_serve();
  ASSERT_TRUE(closed_in("used", JobPhase::succeeded)) << "phase " << model::to_string(job("used").phase);
  const auto usage = model::parse_usage(attempts("used").back().usage);
  ASSERT_TRUE(usage) << "usage: " << attempts("used").back().usage;
  ASSERT_TRUE(usage->none.empty()) << usage->none;
  ASSERT_EQ(usage->components.size(), 1u);
  const model::ComponentUsage& c = usage->components[0];
  EXPECT_GE(c.allocation.elapsed_seconds, 3);
  EXPECT_GE(c.allocation.cpus, 1);
  EXPECT_GE(c.allocation.memory_mb, 1024);
  EXPECT_EQ(c.allocation.gpus, 1) << "AccountingStorageTRES=gres/gpu";
  EXPECT_EQ(c.gpu_series, "local-b");
  EXPECT_GT(usage->gpu_hours(), 0);
  const auto status = cli({"status", "used"});
  EXPECT_NE(status.out.find("attempt 1 used: ran "), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("GPU-hours (1 GPUs)"), std::string::npos) << status.out;
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
