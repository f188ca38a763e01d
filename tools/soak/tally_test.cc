// The soak's verdict counts what it claims to count: a clean run is 0/0/0, and each kind of
// fault planted on purpose — a second Slurm job for one attempt, a Slurm job no attempt knows,
// an attempt holding a job Slurm never had, an attempt ended lost, a job left unended, an
// ended attempt whose cleanup is open — raises its own figure.
#include "tally.h"

#include <gtest/gtest.h>

namespace tpslurm::soak {
namespace {

AttemptRow row(const std::string& job, int number, const std::string& state, const std::string& cleanup,
               std::int64_t slurm_id, const std::string& phase) {
  AttemptRow a;
  a.job_id = job;
  a.number = number;
  a.state = state;
  a.cleanup = cleanup;
  a.slurm_job_id = slurm_id;
  a.job_phase = phase;
  return a;
}

SimJob sim_job(std::int64_t id, const std::string& name, bool started = true) {
  SimJob job;
  job.id = id;
  job.name = name;
  job.state = "COMPLETED";
  job.started = started;
  return job;
}

TEST(SoakTally, ACleanRunIsZeroEverywhere) {
  const Tally t = tally({row("a", 1, "succeeded", "closed", 1, "succeeded")}, {sim_job(1, "tp-soak-a-1")});
  EXPECT_EQ(t.attempts, 1);
  EXPECT_EQ(t.duplicates + t.losses + t.unfinished, 0) << (t.findings.empty() ? "" : t.findings.front());
}

TEST(SoakTally, EachPlantedFaultRaisesItsOwnFigure) {
  const Tally dup = tally({row("a", 1, "succeeded", "closed", 1, "succeeded")},
                          {sim_job(1, "tp-soak-a-1"), sim_job(2, "tp-soak-a-1", false)});
  EXPECT_EQ(dup.duplicates, 1);
  EXPECT_EQ(dup.duplicates_ran, 0) << "the copy never started";
  const Tally unknown = tally({}, {sim_job(7, "tp-soak-x-1")});
  EXPECT_EQ(unknown.losses, 1);
  const Tally phantom = tally({row("b", 1, "succeeded", "closed", 9, "succeeded")}, {});
  EXPECT_EQ(phantom.losses, 1);
  const Tally lost = tally({row("c", 1, "lost", "closed", 3, "lost")}, {sim_job(3, "tp-soak-c-1")});
  EXPECT_EQ(lost.losses, 1);
  const Tally unended = tally({row("d", 1, "running", "none", 4, "running")}, {sim_job(4, "tp-soak-d-1")});
  EXPECT_EQ(unended.losses, 1);
  const Tally open = tally({row("e", 1, "failed", "staging_pending", 5, "failed")}, {sim_job(5, "tp-soak-e-1")});
  EXPECT_EQ(open.unfinished, 1);
  EXPECT_EQ(open.losses, 0);
}

}  // namespace
}  // namespace tpslurm::soak
