#include "support/planted_files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tpslurm::testing {

void make_sparse(const std::string& path, std::uint64_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0660);
  ASSERT_GE(fd, 0) << path;
  EXPECT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0) << path;
  ::close(fd);
}

void make_empty_files(const std::string& dir, int count, const std::string& prefix) {
  for (int n = 0; n < count; ++n) {
    const std::string path = dir + "/" + prefix + std::to_string(n);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0660);
    ASSERT_GE(fd, 0) << path;
    ::close(fd);
  }
}

int make_chain(const std::string& dir, int depth) {
  int at = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  for (int i = 0; i < depth && at >= 0; ++i) {
    const int next = ::mkdirat(at, "d", 0770) == 0 ? ::openat(at, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    ::close(at);
    at = next;
  }
  return at;
}

}  // namespace tpslurm::testing
