// SimJob: one record the simulator ever created, as GET /sim/archive lists it (slurmdbd's
// archive: purged records, records an id reset forgot, and records whose id was given out again
// after a reset are all there, each once). fetch_sim_jobs reads them in one call. Used by the
// soak's and the explorer's tallies; an error names the call that failed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "sim.h"

namespace tpslurm::soak {

struct SimJob {
  std::int64_t id = 0;
  std::string name;
  std::string comment;
  std::string workdir;
  std::string standard_output;  // as submitted (may hold Slurm's %j); empty: slurm-<id>.out in workdir
  std::string state;
  bool started = false;  // it was given nodes: it ran (or runs)
  bool held = false;
  bool in_controller = false;
};

// Every record the simulator created, oldest first.
Result<std::vector<SimJob>> fetch_sim_jobs(Sim& sim);

}  // namespace tpslurm::soak
