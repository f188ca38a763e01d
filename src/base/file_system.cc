#include "base/file_system.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tpslurm {

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777u));
  return text;
}

Error system_error(std::string_view what, const std::string& path, int error_number) {
  const ErrorKind kind = (error_number == ENOENT) ? ErrorKind::not_found
                         : (error_number == EEXIST || error_number == EACCES || error_number == EPERM ||
                            error_number == EROFS || error_number == ENOTDIR || error_number == EISDIR)
                             ? ErrorKind::invalid_argument
                             : ErrorKind::transient;
  return {kind, std::string(what) + " " + path + ": " + std::strerror(error_number)};
}

std::string parent_directory(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string join_path(std::string_view root, std::string_view relative) {
  std::string out(root);
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  while (!relative.empty() && relative.front() == '/') relative.remove_prefix(1);
  if (relative.empty()) return out;
  if (out != "/") out += '/';
  out += relative;
  return out;
}

namespace {

// `sync` (fsync, syncfs) of what `path` opens to with `flags`; `opening` and `syncing` name the
// steps in an error.
Status sync_opened(const std::string& path, int flags, int (*sync)(int), std::string_view opening,
                   std::string_view syncing) {
  const int fd = ::open(path.c_str(), flags | O_RDONLY | O_CLOEXEC);
  if (fd < 0) return system_error(opening, path, errno);
  const int rc = sync(fd);
  const int saved = errno;
  ::close(fd);
  if (rc != 0) return system_error(syncing, path, saved);
  return ok_status();
}

}  // namespace

Status fsync_directory(const std::string& dir) {
  return sync_opened(dir, O_DIRECTORY, ::fsync, "open directory", "fsync directory");
}

Status set_group_and_mode(const std::string& path, mode_t mode, std::optional<gid_t> group) {
  if (group && ::chown(path.c_str(), static_cast<uid_t>(-1), *group) != 0) return system_error("chgrp", path, errno);
  if (::chmod(path.c_str(), mode) != 0) return system_error("chmod", path, errno);
  return ok_status();
}

Status make_directories(const std::string& path, mode_t mode, std::optional<gid_t> group, Flush flush) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (!S_ISDIR(info.st_mode)) return invalid_argument(path + " exists and is not a directory");
    return ok_status();
  }
  if (errno != ENOENT) return system_error("stat", path, errno);
  const std::string parent = parent_directory(path);
  if (parent != path) {
    if (Status status = make_directories(parent, mode, group, flush); !status.ok()) return status;
  }
  // Created closed; opened to its group only once it has the group.
  if (::mkdir(path.c_str(), 0700) != 0) {
    if (errno == EEXIST) return ok_status();
    return system_error("mkdir", path, errno);
  }
  if (Status given = set_group_and_mode(path, mode, group); !given.ok()) return given;
  return flush == Flush::now ? fsync_directory(parent) : ok_status();
}

Status flush_filesystem(const std::string& path) { return sync_opened(path, 0, ::syncfs, "open", "syncfs"); }

Result<std::string> read_open_file(int fd, const std::string& path, std::size_t max_bytes) {
  std::string content;
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return system_error("read", path, errno);
    }
    if (n == 0) break;
    if (content.size() + static_cast<std::size_t>(n) > max_bytes) {
      return invalid_argument(path + " is larger than " + std::to_string(max_bytes) + " bytes");
    }
    content.append(buffer, static_cast<std::size_t>(n));
  }
  return content;
}

Result<std::string> read_file(const std::string& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return system_error("open", path, errno);
  auto content = read_open_file(fd, path, max_bytes);
  ::close(fd);
  return content;
}

}  // namespace tpslurm
