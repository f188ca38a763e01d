// JobStore: the simulated slurmctld's job table and slurmdbd's job archive.
//
// Records are indexed by job id (ordered, like `GET /jobs` lists them) and by SLUID, so
// lookups for `jobs/state` with hundreds of ids and GETs by SLUID never scan the table.
// Time-driven changes (automatic PENDING -> RUNNING -> COMPLETING -> done, and the purge
// MinJobAge after a job ended) sit in a queue ordered by due time; `tick()` applies every
// due change at its own due time, so results do not depend on when somebody looked.
// Every change bumps `last_job_update` (one-second resolution, as slurmctld keeps it).
// A purged record leaves the controller's views but stays in the accounting archive,
// which also outlives `reset_ids` (a controller that lost its state).
//
// Ownership: the store owns every record (shared with the archive). Raw pointers it
// returns stay valid until the next tick, purge or reset. Not thread-safe: the server's
// single I/O thread is the only caller.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "cluster.h"
#include "job.h"
#include "options.h"
#include "sim_clock.h"
#include "sluid.h"

namespace tpslurm::sim {

// SIGKILL: the signal a cancel sends when it names none, the only one a pending job takes.
inline constexpr int kSigKill = 9;

// A control-API step: any subset of the fields.
struct StateChange {
  std::optional<BaseState> state;
  std::optional<int> exit_code;  // for COMPLETED/FAILED
  std::optional<int> signal;     // for CANCELLED/TIMEOUT/... ("killed by signal")
  std::optional<bool> completing;
  std::optional<std::string> reason;
  std::optional<bool> update_db;  // set or clear the UPDATE_DB state flag
  // A pending job's start_time: the backfill scheduler's estimate (unix seconds; 0: none).
  std::optional<std::int64_t> expected_start;
  // Whether the record moves on by itself (false: it stays as it is, e.g. running or
  // COMPLETING, until it is stepped or cancelled; its time limit no longer ends it either).
  std::optional<bool> auto_progress;
};

enum class KillResult { signalled, already_done, not_found, pending_het_component, not_running, denied };

// slurmctld's job counters since it started (sdiag's "Jobs submitted" etc.): each het
// component counts; a cancellation counts as canceled whether the job ran or not; a job
// that ended any other way after starting counts as completed, except NODE_FAIL and
// BOOT_FAIL, which slurmctld counts as failed (slurmd trouble).
struct JobCounters {
  std::uint64_t submitted = 0;
  std::uint64_t started = 0;
  std::uint64_t completed = 0;
  std::uint64_t canceled = 0;
  std::uint64_t failed = 0;
};

class JobStore {
 public:
  using JobPtr = std::shared_ptr<JobRecord>;

  JobStore(SimClock& clock, const ClusterConfig& cluster, Timing timing, std::int64_t min_job_age_s,
           std::uint32_t first_job_id, std::uint16_t cluster_id);

  // Applies every scheduled change that is due by the clock's now.
  void tick();

  // Creates the records of one submission (one element: a plain job; more: a het job),
  // assigning ids, SLUIDs and times. Returns the (leader's) job id.
  std::uint32_t submit(std::vector<JobRecord> components);

  JobRecord* find(std::uint32_t job_id);
  JobRecord* find_sluid(std::uint64_t sluid);
  // Every component of the record's het job in offset order; the record alone if plain.
  std::vector<JobRecord*> het_group(const JobRecord& record);
  // What `GET /job/{id}` returns: a leader brings all components, anything else itself.
  std::vector<JobRecord*> records_for_get(JobRecord& record);

  const std::map<std::uint32_t, JobPtr>& controller_jobs() const { return m_jobs; }
  std::int64_t last_job_update() const { return m_last_job_update; }
  std::int64_t last_backfill() const { return m_last_backfill; }
  std::uint32_t next_job_id() const { return m_next_id; }
  const JobCounters& counters() const { return m_counters; }
  // Jobs in slurmctld now, pending and running (a full scan; only the diag endpoint asks).
  std::uint64_t count_in_state(BaseState state) const;

  // job_mgr.c job_signal / het_job_signal semantics: SIGKILL cancels (a leader cancels every
  // component). Any other signal is delivered only to a running record, which records it in
  // `last_signal` and changes nothing else; a pending or suspended record is not signalled
  // (not_running: 2020). A leader signals every component and answers with the last
  // component's refusal (not_running, or already_done for an ended one), if any.
  KillResult kill(JobRecord& record, int signal, std::uint32_t requester_uid, bool requester_privileged);

  // A job update's `hold` (priority 0 / INFINITE) on one record, as slurmctld's _update_job()
  // does it: 0, or the Slurm error it answers: 2010 (another user's job, not privileged),
  // 2084 (the job has ended), 2002 (a user releasing an administrator's hold). A hold sets
  // priority 0 and JobHeldAdmin (privileged) or JobHeldUser; a release gives the priority
  // back, reason None, and a pending job starts per the timing from now. Releasing a job that
  // is not held, or holding a held one, changes nothing. With whole_hetjob every component
  // of the record's het job is held or released with it; a het job starts only when none of
  // its components is held.
  int set_hold(JobRecord& record, bool hold, std::uint32_t requester_uid, bool requester_privileged);

  // Control API.
  Status apply(JobRecord& record, const StateChange& change);
  Status requeue(JobRecord& record, bool force);
  // Forgets every job (when `forget_jobs`) and restarts numbering at `next_id`.
  void reset_ids(std::uint32_t next_id, bool forget_jobs);
  void set_timing(Timing timing) { m_timing = timing; }
  const Timing& timing() const { return m_timing; }
  void set_min_job_age(std::int64_t seconds) { m_min_job_age_s = seconds; }
  std::int64_t min_job_age() const { return m_min_job_age_s; }

  // slurmdbd's view: every record ever created, purged or not.
  const std::vector<JobPtr>& accounting() const { return m_archive; }
  std::vector<JobPtr> accounting_by_id(std::uint32_t job_id) const;
  std::vector<JobPtr> accounting_by_name(const std::string& name) const;

  // Job arrays (job_store_arrays.cc). A submitted array is one meta record (job_id ==
  // array_job_id, array_task_id unset, its pending tasks in array_pending). Splitting a task
  // off gives it a record of its own with a new job id that copies the meta record; when one
  // task is left the meta record becomes that task. The scheduler splits and starts the
  // lowest pending tasks, as many as the %P throttle lets run (the rest wait with reason
  // JobArrayTaskLimit until a task ends). Returns the task's record, nullptr if `task` is not
  // pending in `meta`.
  JobRecord* split_array_task(JobRecord& meta, std::uint32_t task, std::int64_t at_ms);
  // Task `task` of the array `master_id`: its record, split off first if it was pending;
  // nullptr if the array has no such task in slurmctld.
  JobRecord* array_task(std::uint32_t master_id, std::uint32_t task);
  // After a task of `master_id` was stepped from outside: a meta record whose throttle is
  // reached waits with reason JobArrayTaskLimit, as the scheduler leaves it.
  void note_array_throttle(std::uint32_t master_id);
  // Signals task `task` of the array `master_id` as job_str_signal / kill_jobs do for "M_t":
  // a task still pending in the meta record is removed from it by SIGKILL (it leaves no
  // record; the meta record ends CANCELLED when no task is left) and refuses any other signal
  // (not_running); a split task is signalled as kill() does; not_found when the array has no
  // such task.
  KillResult kill_array_task(std::uint32_t master_id, std::uint32_t task, int signal, std::uint32_t requester_uid,
                             bool requester_privileged);
  // The master's record, then every task split off it still in slurmctld, the newest split first.
  std::vector<JobRecord*> array_records(std::uint32_t master_id);

  // Scheduled changes waiting (for tests and stats).
  std::size_t pending_events() const { return m_events.size(); }

 private:
  enum class EventKind { start, finish, end_completing, purge };
  struct Event {
    std::uint32_t job_id;
    std::uint64_t generation;
    EventKind kind;
  };

  void index(const JobPtr& record);
  void touch(std::int64_t at_ms);
  void reschedule(JobRecord& record, std::int64_t now_ms);
  // Some component of the record's het job is held (a plain job: the record itself).
  bool group_held(const JobRecord& record);
  void schedule(JobRecord& record, std::int64_t due_ms, EventKind kind);
  void run_event(const Event& event, std::int64_t at_ms);
  void start(JobRecord& record, std::int64_t at_ms);
  void finish(JobRecord& record, BaseState state, std::int32_t exit_status, bool completing, std::int64_t at_ms);
  void purge(std::uint32_t job_id, std::int64_t at_ms);
  // apply()'s steps: to PENDING, RUNNING or SUSPENDED; to an ending state; COMPLETING on or off.
  Status move_to_live(JobRecord& record, const StateChange& change, const std::string& who, std::int64_t now_ms);
  Status move_to_end(JobRecord& record, const StateChange& change, const std::string& who, std::int64_t now_ms);
  Status set_completing(JobRecord& record, bool completing, const std::string& who, std::int64_t now_ms);
  std::string node_for(const JobRecord& record) const;
  // kill()'s signal to the records it chose (a job, a het job's components, an array's records).
  KillResult signal_records(const std::vector<JobRecord*>& targets, int signal, std::uint32_t requester_uid);
  std::uint32_t free_job_id();
  std::uint32_t running_array_tasks(std::uint32_t master_id);
  void start_array_tasks(JobRecord& meta, std::int64_t at_ms);
  // A task of a throttled array ended: the meta record's next tasks may start.
  void wake_array(const JobRecord& task, std::int64_t at_ms);

  SimClock& m_clock;
  const ClusterConfig& m_cluster;
  Timing m_timing;
  std::int64_t m_min_job_age_s;
  SluidGenerator m_sluids;
  std::uint32_t m_next_id;
  std::uint64_t m_generation = 0;
  std::uint64_t m_event_seq = 0;
  std::int64_t m_last_job_update;
  std::int64_t m_last_backfill;
  JobCounters m_counters;

  std::map<std::uint32_t, JobPtr> m_jobs;
  std::unordered_map<std::uint64_t, JobPtr> m_by_sluid;
  std::multimap<std::int64_t, Event> m_events;
  std::map<std::uint32_t, std::vector<std::uint32_t>> m_array_tasks;  // master -> split task ids

  std::vector<JobPtr> m_archive;
  std::unordered_multimap<std::uint32_t, JobPtr> m_archive_by_id;
  std::unordered_multimap<std::string, JobPtr> m_archive_by_name;
};

}  // namespace tpslurm::sim
