// Controller::commit_from_outside: a job the API journals through the daemon's own writer
// (one connection, so SQLite's data_version does not move) still gets its pass at once, not
// at the next cycle. (A write after the loop has ended: JournalWriterTest, close().)
#include <chrono>

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

}  // namespace
}  // namespace tpslurm::reconcile::testing
