// The Journal's calls that the reconciler and the operator commands need beyond the first
// schema (migrations/0003_reconciler.sql): same-state attempt updates, resolving a lost submit
// as absent, controls and orphans.
#include <SQLiteCpp/Backup.h>

#include "journal/journal.h"
#include "journal/journal_impl.h"
#include "journal/sqlite_error.h"

namespace tpslurm::journal {
namespace {

using model::AttemptState;

std::string which_attempt(const AttemptKey& key) { return "attempt " + key.job_id + "/" + std::to_string(key.number); }

bool known_control(std::string_view name) { return name == "paused" || name == "safe_mode"; }

}  // namespace

Status Journal::update_attempt(const AttemptKey& key, AttemptState state, const AttemptChanges& changes,
                               std::string_view kind, const EventDetail& detail) {
  const std::string which = which_attempt(key);
  std::lock_guard lock(m_impl->mutex);
  try {
    WriteTransaction transaction = m_impl->begin_write();
    AttemptUpdate update(m_impl->statements, changes);
    m_impl->stamp_times(update, changes);
    update.set("updated_at", m_impl->now());
    if (update.execute(key, state) != 1) {
      auto current = m_impl->read_attempt(key);
      if (!current) return not_found("no " + which + " in the journal");
      return transient(which + " is " + std::string(model::to_string(current->state)) + ", not " +
                       std::string(model::to_string(state)) + ": another writer moved it; read it again");
    }
    EventDetail event = detail;
    if (changes.slurm_job_id) event.emplace_back("slurm_job_id", std::to_string(*changes.slurm_job_id));
    if (changes.sluid && !changes.sluid->empty()) event.emplace_back("sluid", *changes.sluid);
    if (!kind.empty()) m_impl->append_event(key.job_id, key.number, kind, std::nullopt, std::nullopt, event);
    transaction.commit();
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "update " + which);
  }
}

Status Journal::resolve_absent(const AttemptKey& key, std::string_view by, std::string_view reason) {
  const std::string which = which_attempt(key);
  std::lock_guard lock(m_impl->mutex);
  try {
    WriteTransaction transaction = m_impl->begin_write();
    auto job = m_impl->read_job(key.job_id);
    auto attempt = m_impl->read_attempt(key);
    if (!job || !attempt) return not_found("no " + which + " in the journal");
    if (attempt->state != AttemptState::submit_unknown) {
      return invalid_argument(which + " is " + std::string(model::to_string(attempt->state)) +
                              ": only a submit whose answer was lost (submit_unknown) can be resolved");
    }
    const bool cancel = job->desire == model::Desire::cancel;
    const std::string words = "resolved absent by " + std::string(by) + ": " + std::string(reason);
    AttemptChanges changes;
    changes.outcome_reason = words;
    AttemptUpdate update(m_impl->statements, changes);
    update.set("state", "abandoned");
    update.set("updated_at", m_impl->now());
    if (update.execute(key, AttemptState::submit_unknown) != 1) return transient(which + " moved; read it again");
    m_impl->append_event(key.job_id, key.number, "attempt.state", "submit_unknown", "abandoned",
                         {{"reason", words}, {"operator", std::string(by)}, {"resolution", "absent"}});
    if (!cancel) {
      SQLite::Statement grant(m_impl->db,
                              "UPDATE jobs SET max_attempts = max_attempts + 1, updated_at = ? WHERE job_id = ?");
      grant.bind(1, m_impl->now());
      grant.bind(2, key.job_id);
      grant.exec();
    }
    if (job->current_attempt == key.number) {
      const model::JobPhase to = cancel ? model::JobPhase::cancelled : model::JobPhase::queued;
      if (Status moved = m_impl->move_phase(key.job_id, job->phase, to, words); !moved.ok()) return moved;
    }
    transaction.commit();
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "resolve " + which);
  }
}

Result<std::optional<ControlRecord>> Journal::control(std::string_view name) {
  std::lock_guard lock(m_impl->mutex);
  try {
    Impl::Use query = m_impl->prepared("SELECT name, reason, set_by, set_at FROM controls WHERE name = ?");
    query->bind(1, std::string(name));
    if (!query->executeStep()) return std::optional<ControlRecord>{};
    return std::optional<ControlRecord>{ControlRecord{query->getColumn(0).getString(), query->getColumn(1).getString(),
                                                      query->getColumn(2).getString(),
                                                      query->getColumn(3).getString()}};
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "read control " + std::string(name));
  }
}

namespace {

void append_control_event(SQLite::Database& db, const std::string& at, std::string_view name, std::string_view action,
                          std::string_view by, std::string_view reason) {
  SQLite::Statement insert(db, "INSERT INTO control_events (at, name, action, by_user, reason) VALUES (?, ?, ?, ?, ?)");
  insert.bind(1, at);
  insert.bind(2, std::string(name));
  insert.bind(3, std::string(action));
  insert.bind(4, std::string(by));
  insert.bind(5, std::string(reason));
  insert.exec();
}

}  // namespace

Status Journal::set_control(std::string_view name, std::string_view by, std::string_view reason) {
  if (!known_control(name)) return invalid_argument("unknown control \"" + std::string(name) + "\"");
  std::lock_guard lock(m_impl->mutex);
  try {
    WriteTransaction transaction = m_impl->begin_write();
    SQLite::Statement insert(m_impl->db,
                             "INSERT INTO controls (name, reason, set_by, set_at) VALUES (?, ?, ?, ?) "
                             "ON CONFLICT (name) DO NOTHING");
    insert.bind(1, std::string(name));
    insert.bind(2, std::string(reason));
    insert.bind(3, std::string(by));
    insert.bind(4, m_impl->now());
    if (insert.exec() == 1) append_control_event(m_impl->db, m_impl->now(), name, "set", by, reason);
    transaction.commit();
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "set control " + std::string(name));
  }
}

Status Journal::clear_control(std::string_view name, std::string_view by, std::string_view reason) {
  if (!known_control(name)) return invalid_argument("unknown control \"" + std::string(name) + "\"");
  std::lock_guard lock(m_impl->mutex);
  try {
    WriteTransaction transaction = m_impl->begin_write();
    SQLite::Statement remove(m_impl->db, "DELETE FROM controls WHERE name = ?");
    remove.bind(1, std::string(name));
    if (remove.exec() == 1) append_control_event(m_impl->db, m_impl->now(), name, "cleared", by, reason);
    transaction.commit();
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "clear control " + std::string(name));
  }
}

std::string Deployment::describe() const {
  std::string text = "instance " + instance + ", storage root " + storage_root;
  if (cluster_root != storage_root) text += " (on the nodes " + cluster_root + ")";
  return text;
}

namespace {

constexpr std::string_view kDeploymentKeys[] = {"deployment_instance", "deployment_storage_root",
                                                 "deployment_cluster_root"};

}  // namespace

Result<std::optional<Deployment>> Journal::deployment() {
  std::vector<std::string> values;
  for (const auto key : kDeploymentKeys) {
    auto value = meta(key);
    if (!value.ok()) return value.error();
    if (!value->has_value()) return std::optional<Deployment>();
    values.push_back(**value);
  }
  return std::optional<Deployment>(Deployment{values[0], values[1], values[2]});
}

Status Journal::set_deployment(const Deployment& deployment, std::string_view by, std::string_view reason) {
  std::lock_guard lock(m_impl->mutex);
  try {
    WriteTransaction transaction = m_impl->begin_write();
    const std::string values[] = {deployment.instance, deployment.storage_root, deployment.cluster_root};
    for (std::size_t i = 0; i < std::size(kDeploymentKeys); ++i) {
      SQLite::Statement upsert(m_impl->db,
                               "INSERT INTO journal_meta (key, value) VALUES (?, ?) "
                               "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
      upsert.bind(1, std::string(kDeploymentKeys[i]));
      upsert.bind(2, values[i]);
      upsert.exec();
    }
    append_control_event(m_impl->db, m_impl->now(), "deployment", "set", by,
                         deployment.describe() + ": " + std::string(reason));
    transaction.commit();
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "record the deployment");
  }
}

Status Journal::record_orphan(const OrphanEntry& orphan) {
  std::lock_guard lock(m_impl->mutex);
  try {
    SQLite::Statement upsert(m_impl->db,
                             "INSERT INTO orphans (slurm_job_id, sluid, name, comment, working_dir, slurm_state, "
                             "first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                             "ON CONFLICT (slurm_job_id, sluid) DO UPDATE SET last_seen = excluded.last_seen, "
                             "slurm_state = excluded.slurm_state, name = excluded.name");
    const std::string now = m_impl->now();
    upsert.bind(1, static_cast<std::int64_t>(orphan.slurm_job_id));
    upsert.bind(2, orphan.sluid);
    upsert.bind(3, orphan.name);
    upsert.bind(4, orphan.comment);
    upsert.bind(5, orphan.working_dir);
    upsert.bind(6, orphan.slurm_state);
    upsert.bind(7, now);
    upsert.bind(8, now);
    upsert.exec();
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "record an orphan");
  }
}

Result<std::vector<OrphanEntry>> Journal::orphans() {
  std::lock_guard lock(m_impl->mutex);
  try {
    std::vector<OrphanEntry> out;
    SQLite::Statement query(m_impl->db,
                            "SELECT slurm_job_id, sluid, name, coalesce(comment, ''), coalesce(working_dir, ''), "
                            "coalesce(slurm_state, ''), first_seen, last_seen FROM orphans ORDER BY first_seen, "
                            "slurm_job_id");
    while (query.executeStep()) {
      out.push_back({static_cast<std::uint32_t>(query.getColumn(0).getInt64()), query.getColumn(1).getString(),
                     query.getColumn(2).getString(), query.getColumn(3).getString(), query.getColumn(4).getString(),
                     query.getColumn(5).getString(), query.getColumn(6).getString(), query.getColumn(7).getString()});
    }
    return out;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "list orphans");
  }
}

Status Journal::record_mint(const MintRecord& mint) {
  if (mint.purpose != "service" && mint.purpose != "job_user") {
    return invalid_argument("a token mint's purpose is service or job_user, not \"" + mint.purpose + "\"");
  }
  std::lock_guard lock(m_impl->mutex);
  try {
    SQLite::Statement insert(m_impl->db, "INSERT INTO token_mints (at, user, expires_at, purpose) VALUES (?, ?, ?, ?)");
    insert.bind(1, mint.at);
    insert.bind(2, mint.user);
    insert.bind(3, mint.expires_at);
    insert.bind(4, mint.purpose);
    insert.exec();
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "record a token mint");
  }
}

Result<std::vector<MintRecord>> Journal::mints(std::string_view user, int limit) {
  std::lock_guard lock(m_impl->mutex);
  try {
    SQLite::Statement query(m_impl->db,
                            "SELECT at, user, expires_at, purpose FROM (SELECT * FROM token_mints "
                            "WHERE ?1 = '' OR user = ?1 ORDER BY seq DESC LIMIT ?2) ORDER BY seq");
    query.bind(1, std::string(user));
    query.bind(2, limit);
    std::vector<MintRecord> out;
    while (query.executeStep()) {
      out.push_back({query.getColumn(0).getString(), query.getColumn(1).getString(), query.getColumn(2).getString(),
                     query.getColumn(3).getString()});
    }
    return out;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "list token mints");
  }
}

Result<std::vector<AttemptRecord>> Journal::all_attempts() {
  std::lock_guard lock(m_impl->mutex);
  try {
    std::vector<AttemptRecord> out;
    SQLite::Statement query(m_impl->db, std::string(kAttemptColumns) + " ORDER BY job_id, number");
    while (query.executeStep()) out.push_back(read_attempt_row(query));
    return out;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "list attempts");
  }
}

Result<std::vector<AttemptRecord>> Journal::followed_attempts() {
  std::lock_guard lock(m_impl->mutex);
  try {
    std::vector<AttemptRecord> out;
    SQLite::Statement query(m_impl->db, std::string(kAttemptColumns) +
                                            " WHERE slurm_job_id IS NOT NULL AND (state IN ('submitted', 'pending', "
                                            "'running') OR cleanup IN ('none', 'epilog_pending')) "
                                            "ORDER BY job_id, number");
    while (query.executeStep()) out.push_back(read_attempt_row(query));
    return out;
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "list followed attempts");
  }
}

Status Journal::set_meta(std::string_view key, std::string_view value) {
  std::lock_guard lock(m_impl->mutex);
  try {
    SQLite::Statement upsert(m_impl->db,
                             "INSERT INTO journal_meta (key, value) VALUES (?, ?) "
                             "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    upsert.bind(1, std::string(key));
    upsert.bind(2, std::string(value));
    upsert.exec();
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "write journal_meta");
  }
}

Result<std::optional<std::string>> Journal::meta(std::string_view key) {
  std::lock_guard lock(m_impl->mutex);
  try {
    Impl::Use query = m_impl->prepared("SELECT value FROM journal_meta WHERE key = ?");
    query->bind(1, std::string(key));
    if (!query->executeStep()) return std::optional<std::string>();
    return std::optional<std::string>(query->getColumn(0).getString());
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "read journal_meta");
  }
}

Result<std::int64_t> Journal::data_version() {
  std::lock_guard lock(m_impl->mutex);
  try {
    Impl::Use query = m_impl->prepared("PRAGMA data_version");
    query->executeStep();
    return query->getColumn(0).getInt64();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "read data_version");
  }
}

Status Journal::probe_write() {
  std::lock_guard lock(m_impl->mutex);
  try {
    WriteTransaction transaction = m_impl->begin_write();
    return {};  // rolled back: nothing was written
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "begin a write");
  }
}

Status Journal::begin_group() {
  std::lock_guard lock(m_impl->mutex);
  if (m_impl->group_open) return permanent("begin_group: a group is already open");
  try {
    m_impl->db.exec("BEGIN IMMEDIATE");
    m_impl->group_open = true;
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "begin a group of writes");
  }
}

Status Journal::end_group() {
  std::lock_guard lock(m_impl->mutex);
  if (!m_impl->group_open) return permanent("end_group: no group is open");
  m_impl->group_open = false;
  if (!in_transaction(m_impl->db)) {
    return transient("journal " + m_impl->path +
                     ": a failed write rolled its group of writes back; none of them was written");
  }
  try {
    m_impl->db.exec("COMMIT");
    return ok_status();
  } catch (const SQLite::Exception& e) {
    if (in_transaction(m_impl->db)) (void)m_impl->db.tryExec("ROLLBACK");
    return sqlite_error(e, m_impl->path, "commit a group of writes");
  }
}

Status Journal::restore_from(const std::string& source) {
  std::lock_guard lock(m_impl->mutex);
  try {
    SQLite::Database from(source, SQLite::OPEN_READONLY);
    SQLite::Backup backup(m_impl->db, from);
    backup.executeStep(-1);
    return ok_status();
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, m_impl->path, "restore from " + source);
  }
}

}  // namespace tpslurm::journal
