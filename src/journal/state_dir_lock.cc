#include "journal/state_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "base/file_system.h"

namespace tpslurm::journal {

Result<StateDirLock> StateDirLock::acquire(const std::string& state_dir) {
  std::string path = state_dir + "/daemon.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return system_error("open", path, errno);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int saved = errno;
    char pid[32] = {};
    const ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
    ::close(fd);
    if (saved == EWOULDBLOCK) {
      std::string holder = n > 0 ? std::string(pid, static_cast<std::size_t>(n)) : std::string("unknown");
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
      return invalid_argument("another tuneplane-slurm daemon (pid " + holder + ") holds " + path +
                              "; one daemon per journal: stop it or use another TUNEPLANE_STATE_DIR");
    }
    return system_error("flock", path, saved);
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int saved = errno;
    ::close(fd);
    return system_error("write", path, saved);
  }
  return StateDirLock(std::move(path), fd);
}

StateDirLock::StateDirLock(StateDirLock&& other) noexcept : m_path(std::move(other.m_path)), m_fd(other.m_fd) {
  other.m_fd = -1;
}

StateDirLock& StateDirLock::operator=(StateDirLock&& other) noexcept {
  if (this != &other) {
    if (m_fd >= 0) ::close(m_fd);
    m_path = std::move(other.m_path);
    m_fd = other.m_fd;
    other.m_fd = -1;
  }
  return *this;
}

StateDirLock::~StateDirLock() {
  if (m_fd >= 0) ::close(m_fd);
}

}  // namespace tpslurm::journal
