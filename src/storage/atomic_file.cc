#include "storage/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/file_system.h"
#include "base/uuid.h"

namespace tpslurm::storage {
namespace {

Status write_all(int fd, std::string_view content, const std::string& path) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return system_error("write", path, errno);
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return ok_status();
}

// The content, then the group, then the mode (so no other group ever reads it), then fsync
// (Flush::now); closes fd either way.
Status fill_and_close(int fd, std::string_view content, mode_t mode, std::optional<gid_t> group,
                      const std::string& path, Flush flush = Flush::now) {
  Status status = write_all(fd, content, path);
  if (status.ok() && group && ::fchown(fd, static_cast<uid_t>(-1), *group) != 0) {
    status = system_error("chgrp", path, errno);
  }
  if (status.ok() && ::fchmod(fd, mode) != 0) status = system_error("chmod", path, errno);
  if (status.ok() && flush == Flush::now && ::fsync(fd) != 0) status = system_error("fsync", path, errno);
  if (::close(fd) != 0 && status.ok()) status = system_error("close", path, errno);
  return status;
}

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view content, mode_t mode, Overwrite overwrite,
                             std::optional<gid_t> group) {
  const std::string temp = path + ".tmp-" + new_uuid();
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return system_error("create", temp, errno);
  Status status = fill_and_close(fd, content, mode, group, temp);
  if (status.ok()) {
    if (overwrite == Overwrite::yes) {
      if (::rename(temp.c_str(), path.c_str()) != 0) status = system_error("rename to", path, errno);
    } else {
      // link() fails with EEXIST if the target appeared, unlike rename(), which replaces it.
      if (::link(temp.c_str(), path.c_str()) != 0) {
        status = errno == EEXIST ? Status(invalid_argument(path + " already exists; it is never overwritten"))
                                 : Status(system_error("link to", path, errno));
      }
      ::unlink(temp.c_str());
    }
  }
  if (!status.ok()) {
    ::unlink(temp.c_str());
    return status;
  }
  return fsync_directory(parent_directory(path));
}

Status write_new_file(const std::string& path, std::string_view content, mode_t mode, std::optional<gid_t> group,
                      Flush flush) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return invalid_argument(path + " already exists; it is never overwritten");
    return system_error("create", path, errno);
  }
  Status status = fill_and_close(fd, content, mode, group, path, flush);
  if (!status.ok()) ::unlink(path.c_str());  // what a full disk left of it is of no use
  return status;
}

}  // namespace tpslurm::storage
