#include "explore_hostile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

namespace tpslurm::soak {
namespace {

// A small regular file `name` in the directory `dir_fd`; false when it could not be made.
bool small_file(int dir_fd, const std::string& name) {
  const int fd = ::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
  if (fd < 0) return false;
  static constexpr char kLine[] = "a line the job wrote\n";
  const bool written = ::write(fd, kLine, sizeof kLine - 1) == static_cast<ssize_t>(sizeof kLine - 1);
  return ::close(fd) == 0 && written;
}

std::vector<std::string> names_of_any_bytes() {
  return {std::string("ctl\x01\x02\x7f"),
          "esc\x1b[31mred\x1b[0m",
          "bad-utf8-\xff\xfe\xc3\x28",
          "quote\"double",
          "quote'single",
          "new\nline",
          "back\\slash",
          "-dash-first",
          " blanks\tand tab ",
          "$(touch pwned);`id`",
          "%s%n%x",
          std::string(255, 'n')};
}

bool deep_tree(int logs_fd, const std::string& outside_dir) {
  int fd = ::dup(logs_fd);
  const char* name = "deep";
  bool made = fd >= 0;
  for (int level = 0; made && level < kDeepLevels; ++level, name = "d") {
    const int next = ::mkdirat(fd, name, 0750) == 0 ? ::openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                                                     : -1;
    ::close(fd);
    fd = next;
    made = fd >= 0;
  }
  made = made && small_file(fd, "bottom.log") && ::symlinkat(outside_dir.c_str(), fd, "out") == 0;
  if (fd >= 0) ::close(fd);
  return made;
}

}  // namespace

Result<std::string> plant_hostile_files(const std::string& logs_dir, const std::string& outside_dir) {
  const int logs = ::open(logs_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (logs < 0) return not_found(logs_dir + " is not a directory");
  std::string failed;
  const int sparse = ::openat(logs, "sparse.bin", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
  if (sparse < 0 || ::ftruncate(sparse, kSparseBytes) != 0) failed = "the sparse file";
  if (sparse >= 0) ::close(sparse);
  for (int i = 0; failed.empty() && i < kManyFiles; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "many-%05d.log", i);
    if (!small_file(logs, name)) failed = name;
  }
  for (const auto& name : names_of_any_bytes()) {
    if (failed.empty() && !small_file(logs, name)) failed = "a file named of odd bytes";
  }
  if (failed.empty() && !deep_tree(logs, outside_dir)) failed = "the deep tree";
  ::close(logs);
  if (!failed.empty()) return permanent("cannot plant " + failed + " in " + logs_dir);
  return "a 100 GiB sparse file, " + std::to_string(kManyFiles) + " small files, " +
         std::to_string(names_of_any_bytes().size()) + " names of odd bytes and a tree " +
         std::to_string(kDeepLevels) + " deep (a link out at its bottom) in " + logs_dir;
}

}  // namespace tpslurm::soak
