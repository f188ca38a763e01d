// The journal under failing I/O (support/fault_vfs.h): for every read, write, sync and
// truncate a short sequence of journal calls makes, that call fails -- once, and always from
// there until cleared. No call may crash or throw; every failure is an Error; once the fault
// clears the same connection works again and `journal check` finds the file clean.
#include <gtest/gtest.h>

#include <iostream>

#include "journal/journal.h"
#include "journal/journal_check.h"
#include "support/fault_vfs.h"
#include "support/temp_dir.h"

namespace tpslurm::journal {
namespace {

using tpslurm::testing::FaultMode;
using tpslurm::testing::FaultVfs;
using tpslurm::testing::WriteFault;

const NewJob kJob{"j1", R"({"job_id":"j1"})", std::string(64, 'a'), "/s/ingest_token", "hmac", 1};

// The calls under test; returns how many failed.
int exercise(Journal& journal) {
  int failed = 0;
  failed += journal.add_job(kJob).ok() ? 0 : 1;
  failed += journal.live_job_ids().ok() ? 0 : 1;
  failed += journal.set_meta("last_poll", "now").ok() ? 0 : 1;
  failed += journal.jobs().ok() ? 0 : 1;
  failed += journal.job("j1").ok() ? 0 : 1;
  failed += journal.meta("last_poll").ok() ? 0 : 1;
  failed += journal.events_after(0, 10).ok() ? 0 : 1;
  return failed;
}

TEST(JournalIoFaultTest, EveryFailedCallIsAnErrorAndTheConnectionRecoversWhenTheFaultClears) {
  FaultVfs& vfs = FaultVfs::install();
  SystemClock clock;
  std::int64_t total = 0;
  {
    tpslurm::testing::TempDir dir;
    auto journal = Journal::open(dir.file("journal.db"), clock);
    ASSERT_TRUE(journal.ok()) << journal.error().message();
    vfs.watch(dir.path());
    vfs.reset();
    ASSERT_EQ(exercise(**journal), 0);
    total = vfs.calls();
  }
  ASSERT_GT(total, 5) << "the fault VFS does not see the journal's I/O";
  int failures = 0;
  for (const FaultMode mode : {FaultMode::once, FaultMode::always}) {
    for (std::int64_t n = 1; n <= total && !HasFailure(); ++n) {
      tpslurm::testing::TempDir dir;
      vfs.watch("");
      auto journal = Journal::open(dir.file("journal.db"), clock);
      ASSERT_TRUE(journal.ok()) << journal.error().message();
      vfs.watch(dir.path());
      vfs.reset();
      vfs.arm({n, mode, n % 2 == 0 ? WriteFault::disk_full : WriteFault::io_error});
      failures += exercise(**journal);
      vfs.clear();
      const std::string what = "fault at " + std::to_string(n) + (mode == FaultMode::once ? " once" : " always");
      EXPECT_EQ(exercise(**journal), 0) << what << ": the connection works again";
      auto live = (*journal)->live_job_ids();
      ASSERT_TRUE(live.ok()) << what;
      EXPECT_EQ(*live, std::vector<std::string>{"j1"}) << what;
      for (const auto& check : check_journal(dir.file("journal.db"))) {
        EXPECT_TRUE(check.ok) << what << ": " << check.name << ": " << check.detail;
      }
    }
  }
  EXPECT_GT(failures, 0) << "no fault reached a call";
  std::cout << "journal I/O faults: " << total << " calls, " << 2 * total << " runs, " << failures
            << " calls failed, no crash, all recovered\n";
}

}  // namespace
}  // namespace tpslurm::journal
