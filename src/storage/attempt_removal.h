// Removing what a job may have filled: an attempt's credentials/ and scratch/ at cleanup, its
// whole directory at retention, a slice at a time (work_slice.h).
//
// The job wrote scratch/ (and logs/), so the rules of attempt_tree.h hold: a link is removed,
// never followed, whatever it points to; only real directories opened O_NOFOLLOW |
// O_DIRECTORY are descended into, and a directory of the daemon's is made writable by fd
// before anything is removed from it (sealing made logs/ read-only). Entries are read as the
// directory is listed, never all at once, so a million of them cost a slice no more than the
// entries it handled. A tree deeper than kRemovalDepth is flattened on the way: a directory
// that deep is moved (renameat2, RENAME_NOREPLACE) to the top of the tree being removed,
// under a fresh name, and removed from there; no depth stops a removal, and at most
// kRemovalDepth directories are open at once.
//
// Each call does at most one slice: every entry removed or moved counts one, and the call ends
// when the slice is spent, saying whether the tree is gone. Nothing is kept between calls: the
// next one goes on from what the files show (removed entries stay removed), after a restart
// too. Names the job chose reach messages only through printable().
//
// Errors are transient, prefixed "cannot remove <path>: ": an entry the daemon may not remove
// (a directory of the job's without group write), one that keeps changing while it is
// removed (something still writes there), a system error.
//
// Thread-safe: no shared state; each call opens its own descriptors and closes them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "storage/work_slice.h"

namespace tpslurm::storage {

// Directories open at once below the top of a removal; deeper ones are moved up.
inline constexpr int kRemovalDepth = 32;

struct Removal {
  bool done = false;          // nothing is left (or nothing was there)
  bool found = false;         // there was something to remove when the call began
  std::uint64_t entries = 0;  // removed or moved up by this call
};

// Removes attempt_dir/relative and everything below it; done when it does not exist.
Result<Removal> remove_in_attempt(const std::string& attempt_dir, std::string_view relative, WorkSlice& slice);

// The cleanup's staging step: the attempt's credentials/, then its scratch/; done when both
// are gone (already, or `attempt_dir` is empty).
Result<Removal> remove_staging(const std::string& attempt_dir, WorkSlice& slice);

// The attempt directory and everything below it; done and not found when there was none.
Result<Removal> remove_attempt_directory(const std::string& attempt_dir, WorkSlice& slice);

}  // namespace tpslurm::storage
