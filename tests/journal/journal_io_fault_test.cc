// The journal under failing I/O (support/fault_vfs.h): for every read, write, sync and
// truncate a short sequence of journal calls makes, that call fails -- once, and always from
// there until cleared. No call may crash or throw; every failure is an Error; once the fault
// clears the same connection works again and `journal check` finds the file clean.
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

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

// How many counted I/O calls `run` makes on a fresh journal when nothing fails; 0 when the
// journal cannot be opened.
template <class Run>
std::int64_t calls_of(FaultVfs& vfs, const Clock& clock, Run run) {
  tpslurm::testing::TempDir dir;
  vfs.watch("");
  auto journal = Journal::open(dir.file("journal.db"), clock);
  EXPECT_TRUE(journal.ok()) << journal.error().message();
  if (!journal.ok()) return 0;
  vfs.watch(dir.path());
  vfs.reset();
  run(**journal);
  return vfs.calls();
}

// A fresh journal in `dir` whose counted call `n` fails as `mode` says (even n: a write fails
// with a full disk, odd n: with an I/O error); null when it cannot be opened.
std::unique_ptr<Journal> armed_journal(FaultVfs& vfs, const Clock& clock, const tpslurm::testing::TempDir& dir,
                                       std::int64_t n, FaultMode mode) {
  vfs.watch("");
  auto journal = Journal::open(dir.file("journal.db"), clock);
  EXPECT_TRUE(journal.ok()) << journal.error().message();
  if (!journal.ok()) return nullptr;
  vfs.watch(dir.path());
  vfs.reset();
  vfs.arm({n, mode, n % 2 == 0 ? WriteFault::disk_full : WriteFault::io_error});
  return std::move(*journal);
}

TEST(JournalIoFaultTest, EveryFailedCallIsAnErrorAndTheConnectionRecoversWhenTheFaultClears) {
  FaultVfs& vfs = FaultVfs::install();
  SystemClock clock;
  const std::int64_t total = calls_of(vfs, clock, [](Journal& j) { EXPECT_EQ(exercise(j), 0); });
  ASSERT_GT(total, 5) << "the fault VFS does not see the journal's I/O";
  int failures = 0;
  for (const FaultMode mode : {FaultMode::once, FaultMode::always}) {
    for (std::int64_t n = 1; n <= total && !HasFailure(); ++n) {
      tpslurm::testing::TempDir dir;
      auto journal = armed_journal(vfs, clock, dir, n, mode);
      ASSERT_TRUE(journal);
      failures += exercise(*journal);
      vfs.clear();
      const std::string what = "fault at " + std::to_string(n) + (mode == FaultMode::once ? " once" : " always");
      EXPECT_EQ(exercise(*journal), 0) << what << ": the connection works again";
      auto live = journal->live_job_ids();
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

// A group of three writes: for every read, write, sync and truncate it makes, that call fails
// (once, or from there on). What a group may report is what it wrote: when end_group() is ok,
// exactly the writes that reported ok are in the file; when it fails, none is. This is the
// promise the daemon's JournalWriter makes to every pass (an intent it reports committed is
// on disk).
TEST(JournalIoFaultTest, AGroupReportsWrittenExactlyWhatItWrote) {
  FaultVfs& vfs = FaultVfs::install();
  SystemClock clock;
  const std::vector<std::string> ids{"g1", "g2", "g3"};
  struct Outcome {
    bool begun = false, committed = false;
    std::vector<bool> written;
  };
  const auto run_group = [&](Journal& journal) {
    Outcome o;
    o.begun = journal.begin_group().ok();
    if (!o.begun) return o;
    for (const auto& id : ids) o.written.push_back(journal.add_job({id, "{}", std::string(64, 'b'), "", "", 1}).ok());
    o.committed = journal.end_group().ok();
    return o;
  };
  const std::int64_t total = calls_of(vfs, clock, [&](Journal& j) { EXPECT_TRUE(run_group(j).committed); });
  ASSERT_GT(total, 2) << "the fault VFS does not see the group's I/O";
  int failed_groups = 0;
  for (const FaultMode mode : {FaultMode::once, FaultMode::always}) {
    for (std::int64_t n = 1; n <= total && !HasFailure(); ++n) {
      tpslurm::testing::TempDir dir;
      {
        auto journal = armed_journal(vfs, clock, dir, n, mode);
        ASSERT_TRUE(journal);
        const Outcome o = run_group(*journal);
        vfs.clear();
        vfs.watch("");
        failed_groups += o.committed ? 0 : 1;
        auto reopened = Journal::open(dir.file("journal.db"), clock);
        ASSERT_TRUE(reopened.ok()) << reopened.error().message();
        const std::string what = "fault at " + std::to_string(n) + (mode == FaultMode::once ? " once" : " always");
        for (std::size_t i = 0; i < ids.size(); ++i) {
          auto found = (*reopened)->job(ids[i]);
          ASSERT_TRUE(found.ok()) << what;
          const bool reported = o.committed && o.written[i];
          EXPECT_EQ(found->has_value(), reported)
              << what << ": " << ids[i] << " reported " << (reported ? "written" : "not written");
        }
      }
      for (const auto& check : check_journal(dir.file("journal.db"))) {
        EXPECT_TRUE(check.ok) << "fault at " << n << ": " << check.name << ": " << check.detail;
      }
    }
  }
  EXPECT_GT(failed_groups, 0) << "no fault reached the group";
  std::cout << "journal group faults: " << total << " calls, " << 2 * total << " runs, " << failed_groups
            << " groups failed, each reported exactly what it wrote\n";
}

}  // namespace
}  // namespace tpslurm::journal
