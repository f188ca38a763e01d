#include "base/file_system.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/temp_dir.h"

namespace tpslurm {
namespace {

using testing::TempDir;

TEST(FileSystemTest, JoinsWithoutDoubleSlashes) {
  EXPECT_EQ(join_path("/a/", "/b"), "/a/b");
  EXPECT_EQ(join_path("/", "b"), "/b");
  EXPECT_EQ(join_path("/a", ""), "/a");
}

TEST(FileSystemTest, ParentDirectory) {
  EXPECT_EQ(parent_directory("/a/b/c"), "/a/b");
  EXPECT_EQ(parent_directory("/a"), "/");
  EXPECT_EQ(parent_directory("a"), ".");
}

TEST(FileSystemTest, MakesNestedDirectoriesWithTheirMode) {
  TempDir dir;
  ASSERT_TRUE(make_directories(dir.file("a/b/c"), 0700).ok());
  EXPECT_TRUE(std::filesystem::is_directory(dir.file("a/b/c")));
  EXPECT_TRUE(make_directories(dir.file("a/b/c"), 0700).ok());
  testing::write_test_file(dir.file("f"), "x");
  const Status status = make_directories(dir.file("f"), 0700);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(), dir.file("f") + " exists and is not a directory");
}

TEST(FileSystemTest, ReadRefusesOversizedFiles) {
  TempDir dir;
  testing::write_test_file(dir.file("big"), std::string(100, 'x'));
  EXPECT_EQ(*read_file(dir.file("big"), 100), std::string(100, 'x'));
  const auto result = read_file(dir.file("big"), 99);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message(), dir.file("big") + " is larger than 99 bytes");
}

TEST(FileSystemTest, SystemErrorsSayWhatWhereAndWhy) {
  const auto missing = read_file("/nonexistent/x", 10);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind(), ErrorKind::not_found);
  EXPECT_EQ(missing.error().message(), "open /nonexistent/x: No such file or directory");
}

}  // namespace
}  // namespace tpslurm
