// The v0.0.45 codec (Slurm 26.05; the seeds' target). See REST-API.md §3-6 and the 26.05.3
// transcripts in tests/fixtures/slurm/samples-v0.0.45/.
//
// Submit: {"job":{…}} for one component, {"jobs":[…]} for a heterogeneous job, `script` in the
// first component, `environment` as a "K=V" list, GPUs as `tres_per_node: "gres/<gres>"`,
// numbers as {"set","infinite","number"}, `requeue: false` on every component (26.05 applies it
// per component). Records: `job_state` lists, `exit_code` objects, SLUID from
// `step_id.sluid`; DELETE answers 200 with `status[].error.code` (2017 unknown, 2021 done).
// slurmdbd records carry `sluid` and `original_sluid`. Built by dialect_v004x.h, which v0.0.44
// and v0.0.43 share.
#pragma once

#include <memory>

#include "slurm/dialect.h"

namespace tpslurm::slurm {

std::unique_ptr<Dialect> make_dialect_v0045();

}  // namespace tpslurm::slurm
