// The explorer's invariants over one schedule's end state: every Slurm job the simulator ever
// created (GET /sim/archive, grouped by job name: an attempt's name is the tag it was given,
// tp-<instance>-<job>-<n>), every job and attempt in the journal, each ended attempt's retry
// decision (its end event's `retry`) and the foreign jobs the explorer submitted behind the
// daemon's back. Whether an attempt ran is the archive's word (`allocated`: it was given
// nodes), never the daemon's. Pure; thread-safe.
//   duplicate_runs         two Slurm jobs of one attempt both started (a held copy cancelled
//                          before it started is fine): each started copy beyond the first
//   runs_twice             two attempts of one job both ran, and the first's end was not a retry
//                          the platform makes for a job that ran: the cluster's failure
//                          (NODE_FAIL, PREEMPTED, BOOT_FAIL in the archive) with a retry decided
//                          (attempts the journal no longer holds, a restore's, count by their
//                          Slurm job's name). The nodes the explorer plays never fail a
//                          container, so no other end allows a second run
//   free_retries_of_a_run  a retry decision that says the attempt never ran, or one that costs
//                          nothing, while the archive shows a Slurm job of it was given nodes
//                          (a free retry after the cluster's failure the archive shows is fine)
//   ended_without_running  an attempt ended `lost` or `failed` with no Slurm job of it started,
//                          the platform asked no cancel, and the job was not retried
//   stuck                  jobs not ended, or ended with an attempt whose cleanup is not closed
//   foreign_touched        a foreign job cancelled, released or missing from the archive
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "journal_view.h"
#include "sim_jobs.h"

namespace tpslurm::soak {

// A job submitted behind the daemon's back under another user's name (reused_ids): the daemon
// must neither cancel nor release it.
struct ForeignJob {
  std::int64_t id = 0;
  std::string name;
  bool held = true;  // as it was submitted
};

struct EndState {
  std::vector<AttemptRow> attempts;
  std::map<AttemptKey, std::string> retry;
  std::vector<SimJob> jobs;
  std::vector<std::string> instances;  // every TUNEPLANE_INSTANCE the deployment had (their names are ours)
  std::vector<ForeignJob> foreign;
};

struct Invariants {
  long attempts = 0;
  long slurm_jobs = 0;  // named like one of the instances
  long duplicate_runs = 0;
  long runs_twice = 0;
  long free_retries_of_a_run = 0;
  long ended_without_running = 0;
  long stuck = 0;
  long foreign_touched = 0;
  std::map<std::string, long> attempt_states;
  std::vector<std::string> findings;
};

Invariants check_invariants(const EndState& end);

// Whether a retry decision costs none of the job's attempts ("yes: ...; it never ran, so it
// costs none ...", or a retry after the cluster's failure), and whether it says the attempt
// never ran.
bool retry_is_free(const std::string& decision);
bool retry_says_never_ran(const std::string& decision);

}  // namespace tpslurm::soak
