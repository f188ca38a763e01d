#include "base/operator_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "base/file_system.h"

namespace tpslurm {
namespace {

// The rule, judged on the opened file (so the file judged is the file read).
Status check_operator_file(const std::string& path, const struct stat& info, uid_t reader_uid) {
  if (!S_ISREG(info.st_mode)) return invalid_argument(path + " is not a regular file");
  if (info.st_uid != 0 && info.st_uid != reader_uid) {
    return invalid_argument(path + " belongs to uid " + std::to_string(info.st_uid) +
                            ", neither root nor this process's user (uid " + std::to_string(reader_uid) +
                            "); whoever owns it decides what it says: chown root " + path);
  }
  if ((info.st_mode & 022u) != 0) {
    return invalid_argument(path + " is writable by its group or others (mode " + mode_text(info.st_mode) +
                            "); only its owner may change what it says: chmod go-w " + path);
  }
  return ok_status();
}

}  // namespace

Result<std::string> read_operator_file(const std::string& path, uid_t reader_uid) {
  // O_NONBLOCK: a FIFO put in its place is refused, not waited on.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return system_error("open", path, errno);
  struct stat info {};
  Status checked = ::fstat(fd, &info) == 0 ? check_operator_file(path, info, reader_uid)
                                           : Status(system_error("stat", path, errno));
  Result<std::string> content =
      checked.ok() ? read_open_file(fd, path, kMaxOperatorFileBytes) : Result<std::string>(checked.error());
  ::close(fd);
  return content;
}

}  // namespace tpslurm
