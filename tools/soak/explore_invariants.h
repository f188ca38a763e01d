// The explorer's invariants over one schedule's end state: every Slurm job the simulator ever
// created (GET /sim/archive, grouped by job name: an attempt's name is the tag it was given,
// tp-<instance>-<job>-<n>), every job and attempt in the journal, and each ended attempt's retry
// decision (its end event's `retry`). Pure; thread-safe.
//   duplicate_runs         two Slurm jobs of one attempt both started (a held copy cancelled
//                          before it started is fine): each started copy beyond the first
//   runs_twice             two attempts of one job both started in Slurm although the first's
//                          end did not decide a retry (attempts the journal no longer holds, a
//                          restore's, count by their Slurm job's name)
//   ended_without_running  an attempt ended `lost` or `failed` with no Slurm job of it started,
//                          the platform asked no cancel, and the job was not retried
//   stuck                  jobs not ended, or ended with an attempt whose cleanup is not closed
#pragma once

#include <map>
#include <string>
#include <vector>

#include "journal_view.h"
#include "sim_jobs.h"

namespace tpslurm::soak {

struct Invariants {
  long attempts = 0;
  long slurm_jobs = 0;  // named like one of the instances
  long duplicate_runs = 0;
  long runs_twice = 0;
  long ended_without_running = 0;
  long stuck = 0;
  std::map<std::string, long> attempt_states;
  std::vector<std::string> findings;
};

// `instances`: every TUNEPLANE_INSTANCE the deployment had (job names of each are ours).
Invariants check_invariants(const std::vector<AttemptRow>& attempts, const std::map<AttemptKey, std::string>& retry,
                            const std::vector<SimJob>& jobs, const std::vector<std::string>& instances);

}  // namespace tpslurm::soak
