#include "journal/daemon_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "base/file_system.h"

namespace tpslurm::journal {
namespace {

// The pid the holder wrote into the lock file.
std::string read_holder(int fd) {
  char pid[32] = {};
  const ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
  std::string holder = n > 0 ? std::string(pid, static_cast<std::size_t>(n)) : std::string();
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
  return holder.empty() ? std::string("unknown") : holder;
}

}  // namespace

std::string DaemonLock::path_for(const std::string& journal_path) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(journal_path, error);
  if (error) return journal_path + ".lock";
  const std::filesystem::path resolved = std::filesystem::weakly_canonical(absolute, error);
  return (error ? absolute : resolved).string() + ".lock";
}

Result<DaemonLock> DaemonLock::acquire(const std::string& journal_path) {
  std::string path = path_for(journal_path);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return system_error("open", path, errno);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int saved = errno;
    const std::string holder = read_holder(fd);
    ::close(fd);
    if (saved == EWOULDBLOCK) {
      return invalid_argument("another tuneplane-slurm daemon (pid " + holder + ") holds " + path +
                              "; one daemon per journal: stop it or point TUNEPLANE_JOURNAL at another journal");
    }
    return system_error("flock", path, saved);
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int saved = errno;
    ::close(fd);
    return system_error("write", path, saved);
  }
  return DaemonLock(std::move(path), fd);
}

Result<std::optional<std::string>> DaemonLock::holder(const std::string& journal_path) {
  const std::string path = path_for(journal_path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return system_error("open", path, errno);
  }
  std::optional<std::string> holder;
  if (::flock(fd, LOCK_SH | LOCK_NB) == 0) {
    ::flock(fd, LOCK_UN);
  } else if (errno == EWOULDBLOCK) {
    holder = read_holder(fd);
  } else {
    const int saved = errno;
    ::close(fd);
    return system_error("flock", path, saved);
  }
  ::close(fd);
  return holder;
}

DaemonLock::DaemonLock(DaemonLock&& other) noexcept : m_path(std::move(other.m_path)), m_fd(other.m_fd) {
  other.m_fd = -1;
}

DaemonLock& DaemonLock::operator=(DaemonLock&& other) noexcept {
  if (this != &other) {
    if (m_fd >= 0) ::close(m_fd);
    m_path = std::move(other.m_path);
    m_fd = other.m_fd;
    other.m_fd = -1;
  }
  return *this;
}

DaemonLock::~DaemonLock() {
  if (m_fd >= 0) ::close(m_fd);
}

}  // namespace tpslurm::journal
