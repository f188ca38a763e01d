// JobSnapshot: one Slurm job record (one heterogeneous component) as every codec returns it.
//
// Dialect-neutral: numbers are plain, `{set,infinite,number}` wrappers and raw wait statuses
// are decoded by the codec. Optional fields are empty when the server did not report them
// (a pending job has no start time; v0.0.38 and v0.0.43 have no SLUID). Records of a job
// array carry its ids (array_job_id, array_task_id, array_task_string) as every dialect reads them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "model/job_tag.h"
#include "model/slurm_state.h"

namespace tpslurm::model {

// What slurmdbd recorded a job (one component) was given and how long it ran: `time.elapsed`
// and `tres.allocated` (cpu, mem in MB, node, gres/gpu). A job that never ran was given nothing.
struct Allocation {
  std::int64_t elapsed_seconds = 0;
  std::int64_t cpus = 0;
  std::int64_t memory_mb = 0;
  std::int64_t nodes = 0;
  std::int64_t gpus = 0;

  bool operator==(const Allocation&) const = default;
};

struct JobSnapshot {
  std::uint32_t job_id = 0;
  std::string sluid;                            // "s" + 13 Crockford base32; empty if none
  std::optional<std::uint32_t> het_job_id;      // the leader's id; empty for a plain job
  std::optional<std::uint32_t> het_job_offset;  // 0..n-1; empty for a plain job
  // Job arrays (job_array.h): the master's id on every record of an array (its pending meta
  // record, whose job_id is the master's, and each task split off under an id of its own);
  // empty for a plain job.
  std::optional<std::uint32_t> array_job_id;
  // The task's id on a record that is one task (split off, or the last task, which keeps the
  // master's id); empty on the pending meta record, which stands for array_task_string.
  std::optional<std::uint32_t> array_task_id;
  // The meta record's pending tasks as slurmctld prints them ("2-3%2", "0-20:2", cut with
  // "..."): model::parse_array_task_string reads it. Empty on a task's own record.
  std::string array_task_string;
  std::string name;
  std::string comment;
  std::string working_directory;
  std::string partition;
  std::string nodes;  // Slurm's node list ("vm,vm-emu"), empty while pending
  SlurmState state;
  std::string state_reason;        // "None", "Resources", "NonZeroExitCode", ...
  std::optional<int> exit_code;    // the program's exit status, when it exited
  std::optional<int> exit_signal;  // the signal that ended it, when signalled
  bool requeue = false;
  int restart_count = 0;
  std::optional<TimePoint> submit_time;
  std::optional<TimePoint> start_time;
  std::optional<TimePoint> end_time;
  std::string standard_output;  // expanded paths where the server gives them
  std::string standard_error;
  std::optional<Allocation> allocation;  // slurmdbd's records only

  bool is_het_component() const { return het_job_id.has_value(); }
  bool is_array_record() const { return array_job_id.has_value(); }
  JobTag tag() const { return {name, comment, working_directory}; }
};

}  // namespace tpslurm::model
