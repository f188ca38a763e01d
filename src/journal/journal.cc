#include "journal/journal.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <cerrno>
#include <mutex>
#include <utility>

#include "base/digest.h"
#include "base/file_system.h"
#include "base/unique_fd.h"
#include "journal/backup.h"
#include "journal/embedded_sql.h"
#include "journal/journal_hash_cache.h"
#include "journal/journal_impl.h"
#include "journal/migrator.h"
#include "journal/row_readers.h"
#include "journal/sqlite_error.h"
#include "model/attempt_sequence.h"

namespace tpslurm::journal {
namespace {

using model::AttemptState;
using model::CleanupStep;
using model::JobPhase;

constexpr int kBusyTimeoutMs = 5000;

// The phases of the jobs not yet ended, as an SQL list ('queued', 'submitting', …), built once
// from the model's own.
const std::string& live_phases_sql() {
  static const std::string phases = [] {
    std::string out;
    for (model::JobPhase phase : model::kAllJobPhases) {
      if (model::is_final(phase)) continue;
      out += std::string(out.empty() ? "'" : ", '") + std::string(model::to_string(phase)) + "'";
    }
    return out;
  }();
  return phases;
}

Status moved_by_another_writer(const std::string& which, AttemptState actual, AttemptState expected) {
  return transient(which + " is " + std::string(model::to_string(actual)) + ", not " +
                   std::string(model::to_string(expected)) + ": another writer moved it; read it again");
}

// Applies the audit views when the embedded text differs from what the journal holds.
void refresh_audit_views(SQLite::Database& db) {
  const std::string_view sql = embedded_audit_sql();
  const std::string hash = sha256_hex(sql);
  SQLite::Statement current(db, "SELECT value FROM journal_meta WHERE key = 'audit_sql_sha256'");
  if (current.executeStep() && current.getColumn(0).getString() == hash) return;
  SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
  std::vector<std::string> views;
  SQLite::Statement list(db, "SELECT name FROM sqlite_master WHERE type = 'view'");
  while (list.executeStep()) views.push_back(list.getColumn(0).getString());
  for (const auto& view : views) db.exec("DROP VIEW \"" + view + "\"");
  db.exec(std::string(sql));
  SQLite::Statement record(db,
                           "INSERT INTO journal_meta (key, value) VALUES ('audit_sql_sha256', ?) "
                           "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  record.bind(1, hash);
  record.exec();
  transaction.commit();
}

}  // namespace

std::int64_t count_live_jobs(Journal::Impl& impl, std::string_view platform_user) {
  static const std::string sql =
      "SELECT count(*) FROM jobs WHERE platform_user = ? AND phase IN (" + live_phases_sql() + ")";
  Journal::Impl::Use count = impl.prepared(sql);
  count->bind(1, std::string(platform_user));
  count->executeStep();
  return count->getColumn(0).getInt64();
}

void insert_job(Journal::Impl& impl, const NewJob& job, std::string_view submitted_by,
                std::optional<SweepPlace> place) {
  const std::string now = impl.now();
  Journal::Impl::Use insert = impl.prepared(
      "INSERT INTO jobs (job_id, request_json, request_sha256, credential_path, credential_hmac, max_attempts, "
      "created_at, updated_at, platform_user, unix_user, default_account, sweep_id, sweep_index) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert->bind(1, job.job_id);
  insert->bind(2, job.request_json);
  insert->bind(3, job.request_sha256);
  if (!job.credential_path.empty()) insert->bind(4, job.credential_path);
  if (!job.credential_hmac.empty()) insert->bind(5, job.credential_hmac);
  insert->bind(6, job.max_attempts);
  insert->bind(7, now);
  insert->bind(8, now);
  if (!job.platform_user.empty()) insert->bind(9, job.platform_user);
  if (!job.unix_user.empty()) insert->bind(10, job.unix_user);
  if (!job.default_account.empty()) insert->bind(11, job.default_account);
  if (place) {
    insert->bind(12, std::string(place->sweep_id));
    insert->bind(13, place->index);
  }
  insert->exec();
  EventDetail detail{{"reason", "submitted"}, {"request_sha256", job.request_sha256}};
  if (!submitted_by.empty()) detail.emplace_back("by", std::string(submitted_by));
  if (!job.platform_user.empty()) detail.emplace_back("user", job.platform_user);
  if (!job.unix_user.empty()) detail.emplace_back("unix_user", job.unix_user);
  if (place) {
    detail.emplace_back("sweep_id", std::string(place->sweep_id));
    detail.emplace_back("sweep_index", std::to_string(place->index));
  }
  impl.append_event(job.job_id, std::nullopt, "job.created", std::nullopt, "queued", detail);
}

std::string detail_json(const EventDetail& detail) {
  boost::json::object object;
  for (const auto& [key, value] : detail) object[key] = value;
  return boost::json::serialize(object);
}

Journal::Journal(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Journal::~Journal() = default;

const std::string& Journal::path() const { return m_impl->path; }

namespace {

// flock(2) on the journal's directory for the length of Journal::open (closing the
// descriptor releases it).
Result<UniqueFd> take_setup_lock(const std::string& dir, bool exclusive) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return system_error("open the journal's directory", dir, errno);
  while (::flock(fd.get(), exclusive ? LOCK_EX : LOCK_SH) != 0) {
    if (errno != EINTR) return system_error("lock the journal's directory", dir, errno);
  }
  return fd;
}

}  // namespace

Result<std::unique_ptr<Journal>> Journal::open(const std::string& path, const Clock& clock, OpenOptions options) {
  const bool writable = options.mode == OpenOptions::Mode::read_write;
  const std::string dir = parent_directory(path);
  if (writable) {
    if (Status made = make_directories(dir, 0700); !made.ok()) return made.error().with_context("journal " + path);
  }
  auto network = options.probe_filesystem(dir);
  if (!network.ok()) return network.error().with_context("journal " + path);
  if (*network) {
    return invalid_argument("journal " + path + " is on " + **network +
                            ", a network filesystem: SQLite's WAL needs a local disk (shared memory and POSIX locks); "
                            "set TUNEPLANE_JOURNAL or TUNEPLANE_STATE_DIR to a local path");
  }
  // Setting up (creating, WAL, migrations) is one process at a time: a `submit` beside a
  // starting `serve` must not both migrate a fresh journal. The lock is the directory's flock,
  // held until the journal is ready; readers wait for it too, so none sees a half-made schema.
  if (!writable && ::access(path.c_str(), F_OK) != 0) {
    return not_found("journal " + path + " does not exist; `tuneplane-slurm migrate` creates it");
  }
  auto setup = take_setup_lock(dir, writable);
  if (!setup.ok()) return setup.error().with_context("journal " + path);
  struct stat info {};
  const bool exists = ::stat(path.c_str(), &info) == 0;
  if (!exists && !writable) {
    return not_found("journal " + path + " does not exist; `tuneplane-slurm migrate` creates it");
  }
  if (exists && !S_ISREG(info.st_mode)) return invalid_argument("journal " + path + " is not a regular file");
  // Never SQLITE_OPEN_CREATE over an existing path: a file we cannot read must stay untouched.
  const int flags = !writable ? SQLite::OPEN_READONLY
                    : exists  ? SQLite::OPEN_READWRITE
                              : SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE;
  try {
    SQLite::Database db(path, flags, kBusyTimeoutMs);
    if (writable && sqlite3_db_readonly(db.getHandle(), "main") == 1) {
      return invalid_argument("journal " + path +
                              " is read-only (file mode or filesystem); fix its permissions or point TUNEPLANE_JOURNAL "
                              "at a writable local path");
    }
    // The first real read tells a database from anything else; nothing has been written yet.
    db.exec("SELECT count(*) FROM sqlite_master");
    if (writable) {
      SQLite::Statement mode(db, "PRAGMA journal_mode = WAL");
      if (!mode.executeStep() || mode.getColumn(0).getString() != "wal") {
        return permanent("journal " + path + ": cannot switch to WAL mode");
      }
    }
    db.exec("PRAGMA synchronous = FULL");
    db.exec("PRAGMA foreign_keys = ON");
    db.exec("PRAGMA recursive_triggers = ON");
    auto migrations = load_migrations(embedded_migrations());
    if (!migrations.ok()) return migrations.error();
    auto status = check_migrations(db, *migrations);
    if (!status.ok()) return status.error().with_context("journal " + path);
    if (!status->up_to_date()) {
      if (!writable || (status->applied != 0 && !options.migrate_existing)) {
        return invalid_argument("journal " + path + " is at migration " + std::to_string(status->applied) +
                                " and this binary has " + std::to_string(status->known) +
                                ": run `tuneplane-slurm migrate` (after `tuneplane-slurm journal backup FILE`)");
      }
      if (auto created = migrate(db, *migrations, clock); !created.ok()) {
        return created.error().with_context("journal " + path);
      }
    }
    if (writable) refresh_audit_views(db);
    return std::unique_ptr<Journal>(new Journal(std::make_unique<Impl>(path, std::move(db), clock)));
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, path, "open");
  }
}

Result<model::SubmitOutcome> Journal::add_job(const NewJob& job, std::string_view submitted_by) {
  std::lock_guard lock(m_impl->mutex);
  try {
    WriteTransaction transaction = m_impl->begin_write();
    if (auto existing = m_impl->read_job(job.job_id)) {
      if (existing->request_sha256 == job.request_sha256) return model::SubmitOutcome::unchanged;
      return invalid_argument("job " + job.job_id + " was already submitted with a different request (sha256 " +
                              existing->request_sha256 + "; this one is " + job.request_sha256 +
                              "): a job id names one request; submit the change under a new job_id");
    }
    if (job.max_live_jobs && count_live_jobs(*m_impl, job.platform_user) >= *job.max_live_jobs) {
      return model::SubmitOutcome::over_limit;
    }
    insert_job(*m_impl, job, submitted_by);
    transaction.commit();
    return model::SubmitOutcome::created;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "add job " + job.job_id);
  }
}

Result<std::int64_t> Journal::live_jobs_of(std::string_view platform_user) {
  std::lock_guard lock(m_impl->mutex);
  try {
    return count_live_jobs(*m_impl, platform_user);
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "count a user's live jobs");
  }
}

Result<std::optional<JobRecord>> Journal::job(std::string_view job_id) {
  std::lock_guard lock(m_impl->mutex);
  try {
    return m_impl->read_job(job_id);
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "read job");
  }
}

Result<std::vector<JobRecord>> Journal::jobs() {
  std::lock_guard lock(m_impl->mutex);
  try {
    std::vector<JobRecord> out;
    SQLite::Statement query(m_impl->db, std::string(kJobColumns) + " ORDER BY created_at, job_id");
    while (query.executeStep()) out.push_back(read_job_row(query));
    return out;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "list jobs");
  }
}

Status Journal::set_desire(std::string_view job_id, model::Desire desire, std::string_view reason,
                           std::int64_t expected_version, std::optional<int> grace_seconds, std::string_view by) {
  std::lock_guard lock(m_impl->mutex);
  try {
    WriteTransaction transaction = m_impl->begin_write();
    auto current = m_impl->read_job(job_id);
    if (!current) return not_found("no job " + std::string(job_id) + " in the journal");
    Impl::Use update = m_impl->prepared(
        "UPDATE jobs SET desire = ?, desire_reason = ?, cancel_grace_seconds = ?, "
        "version = version + 1, updated_at = ? WHERE job_id = ? AND version = ?");
    update->bind(1, std::string(model::to_string(desire)));
    update->bind(2, std::string(reason));
    if (grace_seconds) update->bind(3, *grace_seconds);
    update->bind(4, m_impl->now());
    update->bind(5, std::string(job_id));
    update->bind(6, expected_version);
    if (update->exec() != 1) {
      return transient("job " + std::string(job_id) + " changed since version " + std::to_string(expected_version) +
                       " (it is at version " + std::to_string(current->version) + "); read it again and retry");
    }
    EventDetail detail{{"reason", std::string(reason)}};
    if (grace_seconds) detail.emplace_back("grace_seconds", std::to_string(*grace_seconds));
    if (!by.empty()) detail.emplace_back("by", std::string(by));
    m_impl->append_event(job_id, std::nullopt, "desire", model::to_string(current->desire), model::to_string(desire),
                         detail);
    transaction.commit();
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "set desire");
  }
}

Status Journal::set_phase(std::string_view job_id, JobPhase from, JobPhase to, std::string_view reason) {
  std::lock_guard lock(m_impl->mutex);
  try {
    WriteTransaction transaction = m_impl->begin_write();
    if (from == to) return model::check_transition(from, to);
    if (Status moved = m_impl->move_phase(job_id, from, to, reason); !moved.ok()) return moved;
    transaction.commit();
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "set phase");
  }
}

Result<AttemptRecord> Journal::add_attempt(std::string_view job_id, int number, std::string_view submit_token,
                                           std::string_view input_sha256) {
  std::lock_guard lock(m_impl->mutex);
  try {
    WriteTransaction transaction = m_impl->begin_write();
    auto job = m_impl->read_job(job_id);
    if (!job) return not_found("no job " + std::string(job_id) + " in the journal");
    if (model::is_final(job->phase)) {
      return invalid_argument("job " + std::string(job_id) + " has ended (" +
                              std::string(model::to_string(job->phase)) + "); it takes no new attempt");
    }
    if (Status next = model::check_next_attempt(job_id, m_impl->history_of(*job), number); !next.ok())
      return next.error();
    const std::string now = m_impl->now();
    Impl::Use insert = m_impl->prepared(
        "INSERT INTO attempts (job_id, number, submit_token, state, input_sha256, created_at, "
        "updated_at) VALUES (?, ?, ?, 'preparing', ?, ?, ?)");
    insert->bind(1, std::string(job_id));
    insert->bind(2, number);
    insert->bind(3, std::string(submit_token));
    insert->bind(4, std::string(input_sha256));
    insert->bind(5, now);
    insert->bind(6, now);
    insert->exec();
    Impl::Use current = m_impl->prepared("UPDATE jobs SET current_attempt = ?, updated_at = ? WHERE job_id = ?");
    current->bind(1, number);
    current->bind(2, now);
    current->bind(3, std::string(job_id));
    current->exec();
    m_impl->append_event(job_id, number, "attempt.created", std::nullopt, "preparing",
                         {{"submit_token", std::string(submit_token)}, {"input_sha256", std::string(input_sha256)}});
    auto record = m_impl->read_attempt({std::string(job_id), number});
    transaction.commit();
    return *record;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "add attempt");
  }
}

Result<std::vector<AttemptRecord>> Journal::attempts(std::string_view job_id) {
  std::lock_guard lock(m_impl->mutex);
  try {
    std::vector<AttemptRecord> out;
    Impl::Use query = m_impl->prepared(std::string(kAttemptColumns) + " WHERE job_id = ? ORDER BY number");
    query->bind(1, std::string(job_id));
    while (query->executeStep()) out.push_back(read_attempt_row(*query));
    return out;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "list attempts");
  }
}

Result<std::vector<AttemptRecord>> Journal::attempts_in(AttemptState state) {
  std::lock_guard lock(m_impl->mutex);
  try {
    std::vector<AttemptRecord> out;
    SQLite::Statement query(m_impl->db, std::string(kAttemptColumns) + " WHERE state = ? ORDER BY job_id, number");
    query.bind(1, std::string(model::to_string(state)));
    while (query.executeStep()) out.push_back(read_attempt_row(query));
    return out;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "list attempts");
  }
}

Status Journal::transition(const AttemptKey& key, AttemptState from, AttemptState to, const AttemptChanges& changes,
                           const EventDetail& detail) {
  const std::string which = "attempt " + key.job_id + "/" + std::to_string(key.number);
  if (Status legal = model::check_transition(from, to); !legal.ok()) return legal.error().with_context(which);
  std::lock_guard lock(m_impl->mutex);
  try {
    WriteTransaction transaction = m_impl->begin_write();
    auto current = m_impl->read_attempt(key);
    if (!current) return not_found("no " + which + " in the journal");
    if (current->state != from) return moved_by_another_writer(which, current->state, from);
    if (model::needs_slurm_job_id(from, to) && !changes.slurm_job_id && !current->slurm_job_id) {
      return invalid_argument(which + ": " + std::string(model::to_string(from)) + " -> " +
                              std::string(model::to_string(to)) +
                              " needs the Slurm job id (from the receipt, the evidence or a search); none was given");
    }
    AttemptUpdate update(m_impl->statements, changes);
    update.set("state", std::string(model::to_string(to)));
    if (to == AttemptState::submitting) update.set("intent_at", m_impl->now());
    m_impl->stamp_times(update, changes);
    update.set("updated_at", m_impl->now());
    if (update.execute(key, from) != 1) return moved_by_another_writer(which, m_impl->read_attempt(key)->state, from);
    EventDetail event = detail;
    if (changes.slurm_job_id) event.emplace_back("slurm_job_id", std::to_string(*changes.slurm_job_id));
    if (changes.sluid) event.emplace_back("sluid", *changes.sluid);
    if (changes.outcome_reason &&
        std::none_of(event.begin(), event.end(), [](const auto& kv) { return kv.first == "reason"; })) {
      event.emplace_back("reason", *changes.outcome_reason);
    }
    m_impl->append_event(key.job_id, key.number, "attempt.state", model::to_string(from), model::to_string(to), event);
    if (changes.grant_attempt) {
      Impl::Use grant =
          m_impl->prepared("UPDATE jobs SET max_attempts = max_attempts + 1, updated_at = ? WHERE job_id = ?");
      grant->bind(1, m_impl->now());
      grant->bind(2, key.job_id);
      grant->exec();
    }
    auto job = m_impl->read_job(key.job_id);
    if (job && job->current_attempt == key.number) {
      const JobPhase phase = changes.job_phase.value_or(model::phase_of(to));
      std::string reason;
      for (const auto& [k, v] : event) {
        if (k == "reason") reason = v;
      }
      if (Status moved = m_impl->move_phase(key.job_id, job->phase, phase, reason); !moved.ok()) return moved;
    }
    transaction.commit();
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "move " + which);
  }
}

Status Journal::advance_cleanup(const AttemptKey& key, CleanupStep from, CleanupStep to, const EventDetail& detail,
                                std::optional<std::string> logs_sha256) {
  const std::string which = "attempt " + key.job_id + "/" + std::to_string(key.number);
  if (Status legal = model::check_transition(from, to); !legal.ok()) return legal.error().with_context(which);
  std::lock_guard lock(m_impl->mutex);
  try {
    WriteTransaction transaction = m_impl->begin_write();
    auto attempt = m_impl->read_attempt(key);
    if (!attempt) return not_found("no " + which + " in the journal");
    if (!model::is_final(attempt->state)) {
      return invalid_argument(which + " is " + std::string(model::to_string(attempt->state)) +
                              "; cleanup starts only when an attempt has ended");
    }
    Impl::Use update = m_impl->prepared(
        "UPDATE attempts SET cleanup = ?, logs_sha256 = coalesce(?, logs_sha256), "
        "cleanup_at = ?, version = version + 1, updated_at = ? "
        "WHERE job_id = ? AND number = ? AND cleanup = ?");
    update->bind(1, std::string(model::to_string(to)));
    if (logs_sha256) update->bind(2, *logs_sha256);
    update->bind(3, m_impl->now());
    update->bind(4, m_impl->now());
    update->bind(5, key.job_id);
    update->bind(6, key.number);
    update->bind(7, std::string(model::to_string(from)));
    if (update->exec() != 1) {
      return transient(which + " cleanup is " + std::string(model::to_string(attempt->cleanup)) + ", not " +
                       std::string(model::to_string(from)) + ": another writer moved it; read it again");
    }
    m_impl->append_event(key.job_id, key.number, "cleanup", model::to_string(from), model::to_string(to), detail);
    transaction.commit();
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "advance cleanup of " + which);
  }
}

Status Journal::record_event(std::string_view job_id, std::optional<int> attempt, std::string_view kind,
                             const EventDetail& detail) {
  std::lock_guard lock(m_impl->mutex);
  try {
    m_impl->append_event(job_id, attempt, kind, std::nullopt, std::nullopt, detail);
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "record event");
  }
}

Result<JournalGauges> Journal::gauges(bool by_user) {
  JournalGauges out;
  for (const std::string& file : {m_impl->path, m_impl->path + "-wal"}) {
    struct stat info {};
    if (::stat(file.c_str(), &info) == 0) out.file_bytes += static_cast<std::int64_t>(info.st_size);
  }
  std::lock_guard lock(m_impl->mutex);
  try {
    // Without statistics the planner walks attempts_by_state, every attempt; the partial index
    // holds only the open ones (100,000 attempts, 11,100 open: 65 ms by state, 23 ms by it).
    Impl::Use query = m_impl->prepared(
        "SELECT state, cleanup, count(*), min(intent_at) FROM attempts INDEXED BY attempts_by_cleanup "
        "WHERE cleanup <> 'closed' GROUP BY state, cleanup ORDER BY state, cleanup");
    while (query->executeStep()) {
      const auto state = model::parse_attempt_state(query->getColumn(0).getString());
      const auto cleanup = model::parse_cleanup_step(query->getColumn(1).getString());
      if (!state || !cleanup)
        return corrupt("journal " + m_impl->path + ": an attempt with an unknown state or cleanup");
      out.open_attempts.push_back({*state, *cleanup, query->getColumn(2).getInt64(), query->getColumn(3).getString()});
    }
    if (!by_user) return out;
    static const std::string per_user = "SELECT platform_user, count(*) FROM jobs WHERE platform_user IS NOT NULL AND "
                                        "phase IN (" + live_phases_sql() + ") GROUP BY platform_user";
    Impl::Use users = m_impl->prepared(per_user);
    while (users->executeStep()) {
      out.live_jobs_by_user.emplace_back(users->getColumn(0).getString(), users->getColumn(1).getInt64());
    }
    return out;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "read the gauges");
  }
}

Result<std::vector<std::string>> Journal::live_job_ids() {
  static const std::string sql = [] {
    return "SELECT job_id FROM jobs WHERE phase IN (" + live_phases_sql() +
           ") OR job_id IN (SELECT job_id FROM attempts WHERE cleanup <> 'closed') "
           "ORDER BY phase IN ('" +
           std::string(model::to_string(model::JobPhase::queued)) + "', '" +
           std::string(model::to_string(model::JobPhase::submitting)) + "'), created_at, job_id";
  }();
  std::lock_guard lock(m_impl->mutex);
  try {
    std::vector<std::string> out;
    Impl::Use query = m_impl->prepared(sql);
    while (query->executeStep()) out.push_back(query->getColumn(0).getString());
    return out;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "list the live jobs");
  }
}

Status Journal::backup(const std::string& target) {
  std::lock_guard lock(m_impl->mutex);
  return copy_database(m_impl->db, m_impl->path, target);
}

model::HashCache& Journal::hash_cache() { return m_impl->cache; }

}  // namespace tpslurm::journal
