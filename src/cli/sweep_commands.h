// The sweep's side of `submit` and `status` (cmd_sweep.cc):
//   tuneplane-slurm submit --sweep SWEEP.json [--json]   journals a sweep and its runs' jobs
//   tuneplane-slurm status --sweep ID [--json]           the sweep and each run's phase
// As `submit` for a job: idempotent by sweep_id (exit 0 the same sweep again, 2 a conflict).
#pragma once

#include <string>

namespace tpslurm::journal {
class Journal;
}

namespace tpslurm::cli {

class Context;

int run_submit_sweep(Context& context, const std::string& path, bool json);
int show_sweep_status(Context& context, journal::Journal& journal, const std::string& sweep_id, bool json);

}  // namespace tpslurm::cli
