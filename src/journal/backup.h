// Online, consistent copies of a journal through SQLite's backup API (`journal backup`, the
// package's upgrade, `journal restore`'s copy of the current content).
#pragma once

#include <string>

#include "base/result.h"

namespace SQLite {
class Database;
}

namespace tpslurm::journal {

// Copies the database open as `source` (the journal at `source_path`, for messages) to
// `target`, which must not exist: it is written as `target.partial` and renamed, so a copy
// that fails or is interrupted never leaves a file named `target`. The copy is 0600 whatever
// the umask (a journal names every job and its user; an operator's shell has umask 022). The
// caller serializes other use of `source`.
Status copy_database(SQLite::Database& source, const std::string& source_path, const std::string& target);

// The same for the journal file at `path`, opened on a connection of its own and read only,
// whatever its migrations: a journal this binary is ahead of (before its `migrate`) or behind
// is copied as it is. It must exist.
Status backup_journal_file(const std::string& path, const std::string& target);

}  // namespace tpslurm::journal
