// Tally: the soak's verdict, from every job the simulator ever created (GET /sim/archive,
// purged ones included) and every attempt in the journal. An attempt's
// Slurm jobs are those named like it (tp-soak-<job>-<n>).
//   duplicates  Slurm jobs beyond one per attempt (of which `duplicates_ran` started running)
//   losses      Slurm jobs named like this instance that no attempt knows; attempts ended
//               `lost`; attempts with a Slurm job id that Slurm never had; jobs not ended
//   unfinished  attempts ended whose cleanup is not `closed`
// `findings` holds the first few cases of each, in words.
#pragma once

#include <string>
#include <vector>

#include "journal_view.h"
#include "sim_jobs.h"

namespace tpslurm::soak {

struct Tally {
  long attempts = 0;
  long slurm_jobs = 0;
  long duplicates = 0;
  long duplicates_ran = 0;
  long losses = 0;
  long unfinished = 0;
  std::map<std::string, long> attempt_states;
  std::vector<std::string> findings;
};

Tally tally(const std::vector<AttemptRow>& attempts, const std::vector<SimJob>& jobs);

}  // namespace tpslurm::soak
