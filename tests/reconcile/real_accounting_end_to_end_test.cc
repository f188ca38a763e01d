// On the real Slurm 22.05 with slurmdbd and a MinJobAge of 2 s (tools/test's accounting
// cluster): a job that ends while the daemon is down has left slurmctld when the daemon comes
// back; with its exit.json gone too, only slurmdbd knows how it ended — and the job ends with
// that true state, not `lost`.
#include <filesystem>
#include <thread>

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

}  // namespace
}  // namespace tpslurm::reconcile::testing
