// StatementCache: statements prepared once for a connection's life, keyed by their SQL text.
//
// SQLite compiles a statement's plan and the triggers it fires when it is prepared, which
// costs more than running the journal's small statements: every journal call reuses its
// statements instead. use() hands a statement out reset and unbound; its Use resets it again
// when the caller is done, so that no read transaction stays open. The SQL texts are a fixed
// set built by the journal's code (column lists never come from input), so the cache stays
// small. Not thread-safe: the caller holds the connection's mutex; destroy it before the
// connection.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <map>
#include <memory>
#include <string>

namespace tpslurm::journal {

class StatementCache {
 public:
  explicit StatementCache(SQLite::Database& db) : m_db(db) {}

  class Use {
   public:
    explicit Use(SQLite::Statement& statement) : m_statement(statement) {}
    // tryReset: after a failed step sqlite3_reset returns that step's error again, which the
    // caller has already turned into an Error; a destructor must not throw it.
    ~Use() {
      (void)m_statement.tryReset();
      m_statement.clearBindings();
    }
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;
    SQLite::Statement& operator*() { return m_statement; }
    SQLite::Statement* operator->() { return &m_statement; }

   private:
    SQLite::Statement& m_statement;
  };

  // The statement for `sql`, prepared on first use. Throws SQLite::Exception as preparing does.
  Use use(const std::string& sql);

 private:
  SQLite::Database& m_db;
  std::map<std::string, std::unique_ptr<SQLite::Statement>, std::less<>> m_statements;
};

}  // namespace tpslurm::journal
