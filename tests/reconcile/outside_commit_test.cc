// Controller::commit_from_outside: a job the API journals through the daemon's own writer
// (one connection, so SQLite's data_version does not move) still gets its pass at once, not
// at the next cycle. (A write after the loop has ended: JournalWriterTest, close().)
#include <chrono>
#include <string>
#include <thread>

#include "reconcile_fixture.h"
#include "support/eventually.h"

namespace tpslurm::reconcile::testing {
namespace {

using namespace std::chrono_literals;
using tpslurm::testing::eventually;

class OutsideCommitTest : public ReconcileTest {
 protected:
  bool released(const std::string& job_id) {
    auto attempts = journal().attempts(job_id);
    return attempts.ok() && !attempts->empty() && !attempts->front().released_at.empty();
  }
};

TEST_F(OutsideCommitTest, AJobCommittedThroughTheDaemonsWriterGetsItsPassBeforeTheNextCycle) {
  settings.poll_interval = std::chrono::hours(1);
  start();
  add_job("first", Shape::cpu_only);
  start_daemon();
  // The first cycle has read the live jobs: only a wake can bring the next job in now.
  ASSERT_TRUE(eventually([&] { return released("first"); }, 30s)) << "the first cycle never released its job";
  add_job_through_daemon("second", Shape::cpu_only);
  EXPECT_TRUE(eventually([&] { return released("second"); }, 30s))
      << "a job journaled through the writer waited for the next cycle (an hour)";
  stop_daemon();
  EXPECT_EQ(slurm_job_count("second"), 1);
}

TEST_F(OutsideCommitTest, AJobCommittedThroughTheDaemonsWriterWakesItselfNotEveryLiveJob) {
  // A sweep's every batch of new jobs is one such commit: were each to give every live job a
  // pass, a sweep of N jobs would cost about N passes per batch.
  settings.poll_interval = std::chrono::hours(1);
  start();
  constexpr int kIdle = 30;
  for (int i = 0; i < kIdle; ++i) add_job("idle-" + std::to_string(i), Shape::cpu_only);
  start_daemon();
  ASSERT_TRUE(eventually(
      [&] {
        for (int i = 0; i < kIdle; ++i) {
          if (!released("idle-" + std::to_string(i))) return false;
        }
        return true;
      },
      60s))
      << "the first cycle never released its jobs";
  // Quiet: no pass for a while (the next cycle is an hour away).
  std::int64_t before = daemon_passes();
  for (int tries = 0;; ++tries) {
    ASSERT_LT(tries, 60) << "the daemon never went quiet";
    std::this_thread::sleep_for(500ms);
    const std::int64_t now = daemon_passes();
    if (now == before) break;
    before = now;
  }
  add_job_through_daemon("new", Shape::cpu_only);
  ASSERT_TRUE(eventually([&] { return released("new"); }, 30s)) << "the new job never got its pass";
  const std::int64_t passes = daemon_passes() - before;
  stop_daemon();
  EXPECT_GE(passes, 1);
  EXPECT_LT(passes, kIdle / 2) << "the commit of one new job gave the " << kIdle << " idle jobs a pass each";
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
