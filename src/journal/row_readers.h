// Reading journal rows into records and building attempt updates. Internal to journal/.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <string>
#include <string_view>
#include <vector>

#include "journal/records.h"
#include "journal/statement_cache.h"

namespace tpslurm::journal {

// SELECT lists whose column order read_job_row / read_attempt_row expect.
extern const std::string_view kJobColumns;
extern const std::string_view kAttemptColumns;

JobRecord read_job_row(SQLite::Statement& row);
AttemptRecord read_attempt_row(SQLite::Statement& row);
TimelineEntry read_timeline_row(SQLite::Statement& row);
BlockedEntry read_blocked_row(SQLite::Statement& row);
CleanupEntry read_cleanup_row(SQLite::Statement& row);

// UPDATE attempts SET <the columns AttemptChanges sets, plus set()> WHERE key AND state = from.
class AttemptUpdate {
 public:
  AttemptUpdate(StatementCache& statements, const AttemptChanges& changes);
  void set(std::string column, std::string value);
  // Rows changed (0 when the attempt is not in `from`).
  int execute(const AttemptKey& key, model::AttemptState from);

 private:
  struct Assignment {
    std::string column;
    std::optional<std::string> text;
    std::optional<std::int64_t> number;
  };
  StatementCache& m_statements;
  std::vector<Assignment> m_assignments;
};

}  // namespace tpslurm::journal
