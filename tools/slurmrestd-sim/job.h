// JobRecord: one slurmctld job record, i.e. one component of a (het)job.
//
// A heterogeneous job is several records sharing `het_job_id` (the leader's job id) with
// offsets 0..n-1, as slurmctld keeps them. Besides the request and the state, a record
// carries the simulator's bookkeeping: the generation that invalidates stale scheduled
// transitions and whether the record is still in slurmctld's memory (after MinJobAge it
// lives on only in the slurmdbd view). Plain data; the JobStore owns and mutates it.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "release.h"

namespace tpslurm::sim {

// Base states in slurm.h order (JOB_PENDING .. JOB_OOM).
enum class BaseState : std::uint8_t {
  pending,
  running,
  suspended,
  completed,
  cancelled,
  failed,
  timeout,
  node_fail,
  preempted,
  boot_fail,
  deadline,
  out_of_memory,
};

// The state flags the simulator can set, as bits in JobRecord::flags.
namespace state_flag {
inline constexpr std::uint32_t requeued = 1u << 0;
inline constexpr std::uint32_t configuring = 1u << 1;
inline constexpr std::uint32_t completing = 1u << 2;
inline constexpr std::uint32_t stage_out = 1u << 3;
// JOB_UPDATE_DB: the job's accounting record still has to reach slurmdbd. Set only through
// the control API; shown by the v0.0.40 and v0.0.41 parsers (later ones dropped the name).
inline constexpr std::uint32_t update_db = 1u << 4;
}  // namespace state_flag

std::string_view base_state_name(BaseState state);  // "PENDING"
std::optional<BaseState> parse_base_state(std::string_view name);
bool is_finished(BaseState state);  // neither pending, running nor suspended

// v0.0.4x: base state first, then the flags in Slurm's table order.
// Without a dialect (and on v0.0.42 and later) UPDATE_DB is left out.
std::vector<std::string_view> state_array(BaseState state, std::uint32_t flags);
std::vector<std::string_view> state_array(BaseState state, std::uint32_t flags, Dialect dialect);
// v0.0.38 (job_state_string): one word, a flag replaces the base state.
std::string_view state_string_v38(BaseState state, std::uint32_t flags);

// Raw wait status helpers (what slurmctld stores as exit_code).
inline std::int32_t wait_status_exited(int code) { return (code & 0xff) << 8; }
inline std::int32_t wait_status_signaled(int signal) { return signal & 0x7f; }
std::string_view signal_name(int signal);  // "TERM" for 15, "" if unknown
int parse_signal(std::string_view text);   // "SIGUSR1", "USR1" or "10"; 0 if invalid

struct JobRecord {
  // Identity.
  std::uint32_t job_id = 0;
  std::uint32_t het_job_id = 0;      // leader's id; 0 for a plain job
  std::uint32_t het_job_offset = 0;
  std::uint32_t het_size = 0;        // components in the het job (0 for a plain job)
  std::uint64_t sluid = 0;           // this run's SLUID
  std::uint64_t original_sluid = 0;  // first run's SLUID (slurmdbd's original_sluid)

  // Request.
  Dialect submitted_with = Dialect::v0045;
  std::string name;
  std::string comment;
  std::string partition;
  bool partition_defaulted = false;
  std::string account;
  std::string qos;
  std::string wckey;
  std::string reservation;
  std::string dependency;
  std::string constraints;
  std::string cwd;
  std::string std_out;
  std::string std_err;
  std::string std_in;
  std::string tres_per_node;  // as the record shows it ("gres/gpu:1", v0.0.38 "gres:gpu:1")
  std::uint32_t gpus = 0;     // GPUs per node actually requested
  std::string script;         // batch script (component 0 only)
  std::vector<std::string> environment;
  bool requeue = true;
  bool hold = false;
  std::uint32_t cpus_per_task = 0;  // 0: not requested
  std::uint32_t tasks = 0;          // 0: not requested
  std::uint32_t min_nodes = 1;
  bool nodes_requested = false;
  std::uint64_t mem_per_node_mb = 0;
  std::uint64_t mem_per_cpu_mb = 0;
  std::optional<std::uint32_t> time_limit_min;  // nullopt: INFINITE (no partition limit)
  std::string array_spec;  // the submitted `array` ("": not an array)

  // Job array (job_record_t's array_job_id, array_task_id and array_recs).
  std::uint32_t array_job_id = 0;              // the master's id; 0 for a job that is no array
  std::optional<std::uint32_t> array_task_id;  // unset on the meta record of pending tasks
  std::uint32_t array_max_tasks = 0;           // the %P throttle (0: none), on every task
  std::set<std::uint32_t> array_pending;       // the meta record's pending task ids

  // Owner.
  std::string user_name = "root";
  std::uint32_t user_id = 0;
  std::string group_name = "root";
  std::uint32_t group_id = 0;

  // State.
  BaseState state = BaseState::pending;
  std::uint32_t flags = 0;
  std::string state_reason = "None";
  std::int64_t submit_time = 0;
  std::int64_t eligible_time = 0;
  std::int64_t accrue_time = 0;
  std::int64_t start_time = 0;
  std::int64_t end_time = 0;
  std::int64_t last_sched_eval = 0;
  std::int32_t exit_status = 0;  // raw wait status
  std::int32_t derived_exit_status = 0;
  std::uint32_t restart_cnt = 0;
  std::uint32_t priority = 1;
  std::string nodes;  // allocated nodes ("" while pending)
  bool allocated = false;
  std::uint32_t kill_request_uid = 0;
  int last_signal = 0;  // last non-fatal signal delivered (simulator bookkeeping)

  // Simulator bookkeeping.
  std::uint64_t created_seq = 0;  // order of creation (ties in slurmdbd listings)
  std::uint64_t generation = 0;
  std::int64_t phase_since_ms = 0;  // when the current state (or COMPLETING) began
  bool auto_progress = true;
  int planned_exit = 0;  // the script's "exit N"
  bool in_controller = true;

  bool is_array_meta() const { return array_job_id != 0 && !array_task_id; }
  bool is_het() const { return het_job_id != 0; }
  bool is_het_leader() const { return is_het() && het_job_offset == 0; }
  std::uint32_t effective_cpus_per_task() const { return cpus_per_task ? cpus_per_task : 1; }
  std::uint32_t effective_tasks() const { return tasks ? tasks : 1; }
  std::uint32_t total_cpus() const { return effective_cpus_per_task() * effective_tasks(); }
  // Memory per node in MB as allocated (per-cpu requests and DefMemPerCPU included).
  std::uint64_t allocated_mem_mb(std::uint64_t def_mem_per_cpu_mb) const;
  // "cpu=1,mem=512M,node=1,billing=1[,gres/gpu=N]"
  std::string tres_string(std::uint64_t def_mem_per_cpu_mb) const;
  // Expands %j %x %u %A %a %S %% and makes a relative path absolute against cwd.
  std::string expand_path(const std::string& pattern, bool sluid_patterns) const;
};

}  // namespace tpslurm::sim
