// JobStateEntry: one job's (or one heterogeneous component's, or one array task's) state as a
// bulk poll reports it.
//
// `jobs/state` (v0.0.4x) answers with ids such as "12", "14+0" or "15+1": the record's own job
// id, then the component's offset for a heterogeneous job. A job array's records are named
// "M_t" (task t, still pending in the meta record of master M: one entry per pending task),
// "N_t" (task t, split off under its own job id N; the last task keeps the master's id) and
// "M_*" (a meta record without a pending task); the answer never names a split task's master
// (data_parser JOB_STATE_RESP_JOB_JOB_ID at slurm-26-05-3-1), so a decoded entry carries the
// id before "_" as array_job_id and the bulk poll settles it to the master it asked for
// (bulk_state.h). v0.0.38 has no such endpoint; its fallback fills the same entries from full
// job records, one per pending task of a meta record. A plain value; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>

#include "model/slurm_state.h"

namespace tpslurm::slurm {

struct JobStateEntry {
  std::uint32_t job_id = 0;                     // the record's own id (a component's, for hetjobs)
  std::optional<std::uint32_t> het_job_offset;  // set for heterogeneous components
  model::SlurmState state;
  // Set for every record of a job array: the array's master id (see above).
  std::optional<std::uint32_t> array_job_id;
  // The task this entry is about; empty for a plain job and for "M_*".
  std::optional<std::uint32_t> array_task_id;

  bool operator==(const JobStateEntry&) const = default;
};

}  // namespace tpslurm::slurm
