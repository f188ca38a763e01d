#include "storage/log_seal.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "base/file_system.h"
#include "storage/artifact_hash.h"
#include "storage/attempt_tree.h"

namespace tpslurm::storage {
namespace {

constexpr std::string_view kLogsDir = "logs";

std::string not_sealed(const std::string& name, mode_t mode) {
  return name + ": " + std::string(kind_of(mode)) + ", not sealed";
}

// One regular file of logs/: hashed and made read-only through the same descriptor. A name the
// job swapped for something else since it was listed is only noted.
Status seal_file(int logs_fd, const std::string& logs_path, const std::string& name, LogSeal& seal) {
  auto file = open_beneath(logs_fd, logs_path, name, Expect::file);
  if (!file.ok()) {
    if (file.error().kind() == ErrorKind::not_found) return ok_status();
    if (file.error().kind() != ErrorKind::invalid_argument) return file.error();
    struct stat info {};
    if (::fstatat(logs_fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0) {
      seal.notes.push_back(not_sealed(name, info.st_mode));
    }
    return ok_status();
  }
  auto hash = sha256_open_file(file->fd.get(), file->path);
  if (!hash.ok()) return hash.error();
  seal.files.push_back({name, std::move(*hash)});
  if (::fchmod(file->fd.get(), file->info.st_mode & 07555) != 0) {
    seal.notes.push_back(name + (errno == EPERM ? std::string(": owned by the job user, mode kept")
                                                : ": mode kept (" + std::string(std::strerror(errno)) + ")"));
  }
  return ok_status();
}

}  // namespace

Result<LogSeal> seal_logs(const std::string& attempt_dir) {
  LogSeal seal;
  auto dir = open_attempt_directory(attempt_dir);
  if (!dir.ok()) {
    if (dir.error().kind() == ErrorKind::not_found) return seal;
    return dir.error();
  }
  auto logs = open_beneath(dir->get(), attempt_dir, kLogsDir, Expect::directory);
  if (!logs.ok()) {
    if (logs.error().kind() == ErrorKind::not_found) return seal;
    if (logs.error().kind() != ErrorKind::invalid_argument) return logs.error();
    struct stat info {};
    if (::fstatat(dir->get(), std::string(kLogsDir).c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) return logs.error();
    seal.notes.push_back(not_sealed(std::string(kLogsDir), info.st_mode));
    return seal;
  }
  auto entries = list_directory(logs->fd.get(), logs->path);
  if (!entries.ok()) return entries.error();
  for (const auto& entry : *entries) {
    if (!S_ISREG(entry.mode)) {
      seal.notes.push_back(not_sealed(entry.name, entry.mode));
      continue;
    }
    if (Status sealed = seal_file(logs->fd.get(), logs->path, entry.name, seal); !sealed.ok()) return sealed.error();
  }
  (void)::fchmod(logs->fd.get(), logs->info.st_mode & 07555);
  return seal;
}

}  // namespace tpslurm::storage
