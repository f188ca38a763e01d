#include "journal/journal_hash_cache.h"

#include "journal/sqlite_error.h"

namespace tpslurm::journal {

Result<std::optional<std::string>> JournalHashCache::lookup(const model::FileIdentity& file) {
  std::lock_guard lock(m_mutex);
  try {
    StatementCache::Use query = m_statements.use(
        "SELECT sha256 FROM artifact_hashes WHERE path = ? AND size = ? AND mtime_ns = ? AND "
        "ctime_ns = ? AND inode = ?");
    query->bind(1, file.path);
    query->bind(2, static_cast<std::int64_t>(file.size));
    query->bind(3, file.mtime_ns);
    query->bind(4, file.ctime_ns);
    query->bind(5, static_cast<std::int64_t>(file.inode));
    if (!query->executeStep()) return std::optional<std::string>();
    return std::optional<std::string>(query->getColumn(0).getString());
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_path, "look up artifact hash");
  }
}

Status JournalHashCache::store(const model::FileIdentity& file, const std::string& sha256) {
  std::lock_guard lock(m_mutex);
  try {
    StatementCache::Use upsert = m_statements.use(
        "INSERT INTO artifact_hashes (path, size, mtime_ns, ctime_ns, inode, sha256, checked_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET size = excluded.size, "
        "mtime_ns = excluded.mtime_ns, ctime_ns = excluded.ctime_ns, inode = excluded.inode, "
        "sha256 = excluded.sha256, checked_at = excluded.checked_at");
    upsert->bind(1, file.path);
    upsert->bind(2, static_cast<std::int64_t>(file.size));
    upsert->bind(3, file.mtime_ns);
    upsert->bind(4, file.ctime_ns);
    upsert->bind(5, static_cast<std::int64_t>(file.inode));
    upsert->bind(6, sha256);
    upsert->bind(7, format_utc(m_clock.now()));
    upsert->exec();
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_path, "store artifact hash");
  }
}

}  // namespace tpslurm::journal
