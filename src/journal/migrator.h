// The migrations runner.
//
// A migration is `NNNN_name.sql`, numbered from 0001 without gaps. migrate() applies the
// pending ones in order, each in its own transaction together with its row in
// schema_migrations (number, name, SHA-256 of the text, time). Foreign keys are switched off
// around each migration's transaction -- SQLite ignores PRAGMA foreign_keys inside one, and a
// migration that rebuilds a table needs them off -- and PRAGMA foreign_key_check must pass
// before it commits.
//
// Hard errors, with messages that say what to do: an applied migration whose text changed,
// an applied migration this binary does not know (a database newer than the binary), a gap
// in what was applied, a malformed or non-contiguous list in the binary.
//
// Internal to journal/ (SQLiteCpp types); tests use it directly.
#pragma once

#include <SQLiteCpp/Database.h>

#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "journal/embedded_sql.h"

namespace tpslurm::journal {

struct Migration {
  int number = 0;
  std::string name;  // "0001_initial"
  std::string sql;
  std::string sha256;
};

// Checks names (NNNN_name) and numbering (1, 2, 3, ... without gaps).
Result<std::vector<Migration>> load_migrations(std::span<const SqlFile> files);

struct MigrationStatus {
  int applied = 0;  // highest applied number (0 = empty database)
  int known = 0;    // highest number this binary has
  bool up_to_date() const { return applied == known; }
};

// Verifies what was applied against `migrations` without changing anything.
Result<MigrationStatus> check_migrations(SQLite::Database& db, const std::vector<Migration>& migrations);

// Verifies, then applies what is pending.
Result<MigrationStatus> migrate(SQLite::Database& db, const std::vector<Migration>& migrations, const Clock& clock);

}  // namespace tpslurm::journal
