#include "journal/journal_check.h"

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "journal/daemon_lock.h"
#include "journal/journal.h"
#include "support/temp_dir.h"

namespace tpslurm::journal {
namespace {

std::string failures(const std::vector<CheckResult>& results) {
  std::string out;
  for (const auto& result : results) {
    if (!result.ok) out += result.name + ": " + result.detail + "\n";
  }
  return out;
}

TEST(JournalCheckTest, AHealthyJournalPassesEveryCheck) {
  testing::TempDir dir;
  const ManualClock clock(from_unix_seconds(0));
  { ASSERT_TRUE(Journal::open(dir.file("journal.db"), clock).ok()); }
  const auto results = check_journal(dir.file("journal.db"));
  EXPECT_EQ(failures(results), "");
  EXPECT_EQ(results.size(), 9u);
  EXPECT_EQ(results.back().name, "daemon lock");
  EXPECT_EQ(results.back().detail, "free: no daemon runs on this journal (" + dir.file("journal.db.lock") + ")");
}

TEST(JournalCheckTest, NamesTheDaemonHoldingTheJournalsLock) {
  testing::TempDir dir;
  const ManualClock clock(from_unix_seconds(0));
  { ASSERT_TRUE(Journal::open(dir.file("journal.db"), clock).ok()); }
  auto held = DaemonLock::acquire(dir.file("journal.db"));
  ASSERT_TRUE(held.ok());
  const auto results = check_journal(dir.file("journal.db"));
  EXPECT_EQ(failures(results), "");
  EXPECT_EQ(results.back().detail,
            "held by pid " + std::to_string(::getpid()) + " (" + dir.file("journal.db.lock") + ")");
}

TEST(JournalCheckTest, SaysWhatIsWrongWithAFileThatIsNoJournal) {
  testing::TempDir dir;
  testing::write_test_file(dir.file("journal.db"), "definitely not sqlite");
  const auto results = check_journal(dir.file("journal.db"));
  EXPECT_EQ(failures(results),
            "sqlite: file is not a database -- the file is damaged or not a tuneplane-slurm journal\n");
}

TEST(JournalCheckTest, NamesAMissingFileAndANetworkFilesystem) {
  testing::TempDir dir;
  EXPECT_EQ(failures(check_journal(dir.file("journal.db"))),
            "file: " + dir.file("journal.db") + " does not exist; `tuneplane-slurm migrate` creates it\n");
  const ManualClock clock(from_unix_seconds(0));
  { ASSERT_TRUE(Journal::open(dir.file("journal.db"), clock).ok()); }
  const auto on_lustre = [](const std::string&) -> Result<std::optional<std::string>> {
    return std::optional<std::string>("lustre");
  };
  EXPECT_EQ(failures(check_journal(dir.file("journal.db"), on_lustre)),
            "filesystem: on lustre: WAL needs a local disk; move the journal to local storage\n");
}

TEST(JournalCheckTest, ReportsMissingTriggersAndALock) {
  testing::TempDir dir;
  const ManualClock clock(from_unix_seconds(0));
  { ASSERT_TRUE(Journal::open(dir.file("journal.db"), clock).ok()); }
  SQLite::Database db(dir.file("journal.db"), SQLite::OPEN_READWRITE);
  db.exec("DROP TRIGGER events_no_delete");
  db.exec("BEGIN IMMEDIATE");
  const std::string text = failures(check_journal(dir.file("journal.db")));
  EXPECT_NE(text.find("append-only events: the append-only triggers are missing"), std::string::npos) << text;
  EXPECT_NE(text.find("lock: database is locked -- another process holds the journal locked"), std::string::npos)
      << text;
  db.exec("ROLLBACK");
}

}  // namespace
}  // namespace tpslurm::journal
