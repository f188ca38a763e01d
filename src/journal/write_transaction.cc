#include "journal/write_transaction.h"

#include <SQLiteCpp/Exception.h>
#include <sqlite3.h>

namespace tpslurm::journal {

bool in_transaction(SQLite::Database& db) { return sqlite3_get_autocommit(db.getHandle()) == 0; }

WriteTransaction::WriteTransaction(SQLite::Database& db, bool in_group) : m_db(db), m_in_group(in_group) {
  if (!m_in_group) {
    m_db.exec("BEGIN IMMEDIATE");
    return;
  }
  if (!in_transaction(m_db)) {
    throw SQLite::Exception("the group's transaction was rolled back by an earlier failure; nothing of it was written",
                            SQLITE_ABORT);
  }
  m_db.exec("SAVEPOINT tp_write");
}

WriteTransaction::~WriteTransaction() {
  if (m_done) return;
  // Never throws: the write's own error is what the caller reports. After an error that
  // rolled the whole transaction back there is nothing left to undo.
  if (!in_transaction(m_db)) return;
  if (m_in_group) {
    (void)m_db.tryExec("ROLLBACK TO tp_write");
    (void)m_db.tryExec("RELEASE tp_write");
  } else {
    (void)m_db.tryExec("ROLLBACK");
  }
}

void WriteTransaction::commit() {
  m_db.exec(m_in_group ? "RELEASE tp_write" : "COMMIT");
  m_done = true;
}

}  // namespace tpslurm::journal
