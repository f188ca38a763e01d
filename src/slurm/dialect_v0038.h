// The v0.0.38 codec (Slurm 22.05, Debian 12). See docs/slurm.md, *v0.0.38 (Slurm 22.05)*, and the
// 22.05.8 transcripts in tests/fixtures/slurm/samples-v0.0.38/.
//
// Submit: top-level `script`, `job` or `jobs`, sbatch option names, an `environment` object in
// every component (22.05 carries nothing over between components), `gres`, plain numbers, and
// `no_requeue: true` (22.05 ignores `requeue: false`; it is never sent). Unknown keys are a 400
// there, so only keys 22.05 accepts are written (the served OpenAPI document plus `no_requeue`). Records: one `job_state`
// string in which a flag replaces the base state, raw wait-status `exit_code`, no SLUID.
// Every error is a 500 (2017 for unknown jobs), 304 answers an unchanged `update_time`.
#pragma once

#include <memory>

#include "slurm/dialect.h"

namespace tpslurm::slurm {

std::unique_ptr<Dialect> make_dialect_v0038();

}  // namespace tpslurm::slurm
