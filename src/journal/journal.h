// Journal: the SQLite journal of jobs, attempts and their append-only events -- the only
// source of truth of this program (ARCHITECTURE.md §3).
//
// open() refuses a journal on a network filesystem, never creates a fresh database over an
// existing file it cannot read, sets WAL, synchronous=FULL, foreign keys, recursive triggers
// and a busy timeout, applies pending migrations (read_write) and refreshes the audit views
// when schema/audit.sql changed. Errors name the file and what to do: a corrupt file, one
// that is not a database, a read-only file, a journal locked by another process.
//
// Every state change is one transaction: the row update (guarded by the expected current
// state, so a stale writer fails instead of overwriting) and its event. Attempt states and
// cleanup steps move only along the legal edges of model/attempt_state.h; job phases along
// model/job_phase.h. Writers other than the daemon (the CLI, later the API) only add jobs and
// set desires, the latter with compare-and-set on the job's version.
//
// Thread-safe: one connection, every public call serialised by an internal mutex. Failures
// are values; SQLite exceptions never leave this class.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "journal/filesystem_check.h"
#include "journal/records.h"
#include "model/hash_cache.h"

namespace tpslurm::journal {

struct OpenOptions {
  enum class Mode { read_write, read_only };
  Mode mode = Mode::read_write;
  // A new journal is always created in full; an existing one with pending migrations is
  // upgraded only when this is set (`tuneplane-slurm migrate`), otherwise refused.
  bool migrate_existing = false;
  FilesystemProbe probe_filesystem = journal::probe_filesystem;
};

struct NewJob {
  std::string job_id;
  std::string request_json;
  std::string request_sha256;
  std::string credential_path;
  std::string credential_hmac;
  int max_attempts = 1;
};

enum class AddJobOutcome { created, unchanged };

class Journal {
 public:
  static Result<std::unique_ptr<Journal>> open(const std::string& path, const Clock& clock, OpenOptions options = {});
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  const std::string& path() const;

  // Jobs. add_job is idempotent by job_id: the same request hash is `unchanged`, another
  // hash is an invalid_argument conflict naming both hashes.
  Result<AddJobOutcome> add_job(const NewJob& job);
  Result<std::optional<JobRecord>> job(std::string_view job_id);
  Result<std::vector<JobRecord>> jobs();
  // Compare-and-set on the job's version: fails (transient) if someone changed the job since.
  Status set_desire(std::string_view job_id, model::Desire desire, std::string_view reason,
                    std::int64_t expected_version);
  Status set_phase(std::string_view job_id, model::JobPhase from, model::JobPhase to, std::string_view reason);

  // Attempts. add_attempt creates attempt `number` in state preparing and makes it current.
  Result<AttemptRecord> add_attempt(std::string_view job_id, int number, std::string_view submit_token,
                                    std::string_view input_sha256);
  Result<std::vector<AttemptRecord>> attempts(std::string_view job_id);
  Result<std::vector<AttemptRecord>> attempts_in(model::AttemptState state);
  Status transition(const AttemptKey& key, model::AttemptState from, model::AttemptState to,
                    const AttemptChanges& changes, const EventDetail& detail);
  Status advance_cleanup(const AttemptKey& key, model::CleanupStep from, model::CleanupStep to,
                         const EventDetail& detail);
  // An event that changes no state (evidence found, a search ran, a warning).
  Status record_event(std::string_view job_id, std::optional<int> attempt, std::string_view kind,
                      const EventDetail& detail);

  // Audit views (schema/audit.sql).
  Result<std::vector<TimelineEntry>> timeline(std::string_view job_id);
  Result<std::vector<BlockedEntry>> blocked();
  Result<std::vector<CleanupEntry>> cleanup_backlog();

  // An online, consistent copy through SQLite's backup API; refuses to overwrite a file.
  Status backup(const std::string& target);

  // The artifact hash cache (artifact_hashes table); lives as long as the journal.
  model::HashCache& hash_cache();

  struct Impl;

 private:
  explicit Journal(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

}  // namespace tpslurm::journal
