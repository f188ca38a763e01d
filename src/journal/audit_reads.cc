// The journal's reads of its audit views (schema/audit.sql): a job's timeline, the event feed,
// the blocked submissions and the cleanup backlog. Declared in journal/journal.h.
#include <SQLiteCpp/Statement.h>

#include <mutex>

#include "journal/journal.h"
#include "journal/journal_impl.h"
#include "journal/row_readers.h"
#include "journal/sqlite_error.h"

namespace tpslurm::journal {

Result<std::vector<TimelineEntry>> Journal::timeline(std::string_view job_id) {
  std::lock_guard lock(m_impl->mutex);
  try {
    std::vector<TimelineEntry> out;
    SQLite::Statement query(
        m_impl->db,
        "SELECT seq, at, job_id, request_sha256, attempt, submit_token, kind, from_state, to_state, "
        "reason, slurm_job_id, sluid, detail, user, unix_user FROM audit_timeline WHERE job_id = ? ORDER BY seq");
    query.bind(1, std::string(job_id));
    while (query.executeStep()) out.push_back(read_timeline_row(query));
    return out;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "read the timeline");
  }
}

Result<std::vector<TimelineEntry>> Journal::events_after(std::int64_t after, std::size_t limit) {
  std::lock_guard lock(m_impl->mutex);
  try {
    std::vector<TimelineEntry> out;
    Impl::Use query = m_impl->prepared(
        "SELECT seq, at, job_id, request_sha256, attempt, submit_token, kind, from_state, to_state, "
        "reason, slurm_job_id, sluid, detail, user, unix_user FROM audit_timeline WHERE seq > ? ORDER BY seq LIMIT ?");
    query->bind(1, static_cast<std::int64_t>(after));
    query->bind(2, static_cast<std::int64_t>(limit));
    while (query->executeStep()) out.push_back(read_timeline_row(*query));
    return out;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "read the events");
  }
}

Result<std::vector<BlockedEntry>> Journal::blocked() {
  std::lock_guard lock(m_impl->mutex);
  try {
    std::vector<BlockedEntry> out;
    SQLite::Statement query(m_impl->db,
                            "SELECT job_id, attempt, submit_token, intent_at, blocked_since, attempt_dir, "
                            "last_search_at, reason, last_complete_search_at, search_report, last_search_elapsed_s, "
                            "last_complete_search_elapsed_s FROM audit_blocked ORDER "
                            "BY blocked_since, job_id");
    while (query.executeStep()) out.push_back(read_blocked_row(query));
    return out;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "read blocked submissions");
  }
}

Result<std::vector<CleanupEntry>> Journal::cleanup_backlog() {
  std::lock_guard lock(m_impl->mutex);
  try {
    std::vector<CleanupEntry> out;
    SQLite::Statement query(m_impl->db,
                            "SELECT job_id, attempt, state, cleanup, slurm_job_id, slurm_state, since "
                            "FROM audit_cleanup_backlog ORDER BY since, job_id, attempt");
    while (query.executeStep()) out.push_back(read_cleanup_row(query));
    return out;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "read the cleanup backlog");
  }
}

}  // namespace tpslurm::journal
