#include "journal_view.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <functional>

namespace tpslurm::soak {
namespace {

// What a kill can leave uncertain: a half-written attempt directory, a POST that may have been
// sent, a receipt not yet identified or released. `prepared` is only a queue: nothing was sent.
constexpr const char* kInFlight = "('preparing', 'submitting', 'submit_unknown', 'submitted')";

// Runs `read` on a fresh read-only connection; SQLite's exceptions become errors.
template <class T>
Result<T> with_db(const std::string& path, const std::function<T(SQLite::Database&)>& read) {
  try {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    db.exec("PRAGMA busy_timeout = 5000");
    return read(db);
  } catch (const std::exception& e) {
    return transient("journal " + path + ": " + e.what());
  }
}

AttemptKey key_of(const std::string& job, int number) { return job + "/" + std::to_string(number); }

}  // namespace

bool attempt_ended(const std::string& state) {
  return state == "succeeded" || state == "failed" || state == "cancelled" || state == "lost" || state == "rejected" ||
         state == "abandoned";
}

bool phase_ended(const std::string& phase) {
  return phase == "succeeded" || phase == "failed" || phase == "cancelled" || phase == "lost";
}

Result<std::map<AttemptKey, std::string>> JournalView::in_flight() const {
  return with_db<std::map<AttemptKey, std::string>>(m_path, [](SQLite::Database& db) {
    std::map<AttemptKey, std::string> out;
    SQLite::Statement q(db, std::string("SELECT job_id, number, state || '|' || coalesce(searched_at, '') FROM "
                                        "attempts WHERE state IN ") +
                                kInFlight);
    while (q.executeStep())
      out[key_of(q.getColumn(0).getString(), q.getColumn(1).getInt())] = q.getColumn(2).getString();
    return out;
  });
}

Result<std::map<AttemptKey, std::string>> JournalView::markers(const std::map<AttemptKey, std::string>& keys) const {
  return with_db<std::map<AttemptKey, std::string>>(m_path, [&keys](SQLite::Database& db) {
    std::map<AttemptKey, std::string> out;
    SQLite::Statement q(
        db, "SELECT state || '|' || coalesce(searched_at, '') FROM attempts WHERE job_id = ? AND number = ?");
    for (const auto& [key, before] : keys) {
      const auto slash = key.rfind('/');
      q.bind(1, key.substr(0, slash));
      q.bind(2, std::stoi(key.substr(slash + 1)));
      if (q.executeStep()) out[key] = q.getColumn(0).getString();
      q.reset();
    }
    return out;
  });
}

Result<std::vector<AttemptKey>> JournalView::blocked() const {
  return with_db<std::vector<AttemptKey>>(m_path, [](SQLite::Database& db) {
    std::vector<AttemptKey> out;
    SQLite::Statement q(db, "SELECT job_id, number FROM attempts WHERE state = 'submit_unknown'");
    while (q.executeStep()) out.push_back(key_of(q.getColumn(0).getString(), q.getColumn(1).getInt()));
    return out;
  });
}

Result<std::string> JournalView::last_status_poll() const {
  return with_db<std::string>(m_path, [](SQLite::Database& db) {
    SQLite::Statement q(db, "SELECT value FROM journal_meta WHERE key = 'last_status_poll'");
    return q.executeStep() ? q.getColumn(0).getString() : std::string();
  });
}

Result<JournalView::Counts> JournalView::counts() const {
  return with_db<Counts>(m_path, [](SQLite::Database& db) {
    Counts c;
    c.jobs = db.execAndGet("SELECT count(*) FROM jobs").getInt64();
    c.attempts = db.execAndGet("SELECT count(*) FROM attempts").getInt64();
    c.live =
        db.execAndGet("SELECT count(*) FROM attempts WHERE state IN ('submitted', 'pending', 'running')").getInt64();
    c.unended_jobs =
        db.execAndGet("SELECT count(*) FROM jobs WHERE phase NOT IN ('succeeded', 'failed', 'cancelled', 'lost')")
            .getInt64();
    c.open_cleanups = db.execAndGet("SELECT count(*) FROM attempts WHERE cleanup <> 'closed'").getInt64();
    return c;
  });
}

Result<std::vector<AttemptRow>> JournalView::attempts() const {
  return with_db<std::vector<AttemptRow>>(m_path, [](SQLite::Database& db) {
    std::vector<AttemptRow> rows;
    SQLite::Statement q(db,
                        "SELECT j.job_id, coalesce(a.number, 0), coalesce(a.state, ''), coalesce(a.cleanup, ''), "
                        "coalesce(a.slurm_job_id, 0), coalesce(a.submit_token, ''), j.phase, j.desire, "
                        "coalesce(a.tag_name, ''), coalesce(a.attempt_dir, ''), coalesce(a.signalled_at, '') "
                        "FROM jobs j LEFT JOIN attempts a ON a.job_id = j.job_id");
    while (q.executeStep()) {
      rows.push_back({q.getColumn(0).getString(), q.getColumn(1).getInt(), q.getColumn(2).getString(),
                      q.getColumn(3).getString(), q.getColumn(4).getInt64(), q.getColumn(5).getString(),
                      q.getColumn(6).getString(), q.getColumn(7).getString(), q.getColumn(8).getString(),
                      q.getColumn(9).getString(), q.getColumn(10).getString()});
    }
    return rows;
  });
}

Result<std::map<AttemptKey, std::string>> JournalView::retry_decisions() const {
  return with_db<std::map<AttemptKey, std::string>>(m_path, [](SQLite::Database& db) {
    std::map<AttemptKey, std::string> out;
    SQLite::Statement q(db,
                        "SELECT job_id, attempt, json_extract(detail, '$.retry') FROM events WHERE attempt IS NOT NULL "
                        "AND json_extract(detail, '$.retry') IS NOT NULL ORDER BY seq");
    while (q.executeStep()) out[key_of(q.getColumn(0).getString(), q.getColumn(1).getInt())] = q.getColumn(2).getString();
    return out;
  });
}

Result<bool> JournalView::control_set(const std::string& name) const {
  return with_db<bool>(m_path, [&name](SQLite::Database& db) {
    SQLite::Statement q(db, "SELECT 1 FROM controls WHERE name = ?");
    q.bind(1, name);
    return q.executeStep();
  });
}

Result<std::int64_t> JournalView::last_event_seq() const {
  return with_db<std::int64_t>(
      m_path, [](SQLite::Database& db) { return db.execAndGet("SELECT coalesce(max(seq), 0) FROM events").getInt64(); });
}

Result<std::vector<AttemptKey>> JournalView::entered(const std::string& state, std::int64_t after_seq) const {
  return with_db<std::vector<AttemptKey>>(m_path, [&state, after_seq](SQLite::Database& db) {
    std::vector<AttemptKey> out;
    SQLite::Statement q(db,
                        "SELECT job_id, attempt FROM events WHERE kind = 'attempt.state' AND to_state = ? AND seq > ? "
                        "ORDER BY seq");
    q.bind(1, state);
    q.bind(2, after_seq);
    while (q.executeStep()) out.push_back(key_of(q.getColumn(0).getString(), q.getColumn(1).getInt()));
    return out;
  });
}

}  // namespace tpslurm::soak
