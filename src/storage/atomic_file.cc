#include "storage/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/read_file.h"
#include "base/uuid.h"

namespace tpslurm::storage {
namespace {

std::string parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

Status fsync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return system_error("open directory", dir, errno);
  const int rc = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  if (rc != 0) return system_error("fsync directory", dir, saved);
  return ok_status();
}

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

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view content, mode_t mode, Overwrite overwrite) {
  const std::string temp = path + ".tmp-" + new_uuid();
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return system_error("create", temp, errno);
  Status status = write_all(fd, content, temp);
  if (status.ok() && ::fchmod(fd, mode) != 0) status = system_error("chmod", temp, errno);
  if (status.ok() && ::fsync(fd) != 0) status = system_error("fsync", temp, errno);
  if (::close(fd) != 0 && status.ok()) status = system_error("close", temp, errno);
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
  return fsync_directory(parent_of(path));
}

Status make_directories(const std::string& path, mode_t mode) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (!S_ISDIR(info.st_mode)) return invalid_argument(path + " exists and is not a directory");
    return ok_status();
  }
  if (errno != ENOENT) return system_error("stat", path, errno);
  const std::string parent = parent_of(path);
  if (parent != path) {
    if (Status status = make_directories(parent, mode); !status.ok()) return status;
  }
  if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST) return system_error("mkdir", path, errno);
  return fsync_directory(parent);
}

}  // namespace tpslurm::storage
