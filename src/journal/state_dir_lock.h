// StateDirLock: one daemon per journal.
//
// acquire() takes an exclusive, non-blocking flock on `<state dir>/daemon.lock` and writes
// the holder's pid into it; a second daemon on the same state directory is refused with the
// holder's pid. The lock is released when the object is destroyed or the process dies (the
// kernel drops flocks of dead processes, so a crash never leaves a stale lock). Move-only.
#pragma once

#include <string>

#include "base/result.h"

namespace tpslurm::journal {

class StateDirLock {
 public:
  static Result<StateDirLock> acquire(const std::string& state_dir);

  StateDirLock(StateDirLock&& other) noexcept;
  StateDirLock& operator=(StateDirLock&& other) noexcept;
  StateDirLock(const StateDirLock&) = delete;
  StateDirLock& operator=(const StateDirLock&) = delete;
  ~StateDirLock();

  const std::string& path() const { return m_path; }

 private:
  StateDirLock(std::string path, int fd) : m_path(std::move(path)), m_fd(fd) {}
  std::string m_path;
  int m_fd = -1;
};

}  // namespace tpslurm::journal
