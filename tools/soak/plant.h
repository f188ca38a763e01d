// Planting (`tp-soak --plant`): after the drain, with the daemon stopped, one fault of each
// kind the verdict counts is put into the real data — a second Slurm job carrying an attempt's
// job name (a duplicate), a Slurm job named like this instance that no attempt knows (a loss),
// and one ended attempt's cleanup reopened in the journal (an unfinished cleanup) — so that a
// whole run shows its verdict line catching them. A planted soak passes only when it counts
// exactly these three.
#pragma once

#include <string>

#include "base/result.h"
#include "sim.h"

namespace tpslurm::soak {

// What was planted, in words; an error when there was no ended attempt with a Slurm job to
// plant on, or the simulator or the journal refused.
Result<std::string> plant_faults(Sim& sim, const std::string& journal_path);

}  // namespace tpslurm::soak
