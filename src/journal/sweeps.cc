// Journal's sweeps: a sweep and its jobs in one transaction, and the sweep read back.
#include <SQLiteCpp/Statement.h>

#include "journal/journal.h"
#include "journal/journal_impl.h"
#include "journal/sqlite_error.h"

namespace tpslurm::journal {
namespace {

// The first run whose job id is already a job (of no sweep, or of another sweep): the refusal.
std::optional<Error> taken_job_id(Journal::Impl& impl, const NewSweep& sweep) {
  for (std::size_t i = 0; i < sweep.jobs.size(); ++i) {
    if (!impl.read_job(sweep.jobs[i].job_id)) continue;
    return invalid_argument("runs[" + std::to_string(i) + "].job_id \"" + sweep.jobs[i].job_id +
                            "\" is already a job, not of sweep " + sweep.sweep_id +
                            ": a job id names one job; give the run a new job_id");
  }
  return std::nullopt;
}

std::optional<std::string> recorded_hash(Journal::Impl& impl, const std::string& sweep_id) {
  Journal::Impl::Use query = impl.prepared("SELECT request_sha256 FROM sweeps WHERE sweep_id = ?");
  query->bind(1, sweep_id);
  if (!query->executeStep()) return std::nullopt;
  return query->getColumn(0).getString();
}

void insert_sweep(Journal::Impl& impl, const NewSweep& sweep, std::string_view submitted_by) {
  Journal::Impl::Use insert = impl.prepared(
      "INSERT INTO sweeps (sweep_id, request_sha256, run_count, max_running, platform_user, submitted_by, "
      "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
  insert->bind(1, sweep.sweep_id);
  insert->bind(2, sweep.request_sha256);
  insert->bind(3, static_cast<std::int64_t>(sweep.jobs.size()));
  if (sweep.max_running) insert->bind(4, *sweep.max_running);
  if (!sweep.platform_user.empty()) insert->bind(5, sweep.platform_user);
  if (!submitted_by.empty()) insert->bind(6, std::string(submitted_by));
  insert->bind(7, impl.now());
  insert->exec();
}

}  // namespace

Result<model::SubmitOutcome> Journal::add_sweep(const NewSweep& sweep, std::string_view submitted_by) {
  std::lock_guard lock(m_impl->mutex);
  try {
    WriteTransaction transaction = m_impl->begin_write();
    if (auto known = recorded_hash(*m_impl, sweep.sweep_id)) {
      if (*known == sweep.request_sha256) return model::SubmitOutcome::unchanged;
      return invalid_argument("sweep " + sweep.sweep_id + " was already submitted with a different request (sha256 " +
                              *known + "; this one is " + sweep.request_sha256 +
                              "): a sweep id names one request; submit the change under a new sweep_id");
    }
    if (auto taken = taken_job_id(*m_impl, sweep)) return *taken;
    if (sweep.max_live_jobs &&
        count_live_jobs(*m_impl, sweep.platform_user) + static_cast<std::int64_t>(sweep.jobs.size()) >
            *sweep.max_live_jobs) {
      return model::SubmitOutcome::over_limit;
    }
    insert_sweep(*m_impl, sweep, submitted_by);
    for (std::size_t i = 0; i < sweep.jobs.size(); ++i) {
      insert_job(*m_impl, sweep.jobs[i], submitted_by, SweepPlace{sweep.sweep_id, static_cast<int>(i)});
    }
    transaction.commit();
    return model::SubmitOutcome::created;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "add sweep " + sweep.sweep_id);
  }
}

Result<std::optional<SweepRecord>> Journal::sweep(std::string_view sweep_id) {
  std::lock_guard lock(m_impl->mutex);
  try {
    SQLite::Statement query(m_impl->db,
                            "SELECT sweep_id, request_sha256, run_count, max_running, platform_user, submitted_by, "
                            "created_at FROM sweeps WHERE sweep_id = ?");
    query.bind(1, std::string(sweep_id));
    if (!query.executeStep()) return std::optional<SweepRecord>{};
    SweepRecord record;
    record.sweep_id = query.getColumn(0).getString();
    record.request_sha256 = query.getColumn(1).getString();
    record.run_count = query.getColumn(2).getInt();
    if (!query.getColumn(3).isNull()) record.max_running = query.getColumn(3).getInt();
    record.platform_user = query.getColumn(4).getString();
    record.submitted_by = query.getColumn(5).getString();
    record.created_at = query.getColumn(6).getString();
    SQLite::Statement runs(m_impl->db, "SELECT job_id, phase FROM jobs WHERE sweep_id = ? ORDER BY sweep_index");
    runs.bind(1, std::string(sweep_id));
    while (runs.executeStep()) {
      auto phase = model::parse_job_phase(runs.getColumn(1).getString());
      if (!phase) return corrupt("journal " + m_impl->path + ": job " + runs.getColumn(0).getString() +
                                 " has an unknown phase " + runs.getColumn(1).getString());
      record.runs.push_back({runs.getColumn(0).getString(), *phase});
    }
    return std::optional<SweepRecord>(std::move(record));
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "read sweep " + std::string(sweep_id));
  }
}

Result<bool> Journal::sweep_has_room(std::string_view job_id) {
  std::lock_guard lock(m_impl->mutex);
  try {
    Impl::Use query = m_impl->prepared(
        "SELECT s.max_running, (SELECT COUNT(*) FROM jobs r JOIN attempts a ON a.job_id = r.job_id AND a.number = "
        "r.current_attempt WHERE r.sweep_id = s.sweep_id AND a.state NOT IN ('succeeded', 'failed', 'cancelled', "
        "'lost', 'rejected', 'abandoned')) FROM jobs j JOIN sweeps s ON s.sweep_id = j.sweep_id WHERE j.job_id = ?");
    query->bind(1, std::string(job_id));
    if (!query->executeStep() || query->getColumn(0).isNull()) return true;
    return query->getColumn(1).getInt64() < query->getColumn(0).getInt64();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "count the live runs of job " + std::string(job_id) + "'s sweep");
  }
}

}  // namespace tpslurm::journal
