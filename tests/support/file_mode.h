// The permission bits (07777) of a path, not following a final symbolic link; a path that
// cannot be examined fails the test and reads as 0.
#pragma once

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <string>

namespace tpslurm::testing {

inline mode_t mode_of(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777;
}

}  // namespace tpslurm::testing
