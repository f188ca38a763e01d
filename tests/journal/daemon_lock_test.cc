#include "journal/daemon_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "support/temp_dir.h"

namespace tpslurm::journal {
namespace {

TEST(DaemonLockTest, OneHolderPerJournalNamingThePid) {
  testing::TempDir dir;
  auto first = DaemonLock::acquire(dir.file("journal.db"));
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_EQ(first->path(), dir.file("journal.db.lock"));
  const auto second = DaemonLock::acquire(dir.file("journal.db"));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().message(), "another tuneplane-slurm daemon (pid " + std::to_string(::getpid()) +
                                          ") holds " + dir.file("journal.db.lock") +
                                          "; one daemon per journal: stop it or point TUNEPLANE_JOURNAL at another "
                                          "journal");
}

TEST(DaemonLockTest, TwoJournalsInOneDirectoryAreTwoLocks) {
  testing::TempDir dir;
  auto first = DaemonLock::acquire(dir.file("a.db"));
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(DaemonLock::acquire(dir.file("b.db")).ok());
}

TEST(DaemonLockTest, TwoSpellingsOfOneJournalShareTheLock) {
  testing::TempDir dir;
  std::filesystem::create_directory(dir.file("real"));
  std::filesystem::create_directory_symlink(dir.file("real"), dir.file("link"));
  auto held = DaemonLock::acquire(dir.file("real/journal.db"));
  ASSERT_TRUE(held.ok());
  const auto through_link = DaemonLock::acquire(dir.file("link/journal.db"));
  ASSERT_FALSE(through_link.ok());
  EXPECT_NE(through_link.error().message().find("holds " + dir.file("real/journal.db.lock")), std::string::npos)
      << through_link.error().message();
}

TEST(DaemonLockTest, ReleasedWhenTheHolderGoesAway) {
  testing::TempDir dir;
  { auto held = DaemonLock::acquire(dir.file("journal.db")); ASSERT_TRUE(held.ok()); }
  EXPECT_TRUE(DaemonLock::acquire(dir.file("journal.db")).ok());
}

TEST(DaemonLockTest, HolderTellsWhoHoldsItWithoutCreatingOrKeepingIt) {
  testing::TempDir dir;
  EXPECT_EQ(DaemonLock::holder(dir.file("journal.db")).value(), std::nullopt);
  EXPECT_FALSE(std::filesystem::exists(dir.file("journal.db.lock")));
  {
    auto held = DaemonLock::acquire(dir.file("journal.db"));
    ASSERT_TRUE(held.ok());
    EXPECT_EQ(DaemonLock::holder(dir.file("journal.db")).value(), std::to_string(::getpid()));
  }
  EXPECT_EQ(DaemonLock::holder(dir.file("journal.db")).value(), std::nullopt);
  EXPECT_TRUE(DaemonLock::acquire(dir.file("journal.db")).ok());
}

}  // namespace
}  // namespace tpslurm::journal
