#include "storage/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "support/file_mode.h"
#include "support/temp_dir.h"

namespace tpslurm::storage {
namespace {

using testing::TempDir;

using tpslurm::testing::mode_of;

TEST(AtomicFileTest, WritesContentAndMode) {
  TempDir dir;
  const std::string path = dir.file("env");
  ASSERT_TRUE(write_file_atomically(path, "A='b'\n", 0400).ok());
  EXPECT_EQ(testing::read_test_file(path), "A='b'\n");
  EXPECT_EQ(mode_of(path), 0400u);
}

TEST(AtomicFileTest, LeavesNoTemporaryFiles) {
  TempDir dir;
  ASSERT_TRUE(write_file_atomically(dir.file("a"), "x", 0600).ok());
  ASSERT_TRUE(write_file_atomically(dir.file("a"), "y", 0600).ok());
  int count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++count;
  EXPECT_EQ(count, 1);
  EXPECT_EQ(testing::read_test_file(dir.file("a")), "y");
}

TEST(AtomicFileTest, NoOverwriteRefusesAnExistingFile) {
  TempDir dir;
  ASSERT_TRUE(write_file_atomically(dir.file("a"), "first", 0600, Overwrite::no).ok());
  const Status second = write_file_atomically(dir.file("a"), "second", 0600, Overwrite::no);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().message(), dir.file("a") + " already exists; it is never overwritten");
  EXPECT_EQ(testing::read_test_file(dir.file("a")), "first");
}

TEST(AtomicFileTest, ReportsAMissingDirectoryWithItsPath) {
  TempDir dir;
  const Status status = write_file_atomically(dir.file("missing/a"), "x", 0600);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message().find(dir.file("missing/a")), std::string::npos);
  EXPECT_NE(status.error().message().find("No such file or directory"), std::string::npos);
}

TEST(AtomicFileTest, NewFileGoesStraightToItsNameWithItsMode) {
  TempDir dir;
  ASSERT_TRUE(write_new_file(dir.file("job.sh"), "#!/bin/bash\n", 0440).ok());
  EXPECT_EQ(testing::read_test_file(dir.file("job.sh")), "#!/bin/bash\n");
  EXPECT_EQ(mode_of(dir.file("job.sh")), 0440u);
  int count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++count;
  EXPECT_EQ(count, 1);
}

TEST(AtomicFileTest, NewFileRefusesAnExistingOneAndLeavesItAsItWas) {
  TempDir dir;
  ASSERT_TRUE(write_new_file(dir.file("a"), "first", 0400).ok());
  const Status second = write_new_file(dir.file("a"), "second", 0600);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().message(), dir.file("a") + " already exists; it is never overwritten");
  EXPECT_EQ(testing::read_test_file(dir.file("a")), "first");
  EXPECT_EQ(mode_of(dir.file("a")), 0400u);
}

}  // namespace
}  // namespace tpslurm::storage
