#include "journal/statement_cache.h"

namespace tpslurm::journal {

StatementCache::Use StatementCache::use(const std::string& sql) {
  auto found = m_statements.find(sql);
  if (found == m_statements.end()) {
    found = m_statements.emplace(sql, std::make_unique<SQLite::Statement>(m_db, sql)).first;
  }
  (void)found->second->tryReset();
  found->second->clearBindings();
  return Use(*found->second);
}

}  // namespace tpslurm::journal
