// DaemonLock: one daemon per journal file.
//
// The lock file sits beside the journal: `<journal path>.lock`, the journal's path made
// absolute with its symbolic links resolved, so two spellings of one journal (a relative
// TUNEPLANE_JOURNAL, a symlinked directory) share one lock while two journals in one state
// directory do not. (Two hard links to one journal are two paths; do not make them.)
//
// acquire() takes an exclusive, non-blocking flock on that file and writes the holder's pid
// into it; a second holder is refused with the first one's pid. The lock is released when
// the object is destroyed or the process dies (the kernel drops flocks of dead processes, so
// a crash never leaves a stale lock). Move-only. Everything that changes the journal's schema
// or runs the reconciler (`migrate`, later `serve`) holds it.
//
// holder() tells who holds the lock without keeping it and without creating the file (for
// `journal check`); its probe is a shared flock dropped at once, so a daemon starting in that
// instant may be refused and has to be started again.
#pragma once

#include <optional>
#include <string>

#include "base/result.h"

namespace tpslurm::journal {

class DaemonLock {
 public:
  // `<journal path>.lock`, for the journal's absolute path with symbolic links resolved.
  static std::string path_for(const std::string& journal_path);

  static Result<DaemonLock> acquire(const std::string& journal_path);

  // The holder's pid as written in the lock file ("unknown" if it wrote none), or nullopt
  // when nobody holds the lock.
  static Result<std::optional<std::string>> holder(const std::string& journal_path);

  DaemonLock(DaemonLock&& other) noexcept;
  DaemonLock& operator=(DaemonLock&& other) noexcept;
  DaemonLock(const DaemonLock&) = delete;
  DaemonLock& operator=(const DaemonLock&) = delete;
  ~DaemonLock();

  const std::string& path() const { return m_path; }

 private:
  DaemonLock(std::string path, int fd) : m_path(std::move(path)), m_fd(fd) {}
  std::string m_path;
  int m_fd = -1;
};

}  // namespace tpslurm::journal
