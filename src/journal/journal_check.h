// `journal check`: a diagnosis of a journal file that never modifies it.
//
// Unlike Journal::open, which stops at the first problem, check_journal() runs every check it
// can and says, per check, what is wrong and what to do: the file (exists, regular, writable),
// the filesystem (local), SQLite's own integrity and foreign-key checks, WAL mode, whether
// another process holds a write lock, the migrations against this binary, the append-only
// triggers on events, and which daemon, if any, holds the journal's DaemonLock (reported,
// never a failure: a running daemon is the normal case).
#pragma once

#include <string>
#include <vector>

#include "journal/filesystem_check.h"

namespace tpslurm::journal {

struct CheckResult {
  std::string name;
  bool ok = true;
  std::string detail;  // what was found; with the fix when !ok
};

std::vector<CheckResult> check_journal(const std::string& path, const FilesystemProbe& probe = probe_filesystem);

}  // namespace tpslurm::journal
