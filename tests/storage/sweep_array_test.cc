// A sweep's job array's directory (storage/sweep_array.h): written once and completely,
// left alone when complete and the same, never rewritten when different, written again after
// a crash before its script, and checked again link by link.
#include "storage/sweep_array.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "support/temp_dir.h"

namespace tpslurm::storage {
namespace {

using testing::read_test_file;
using testing::TempDir;
namespace fs = std::filesystem;

class SweepArrayTest : public ::testing::Test {
 protected:
  SweepArrayLayout layout(std::string script = "#!/bin/bash\necho array\n") const {
    return {std::move(script), {"/lustre/a/attempts/1", "/lustre/b/attempts/1", "/lustre/c/attempts/2"}, {}, {}};
  }
  std::string dir() const { return sweep_array_dir(m_root.path(), "sweep-7", 1); }

  TempDir m_root;
};

TEST_F(SweepArrayTest, WritesTheScriptAndALinkPerTaskUnderTheSweep) {
  EXPECT_EQ(dir(), m_root.path() + "/slurm/sweeps/sweep-7/arrays/1");
  auto written = write_sweep_array(dir(), layout());
  ASSERT_TRUE(written.ok()) << written.error().message();
  EXPECT_EQ(*written, WriteOutcome::written);
  EXPECT_EQ(read_test_file(dir() + "/job.sh"), layout().script);
  EXPECT_EQ(fs::read_symlink(dir() + "/tasks/0"), "/lustre/a/attempts/1");
  EXPECT_EQ(fs::read_symlink(dir() + "/tasks/2"), "/lustre/c/attempts/2");
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir() + "/tasks/3")));
  struct stat info {};
  ASSERT_EQ(::stat((dir() + "/job.sh").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777u, 0400u);
  ASSERT_EQ(::stat(dir().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777u, 0700u);
  EXPECT_TRUE(verify_sweep_array(dir(), layout()).ok());
}

TEST_F(SweepArrayTest, ACompleteArrayIsLeftAloneOrNeverRewritten) {
  ASSERT_TRUE(write_sweep_array(dir(), layout()).ok());
  auto again = write_sweep_array(dir(), layout());
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(*again, WriteOutcome::already_complete);
  auto other = write_sweep_array(dir(), layout("#!/bin/bash\necho other\n"));
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().kind(), ErrorKind::corrupt);
  EXPECT_NE(other.error().message().find("never rewritten"), std::string::npos);
  EXPECT_EQ(read_test_file(dir() + "/job.sh"), layout().script);
}

TEST_F(SweepArrayTest, WhatACrashBeforeTheScriptLeftIsWrittenAgain) {
  fs::create_directories(dir() + "/tasks");
  fs::create_symlink("/elsewhere", dir() + "/tasks/0");
  auto written = write_sweep_array(dir(), layout());
  ASSERT_TRUE(written.ok()) << written.error().message();
  EXPECT_EQ(*written, WriteOutcome::rewritten);
  EXPECT_EQ(fs::read_symlink(dir() + "/tasks/0"), "/lustre/a/attempts/1");
  EXPECT_TRUE(verify_sweep_array(dir(), layout()).ok());
}

TEST_F(SweepArrayTest, VerifyNamesEveryKindOfChange) {
  ASSERT_TRUE(write_sweep_array(dir(), layout()).ok());
  fs::remove(dir() + "/tasks/1");
  fs::create_symlink("/lustre/elsewhere", dir() + "/tasks/1");
  Status moved = verify_sweep_array(dir(), layout());
  ASSERT_FALSE(moved.ok());
  EXPECT_NE(moved.error().message().find("tasks/1 leads elsewhere"), std::string::npos) << moved.error().message();

  fs::remove(dir() + "/tasks/1");
  fs::create_directory(dir() + "/tasks/1");
  EXPECT_NE(verify_sweep_array(dir(), layout()).error().message().find("not a link"), std::string::npos);
  fs::remove(dir() + "/tasks/1");
  fs::create_symlink("/lustre/b/attempts/1", dir() + "/tasks/1");
  ASSERT_TRUE(verify_sweep_array(dir(), layout()).ok());

  fs::create_symlink("/lustre/d", dir() + "/tasks/3");
  EXPECT_NE(verify_sweep_array(dir(), layout()).error().message().find("beyond its 3 tasks"), std::string::npos);
  fs::remove(dir() + "/tasks/3");

  EXPECT_NE(verify_sweep_array(dir(), layout("#!/bin/bash\n")).error().message().find("not the array's script"),
            std::string::npos);
  EXPECT_EQ(verify_sweep_array(m_root.file("nowhere"), layout()).error().kind(), ErrorKind::not_found);
}

TEST_F(SweepArrayTest, RefusesAnArrayWithoutTasksOrWithARelativeTask) {
  EXPECT_EQ(write_sweep_array(dir(), {"#!/bin/bash\n", {}, {}, {}}).error().kind(), ErrorKind::invalid_argument);
  EXPECT_EQ(write_sweep_array(dir(), {"#!/bin/bash\n", {"lustre/a"}, {}, {}}).error().kind(),
            ErrorKind::invalid_argument);
  EXPECT_FALSE(fs::exists(dir()));
}

}  // namespace
}  // namespace tpslurm::storage
