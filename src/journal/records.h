// The journal's rows as values: what the CLI, the API and the reconciler read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/attempt_state.h"
#include "model/infra_failure.h"
#include "model/job_phase.h"

namespace tpslurm::journal {

struct JobRecord {
  std::string job_id;
  std::string request_json;
  std::string request_sha256;
  std::string credential_path;
  std::string credential_hmac;
  int max_attempts = 1;
  model::Desire desire = model::Desire::run;
  std::string desire_reason;
  model::JobPhase phase = model::JobPhase::queued;
  std::optional<int> current_attempt;
  std::int64_t version = 1;
  // cancel --grace: the checkpoint signal first, the kill this many seconds later.
  std::optional<int> cancel_grace_seconds;
  std::string created_at;
  std::string updated_at;
  std::string platform_user{};  // empty: the request named none
  std::string unix_user{};      // empty: the deployment's job user (one-user mode)
  std::string default_account{};  // per-user mode: the account when the request names none
};

struct AttemptKey {
  std::string job_id;
  int number = 0;
};

struct AttemptRecord {
  std::string job_id;
  int number = 0;
  std::string submit_token;
  model::AttemptState state = model::AttemptState::preparing;
  std::string input_sha256;
  std::string attempt_dir;
  std::string script_sha256;
  std::string env_sha256;
  std::string manifest_sha256;
  std::string intent_at;
  std::optional<std::uint32_t> slurm_job_id;
  std::string sluid;
  std::optional<std::uint32_t> het_job_id;
  std::string components;  // JSON
  std::string server_release;
  std::string dialect;
  std::string receipt;  // JSON
  std::string slurm_state;
  std::string slurm_reason;
  std::optional<int> exit_code;
  std::optional<int> exit_signal;
  std::string failure_phase;
  std::string outcome_reason;
  std::string found_by;
  model::CleanupStep cleanup = model::CleanupStep::none;
  std::string logs_sha256;
  std::string submit_mode;         // "held" or "direct"; empty before submitting
  std::string identified_at;       // empty until identify passed
  std::string released_at;         // held submits: empty until released
  std::string searched_at;         // blocked: the last search by tag
  std::string complete_search_at;  // blocked: the last search every source answered
  std::string search_report;       // JSON: that search's report per source
  // How long after the intent the last search and the last complete search ran, as `serve`
  // measured it (reconcile/elapsed_board.h); empty before the first such search.
  std::optional<std::int64_t> search_elapsed_s;
  std::optional<std::int64_t> complete_search_elapsed_s;
  std::string observed_at;   // when a change of its Slurm job was last journaled
  std::string signalled_at;  // cancel with grace: when the checkpoint signal reached the job
  std::string cleanup_at;    // when the cleanup step last moved
  // The job name and working directory its Slurm job was given (prepared); empty for an attempt
  // prepared before they were journaled (storage/attempt_tag.h computes them then).
  std::string tag_name;
  std::string tag_workdir;
  std::string usage;  // JSON, once read after the end (model/usage.h); empty before
  std::int64_t version = 1;
  std::string created_at;
  std::string updated_at;

  // The job's Unix user (jobs.unix_user), read with the attempt: its Slurm calls go as that
  // user. Empty: the service identity (one-user mode).
  std::string unix_user{};

  AttemptKey key() const { return {job_id, number}; }
  // A held submit that has not been released yet.
  bool awaiting_release() const { return submit_mode == "held" && released_at.empty(); }
};

// How many of the attempts the cluster ended (failed with a failure phase of
// model/infra_failure.h): the job's retries after the cluster's failures, used or refused.
inline long infra_failures(const std::vector<AttemptRecord>& attempts) {
  long n = 0;
  for (const auto& a : attempts)
    n += a.state == model::AttemptState::failed && model::is_infra_failure(a.failure_phase);
  return n;
}

// The columns a transition may set; unset optionals leave the column as it is.
struct AttemptChanges {
  std::optional<std::string> attempt_dir;
  std::optional<std::string> script_sha256;
  std::optional<std::string> env_sha256;
  std::optional<std::string> manifest_sha256;
  std::optional<std::uint32_t> slurm_job_id;
  std::optional<std::string> sluid;
  std::optional<std::uint32_t> het_job_id;
  std::optional<std::string> components;
  std::optional<std::string> server_release;
  std::optional<std::string> dialect;
  std::optional<std::string> receipt;
  std::optional<std::string> slurm_state;
  std::optional<std::string> slurm_reason;
  std::optional<int> exit_code;
  std::optional<int> exit_signal;
  std::optional<std::string> failure_phase;
  std::optional<std::string> outcome_reason;
  std::optional<std::string> found_by;
  std::optional<std::string> submit_mode;
  std::optional<std::string> tag_name;
  std::optional<std::string> tag_workdir;
  std::optional<std::string> usage;  // JSON: what slurmdbd recorded the attempt used (model/usage.h)
  bool identified = false;           // stamps identified_at with the journal's time
  bool released = false;             // stamps released_at
  // A search by tag ran: stamps searched_at (and complete_search_at when `search_complete`)
  // and stores the report.
  std::optional<std::string> search_report;
  bool search_complete = false;
  // With search_report: how long after the intent the search ran (search_elapsed_s, and
  // complete_search_elapsed_s when `search_complete`).
  std::optional<std::int64_t> search_elapsed_s;
  bool observed = false;   // stamps observed_at: a change of the Slurm job was seen
  bool signalled = false;  // stamps signalled_at: the checkpoint signal was delivered
  // The job's phase after this transition; by default model::phase_of(new state). A retry
  // sets it to queued instead of failed.
  std::optional<model::JobPhase> job_phase;
  // The attempt never ran (Slurm forgot or ended every copy before it started): the job gets
  // one more attempt (max_attempts + 1), as an attempt resolved absent does.
  bool grant_attempt = false;
};

// Key/value pairs stored as the event's JSON detail. "reason" is shown by the audit views.
using EventDetail = std::vector<std::pair<std::string, std::string>>;

struct TimelineEntry {
  std::int64_t seq = 0;
  std::string at;
  std::string job_id;
  std::string request_sha256;
  std::optional<int> attempt;
  std::string submit_token;
  std::string kind;
  std::string from_state;
  std::string to_state;
  std::string reason;
  std::optional<std::int64_t> slurm_job_id;
  std::string sluid;
  std::string detail;  // JSON
  std::string user{};       // the job's platform user; empty: none
  std::string unix_user{};  // empty: the deployment's job user
};

struct BlockedEntry {
  std::string job_id;
  int attempt = 0;
  std::string submit_token;
  std::string intent_at;
  std::string blocked_since;
  std::string attempt_dir;
  std::string last_search_at;
  std::string reason;
  std::string last_complete_search_at;
  std::string search_report;  // JSON: the last search's report per source
  // How long after the intent the last search and the last complete one ran, as `serve`
  // measured it (a step of the wall clock does not count; resolve --absent goes by these).
  std::optional<std::int64_t> last_search_elapsed_s;
  std::optional<std::int64_t> last_complete_search_elapsed_s;
};

// The deployment a journal's jobs were tagged under: every job name carries the instance, every
// working directory the storage root as the nodes see it. `serve` records it at its first start
// and refuses to run under another; `journal move-deployment` records a new one.
struct Deployment {
  std::string instance;      // TUNEPLANE_INSTANCE
  std::string storage_root;  // TUNEPLANE_STORAGE_ROOT, on this host
  std::string cluster_root;  // the same tree as the nodes see it (TUNEPLANE_SLURM_STORAGE_ROOT, else the above)

  bool operator==(const Deployment&) const = default;
  // "instance t, storage root /x (on the nodes /y)"
  std::string describe() const;
};

// An operator control that is on (controls table): `paused` or `safe_mode`.
struct ControlRecord {
  std::string name;
  std::string reason;
  std::string set_by;
  std::string set_at;
};

// A sweep (sweeps) and its runs' jobs in their order (jobs.sweep_index 0, 1, ...).
struct SweepRun {
  std::string job_id;
  model::JobPhase phase = model::JobPhase::queued;
};

struct SweepRecord {
  std::string sweep_id;
  std::string request_sha256;
  int run_count = 0;
  std::optional<int> max_running;
  std::string platform_user;  // empty: the base names none
  std::string submitted_by;   // the API token's name; empty: not recorded (the CLI)
  std::string created_at;
  std::vector<SweepRun> runs;
};

// A Slurm token the daemon minted (token_mints): never the token itself.
struct MintRecord {
  std::string at;
  std::string user;
  std::string expires_at;
  std::string purpose;  // "service" or "job_user"

  bool operator==(const MintRecord&) const = default;
};

// A Slurm job named like this instance's that no attempt holds.
struct OrphanEntry {
  std::uint32_t slurm_job_id = 0;
  std::string sluid;
  std::string name;
  std::string comment;
  std::string working_dir;
  std::string slurm_state;
  std::string first_seen;
  std::string last_seen;
};

struct CleanupEntry {
  std::string job_id;
  int attempt = 0;
  std::string state;
  std::string cleanup;
  std::optional<std::int64_t> slurm_job_id;
  std::string slurm_state;
  std::string since;
};

// Attempts whose cleanup is not closed (every attempt not final, and the ended ones that still
// hold something), counted by state and cleanup step: what GET /metrics reads (Journal::gauges()).
struct AttemptGroup {
  model::AttemptState state = model::AttemptState::preparing;
  model::CleanupStep cleanup = model::CleanupStep::none;
  std::int64_t count = 0;
  std::string oldest_intent_at;  // the group's earliest intent_at; empty when none has one
};

struct JournalGauges {
  std::vector<AttemptGroup> open_attempts;
  std::vector<std::pair<std::string, std::int64_t>> live_jobs_by_user;  // jobs not yet ended, by platform user
  std::int64_t file_bytes = 0;  // the journal's file and its -wal, as they are on disk now
};

}  // namespace tpslurm::journal
