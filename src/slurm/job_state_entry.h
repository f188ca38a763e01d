// JobStateEntry: one job's (or one heterogeneous component's) state as a bulk poll reports it.
//
// `jobs/state` (v0.0.4x) answers with ids such as "12", "14+0" or "15+1": the record's own job
// id, then the component's offset for a heterogeneous job. v0.0.38 has no such endpoint; its
// fallback fills the same entries from full job records. A plain value; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>

#include "model/slurm_state.h"

namespace tpslurm::slurm {

struct JobStateEntry {
  std::uint32_t job_id = 0;                     // the record's own id (a component's, for hetjobs)
  std::optional<std::uint32_t> het_job_offset;  // set for heterogeneous components
  model::SlurmState state;

  bool operator==(const JobStateEntry&) const = default;
};

}  // namespace tpslurm::slurm
