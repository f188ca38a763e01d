// Journal: the SQLite journal of jobs, attempts and their append-only events -- the only
// source of truth of this program (docs/architecture.md §3).
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
#include "model/job_phase.h"

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
  std::string platform_user{};            // the request's user; empty: it names none
  std::string unix_user{};                // per-user mode: who the job runs as; empty: the job user
  std::string default_account{};          // per-user mode: its account when the request names none
  std::optional<int> max_live_jobs{};     // the user's limit of jobs not yet ended; nullopt: none
};

// A sweep and its runs' jobs, run i's at jobs[i] (operations/sweep_submission.h).
struct NewSweep {
  std::string sweep_id;
  std::string request_sha256;
  std::optional<int> max_running;
  std::string platform_user{};         // the base's user; empty: it names none
  std::optional<int> max_live_jobs{};  // the user's limit of jobs not yet ended; nullopt: none
  std::vector<NewJob> jobs;
};

// Failures whose storage refuses writes (disk full, I/O error, read-only file) start with
// this; the daemon then stops acting until a write succeeds again.
inline constexpr std::string_view kJournalUnwritable = "the journal cannot be written";
bool is_unwritable(const Error& error);

class Journal {
 public:
  static Result<std::unique_ptr<Journal>> open(const std::string& path, const Clock& clock, OpenOptions options = {});
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  const std::string& path() const;

  // Jobs. add_job is idempotent by job_id: `created` or, for the same request hash, `unchanged`;
  // another hash is an invalid_argument error naming both hashes (operations/submission.h turns
  // it into SubmitOutcome::conflict). A new job whose user already has `max_live_jobs` jobs not
  // yet ended is `over_limit`, and nothing is written.
  // `submitted_by` (the platform API's token name) goes into the job.created event as "by";
  // empty: not recorded (the CLI).
  Result<model::SubmitOutcome> add_job(const NewJob& job, std::string_view submitted_by = {});
  // Sweeps. add_sweep journals the sweep and every one of its jobs in one transaction, all or
  // nothing, each job as add_job would with its sweep and place; idempotent by sweep_id:
  // `unchanged` for the same request hash, touching nothing; another hash, or a job id that is
  // already a job (not of this sweep), is an invalid_argument error naming it, and nothing is
  // written. `over_limit` when the user's live jobs and the sweep's runs together exceed
  // `max_live_jobs`: every run counts. `submitted_by` as for add_job.
  Result<model::SubmitOutcome> add_sweep(const NewSweep& sweep, std::string_view submitted_by = {});
  // The sweep and its runs' job ids and phases in order; nullopt when there is none.
  Result<std::optional<SweepRecord>> sweep(std::string_view sweep_id);
  // Whether job `job_id` may begin an attempt under its sweep's max_running: true for a job of
  // no sweep or of a sweep without one; otherwise whether fewer than max_running of the sweep's
  // runs hold an attempt that has not ended (from preparing to running). The reconciler asks it
  // in the same journal write that begins the attempt, so two runs never take the last room.
  Result<bool> sweep_has_room(std::string_view job_id);
  // How many jobs of `platform_user` have not yet ended (what add_job holds to max_live_jobs).
  Result<std::int64_t> live_jobs_of(std::string_view platform_user);
  Result<std::optional<JobRecord>> job(std::string_view job_id);
  Result<std::vector<JobRecord>> jobs();
  // Compare-and-set on the job's version: fails (transient) if someone changed the job since.
  // `grace_seconds` (cancel only): the checkpoint signal first, the kill that much later.
  // `by` (who asked: the invoking user, the API's token name) goes into the event as "by".
  Status set_desire(std::string_view job_id, model::Desire desire, std::string_view reason,
                    std::int64_t expected_version, std::optional<int> grace_seconds = std::nullopt,
                    std::string_view by = {});
  Status set_phase(std::string_view job_id, model::JobPhase from, model::JobPhase to, std::string_view reason);

  // Attempts. add_attempt creates attempt `number` in state preparing and makes it current.
  Result<AttemptRecord> add_attempt(std::string_view job_id, int number, std::string_view submit_token,
                                    std::string_view input_sha256);
  Result<std::vector<AttemptRecord>> attempts(std::string_view job_id);
  Result<std::vector<AttemptRecord>> attempts_in(model::AttemptState state);
  // Every attempt of every job, by job and number (the sweep's view of what the journal holds).
  Result<std::vector<AttemptRecord>> all_attempts();
  Status transition(const AttemptKey& key, model::AttemptState from, model::AttemptState to,
                    const AttemptChanges& changes, const EventDetail& detail);
  // Stamps cleanup_at; `logs_sha256` (sealing -> closed) stores the sealed logs' hashes.
  Status advance_cleanup(const AttemptKey& key, model::CleanupStep from, model::CleanupStep to,
                         const EventDetail& detail, std::optional<std::string> logs_sha256 = std::nullopt);
  // Attempts whose Slurm job is followed by the status poll: those Slurm holds (submitted,
  // pending, running) and ended ones whose cleanup has not left epilog_pending.
  Result<std::vector<AttemptRecord>> followed_attempts();
  // A small fact about the daemon's work (journal_meta), e.g. when the last status poll ran.
  Status set_meta(std::string_view key, std::string_view value);
  Result<std::optional<std::string>> meta(std::string_view key);
  // Changes an attempt's columns without moving its state (identify, release, a search's
  // report) and appends an event of `kind` (none when `kind` is empty: a repeated observation);
  // transient when the attempt is no longer in `state`.
  Status update_attempt(const AttemptKey& key, model::AttemptState state, const AttemptChanges& changes,
                        std::string_view kind, const EventDetail& detail);
  // An operator resolves a lost submit answer as absent (`resolve --absent`): submit_unknown ->
  // abandoned, the operator and the reason in the event. A job that still wants to run gets
  // one more attempt (max_attempts + 1: the abandoned one never ran) and is queued again; a
  // job whose desire is cancel ends cancelled. transient when the attempt moved meanwhile.
  Status resolve_absent(const AttemptKey& key, std::string_view by, std::string_view reason);

  // Operator controls (`paused`, `safe_mode`): on while set, with who and why; every change
  // is appended to control_events. Setting one that is on, or clearing one that is off,
  // changes nothing and returns ok.
  Result<std::optional<ControlRecord>> control(std::string_view name);
  Status set_control(std::string_view name, std::string_view by, std::string_view reason);
  Status clear_control(std::string_view name, std::string_view by, std::string_view reason);

  // The deployment recorded (journal_meta); empty before the first `serve`. set_deployment
  // records one, with a control event `deployment` naming who and why, in one transaction.
  Result<std::optional<Deployment>> deployment();
  Status set_deployment(const Deployment& deployment, std::string_view by, std::string_view reason);

  // Slurm jobs of this instance that no attempt holds: recorded (first_seen kept, last_seen
  // and state refreshed), listed by audit --orphans.
  Status record_orphan(const OrphanEntry& orphan);
  Result<std::vector<OrphanEntry>> orphans();

  // Tokens minted from the cluster's key (slurm::MintingTokenSource): appended when minted,
  // listed by audit --mints (newest last; of `user` alone when given; at most `limit`, the
  // newest). `purpose` is "service" or "job_user"; anything else is refused.
  Status record_mint(const MintRecord& mint);
  Result<std::vector<MintRecord>> mints(std::string_view user, int limit);

  // SQLite's data_version: changes whenever another connection commits (a new job, a desire),
  // so the daemon notices the CLI's writes without reading every job.
  Result<std::int64_t> data_version();

  // Whether a write could begin now: takes the write lock and gives it back at once, writing
  // nothing. Fails for a read-only file or directory, an I/O error, or a writer holding the
  // lock past the busy timeout (transient). It cannot see a full disk, since nothing is written.
  Status probe_write();

  // Group commit (the daemon's JournalWriter): the writes made between begin_group() and
  // end_group() share one transaction and one commit, so one fsync serves them all; each is
  // still all or nothing on its own (a savepoint), and a write that fails leaves the others.
  // end_group() commits; when it fails, or an earlier failure made SQLite roll the group back,
  // nothing of the group was written and the error says so. Reads on this connection meanwhile
  // see the group's writes; other connections see them once committed. Not nested; the caller
  // is the journal's one writer thread.
  Status begin_group();
  Status end_group();

  // An event that changes no state (evidence found, a search ran, a warning).
  Status record_event(std::string_view job_id, std::optional<int> attempt, std::string_view kind,
                      const EventDetail& detail);

  // Audit views (schema/audit.sql).
  Result<std::vector<TimelineEntry>> timeline(std::string_view job_id);
  // Every job's events with a sequence number above `after`, in order, at most `limit`: what
  // the platform's change feed reads.
  Result<std::vector<TimelineEntry>> events_after(std::int64_t after, std::size_t limit);
  Result<std::vector<BlockedEntry>> blocked();
  Result<std::vector<CleanupEntry>> cleanup_backlog();
  // One aggregate read (GROUP BY state and cleanup over the open attempts, not a row each)
  // and the sizes of the journal's files: the gauges a metrics scrape shows. `by_user` (per-user
  // mode, whose users are the map's) adds the live jobs of each platform user, one more GROUP BY.
  Result<JournalGauges> gauges(bool by_user = false);
  // The jobs the reconciler still has work for — not in a final phase, or holding an attempt
  // whose cleanup is not closed — by id only, each once: first those Slurm has or had (their
  // identify, release, cancel and cleanup come before new submits), then those not yet in
  // Slurm (queued, submitting); oldest first within each.
  Result<std::vector<std::string>> live_job_ids();

  // An online, consistent copy through SQLite's backup API; refuses to overwrite a file.
  Status backup(const std::string& target);
  // Replaces this journal's whole content by the backup at `source` (SQLite's backup API, in
  // one step: readers see the old or the new content). The caller holds the daemon lock,
  // keeps a copy of the current content first and sets `safe_mode` afterwards.
  Status restore_from(const std::string& source);

  // The artifact hash cache (artifact_hashes table); lives as long as the journal.
  model::HashCache& hash_cache();

  struct Impl;

 private:
  explicit Journal(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

}  // namespace tpslurm::journal
