#include "journal/state_dir_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "support/temp_dir.h"

namespace tpslurm::journal {
namespace {

TEST(StateDirLockTest, OneHolderAtATime) {
  testing::TempDir dir;
  auto first = StateDirLock::acquire(dir.path());
  ASSERT_TRUE(first.ok()) << first.error().message();
  const auto second = StateDirLock::acquire(dir.path());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().message(), "another tuneplane-slurm daemon (pid " + std::to_string(::getpid()) +
                                          ") holds " + dir.path() +
                                          "/daemon.lock; one daemon per journal: stop it or use another "
                                          "TUNEPLANE_STATE_DIR");
}

TEST(StateDirLockTest, ReleasedWhenTheHolderGoesAway) {
  testing::TempDir dir;
  { auto held = StateDirLock::acquire(dir.path()); ASSERT_TRUE(held.ok()); }
  EXPECT_TRUE(StateDirLock::acquire(dir.path()).ok());
}

}  // namespace
}  // namespace tpslurm::journal
