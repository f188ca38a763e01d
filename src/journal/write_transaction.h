// WriteTransaction: what every write of the Journal runs in (internal to src/journal/).
//
// Outside a group it is the write's own transaction, as SQLite::Transaction with IMMEDIATE:
// BEGIN IMMEDIATE, COMMIT on commit(), ROLLBACK when destroyed uncommitted. Inside a group
// (Journal::begin_group) it is a savepoint of the group's transaction: commit() releases it
// into the group, destruction uncommitted rolls back this write alone, and the group commits
// once. When an earlier failure made SQLite roll the group's whole transaction back (SQLITE_FULL,
// an I/O error), a write begun in the group throws instead of running outside any transaction,
// and the group's end reports the loss. The caller holds the journal's mutex.
#pragma once

#include <SQLiteCpp/Database.h>

namespace tpslurm::journal {

class WriteTransaction {
 public:
  WriteTransaction(SQLite::Database& db, bool in_group);
  ~WriteTransaction();
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;

  // Throws SQLite::Exception when the commit (or the release) fails.
  void commit();

 private:
  SQLite::Database& m_db;
  bool m_in_group;
  bool m_done = false;
};

// Whether the connection is inside a transaction (sqlite3_get_autocommit is off).
bool in_transaction(SQLite::Database& db);

}  // namespace tpslurm::journal
