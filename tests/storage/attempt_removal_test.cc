// Removing what a job filled (attempt_removal.h): never through a link, whatever its depth, a
// slice at a time by the entries it handled, and at the next entry after a stop request.
#include "storage/attempt_removal.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "base/unique_fd.h"
#include "support/file_mode.h"
#include "support/planted_files.h"
#include "support/temp_dir.h"
#include "support/within.h"

namespace tpslurm::storage {
namespace {

using namespace std::chrono_literals;
using testing::make_chain;
using testing::make_empty_files;
using testing::read_test_file;
using testing::TempDir;
using testing::within;
using testing::write_test_file;

using tpslurm::testing::mode_of;

class AttemptRemovalTest : public ::testing::Test {
 protected:
  AttemptRemovalTest() {
    std::filesystem::create_directories(m_attempt + "/logs");
    std::filesystem::create_directories(m_attempt + "/scratch");
    std::filesystem::create_directories(m_outside);
  }

  std::string in_attempt(const std::string& relative) const { return m_attempt + "/" + relative; }
  std::string outside(const std::string& relative) const { return m_outside + "/" + relative; }

  // Slices of `entries` each until the removal is done; returns how many it took (at most 1,000).
  template <class Remove>
  int slices_until_done(Remove remove, std::uint64_t entries, std::uint64_t* removed = nullptr) {
    for (int slices = 1; slices <= 1000; ++slices) {
      WorkSlice slice(&m_clock, {1, entries, 1s});
      auto done = remove(slice);
      EXPECT_TRUE(done.ok()) << done.error().message();
      if (!done.ok()) return -1;
      EXPECT_LE(done->entries, entries);
      if (removed != nullptr) *removed += done->entries;
      if (done->done) return slices;
    }
    return 1000;
  }

  TempDir m_dir;
  std::string m_attempt = m_dir.file("attempts/1");
  std::string m_outside = m_dir.file("outside");
  ManualClock m_clock{TimePoint{}};
};

TEST_F(AttemptRemovalTest, RemovingTheAttemptNeverFollowsALink) {
  write_test_file(outside("tree/kept"), "kept\n");
  write_test_file(outside("tree/sub/deeper"), "kept too\n");
  write_test_file(outside("file"), "the journal\n");
  ::chmod(outside("tree").c_str(), 0555);
  ::chmod(outside("file").c_str(), 0644);
  ASSERT_EQ(::symlink(outside("tree").c_str(), in_attempt("logs/evildir").c_str()), 0);
  ASSERT_EQ(::symlink(outside("file").c_str(), in_attempt("scratch/x").c_str()), 0);
  ASSERT_EQ(::mkfifo(in_attempt("scratch/pipe").c_str(), 0666), 0);
  write_test_file(in_attempt("scratch/deep/a/b/c"), "scratch\n");
  ::chmod(in_attempt("logs").c_str(), 0555);  // as the seal leaves it

  auto removed = within(10s, [&] {
    WorkSlice whole = WorkSlice::unlimited();
    return remove_attempt_directory(m_attempt, whole);
  });
  ASSERT_TRUE(removed.has_value()) << "the removal blocked";
  ASSERT_TRUE(removed->ok()) << removed->error().message();
  EXPECT_TRUE((*removed)->done);
  EXPECT_TRUE((*removed)->found);
  EXPECT_FALSE(std::filesystem::exists(m_attempt));
  EXPECT_EQ(read_test_file(outside("tree/kept")), "kept\n");
  EXPECT_EQ(read_test_file(outside("tree/sub/deeper")), "kept too\n");
  EXPECT_EQ(read_test_file(outside("file")), "the journal\n");
  EXPECT_EQ(mode_of(outside("tree")), 0555u) << "the removal changed a directory outside through a link";
  EXPECT_EQ(mode_of(outside("file")), 0644u);
  ::chmod(outside("tree").c_str(), 0755);

  WorkSlice whole = WorkSlice::unlimited();
  auto again = remove_attempt_directory(m_attempt, whole);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->done);
  EXPECT_FALSE(again->found) << "nothing left to remove";
}

TEST_F(AttemptRemovalTest, RemovingScratchRemovesALinkedScratchNotItsTarget) {
  write_test_file(outside("tree/kept"), "kept\n");
  std::filesystem::remove(in_attempt("scratch"));
  ASSERT_EQ(::symlink(outside("tree").c_str(), in_attempt("scratch").c_str()), 0);
  WorkSlice whole = WorkSlice::unlimited();
  auto removed = remove_in_attempt(m_attempt, "scratch", whole);
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(removed->done);
  EXPECT_EQ(removed->entries, 1u);
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::symlink_status(in_attempt("scratch"))));
  EXPECT_EQ(read_test_file(outside("tree/kept")), "kept\n");
  auto missing = remove_in_attempt(m_attempt, "credentials", whole);
  ASSERT_TRUE(missing.ok()) << "a missing directory is no error";
  EXPECT_TRUE(missing->done);
  EXPECT_FALSE(missing->found);
}

TEST_F(AttemptRemovalTest, ManyEntriesGoASliceAtATime) {
  make_empty_files(in_attempt("scratch"), 1000);
  std::uint64_t removed = 0;
  const int slices = slices_until_done([&](WorkSlice& slice) { return remove_in_attempt(m_attempt, "scratch", slice); },
                                       100, &removed);
  EXPECT_EQ(slices, 11) << "1,000 files and scratch/ itself, 100 a slice";
  EXPECT_EQ(removed, 1001u);
  EXPECT_FALSE(std::filesystem::exists(in_attempt("scratch")));
}

TEST_F(AttemptRemovalTest, ATreeDeeperThanTheRemovalDepthIsMovedUpAndRemoved) {
  UniqueFd deepest(make_chain(in_attempt("scratch"), 10 * kRemovalDepth));
  ASSERT_GE(deepest.get(), 0);
  ASSERT_EQ(::close(::openat(deepest.get(), "leaf", O_WRONLY | O_CREAT | O_CLOEXEC, 0600)), 0);
  deepest = UniqueFd();
  std::uint64_t removed = 0;
  const int slices =
      slices_until_done([&](WorkSlice& slice) { return remove_staging(m_attempt, slice); }, 50, &removed);
  EXPECT_GT(slices, 1);
  EXPECT_FALSE(std::filesystem::exists(in_attempt("scratch")));
  // Each directory removed once, the leaf, scratch/ itself, and one move up per kRemovalDepth.
  EXPECT_GE(removed, 10u * kRemovalDepth + 2);
  EXPECT_LE(removed, 10u * kRemovalDepth + 2 + 10);
}

TEST_F(AttemptRemovalTest, LinksAtAnyDepthAreRemovedNeverFollowed) {
  write_test_file(outside("tree/kept"), "kept\n");
  ::chmod(outside("tree").c_str(), 0555);
  UniqueFd deepest(make_chain(in_attempt("scratch"), 3 * kRemovalDepth + 5));
  ASSERT_GE(deepest.get(), 0);
  ASSERT_EQ(::symlinkat(outside("tree").c_str(), deepest.get(), "dir-link"), 0);
  ASSERT_EQ(::symlinkat(outside("tree/kept").c_str(), deepest.get(), "file-link"), 0);
  std::filesystem::create_directories(in_attempt("scratch/side"));
  UniqueFd at_depth(make_chain(in_attempt("scratch/side"), kRemovalDepth));
  ASSERT_GE(at_depth.get(), 0);
  ASSERT_EQ(::symlinkat(outside("tree").c_str(), at_depth.get(), "d2"), 0);  // where a directory moves up
  WorkSlice whole = WorkSlice::unlimited();
  auto removed = remove_staging(m_attempt, whole);
  ASSERT_TRUE(removed.ok()) << removed.error().message();
  EXPECT_TRUE(removed->done);
  EXPECT_FALSE(std::filesystem::exists(in_attempt("scratch")));
  EXPECT_EQ(read_test_file(outside("tree/kept")), "kept\n");
  EXPECT_EQ(mode_of(outside("tree")), 0555u);
  ::chmod(outside("tree").c_str(), 0755);
}

TEST_F(AttemptRemovalTest, AStopRequestEndsARemovalAfterItsNextEntry) {
  make_empty_files(in_attempt("scratch"), 100);
  std::stop_source stop;
  stop.request_stop();
  WorkSlice stopped(&m_clock, {}, stop.get_token());
  auto removed = remove_staging(m_attempt, stopped);
  ASSERT_TRUE(removed.ok());
  EXPECT_FALSE(removed->done);
  EXPECT_LE(removed->entries, 1u);
  EXPECT_TRUE(std::filesystem::exists(in_attempt("scratch")));
  WorkSlice after(&m_clock, {});
  removed = remove_staging(m_attempt, after);
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(removed->done) << "the next start goes on";
}

}  // namespace
}  // namespace tpslurm::storage
