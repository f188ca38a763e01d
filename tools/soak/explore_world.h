// World: what one schedule of the explorer acts on — the simulator, the deployment and its
// `serve`, the token file, the tree outside the storage root — and what a fault's two halves
// share (the backup file, the journal's event position when a token turned bad, the copy to
// cancel). Faults write what they did to `notes` and what broke a promise to `findings`.
// Owned by the schedule's run; not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "daemon.h"
#include "explore_daemon.h"
#include "explore_links.h"
#include "explore_schedule.h"
#include "explore_token.h"
#include "journal_view.h"
#include "sim.h"

namespace tpslurm::soak {

// How many attempts one bad token may block: one per pass thread of serve.
constexpr std::size_t kPassThreads = 4;

struct World {
  const Schedule& schedule;
  Sim& sim;
  Deployment& deployment;
  DaemonControl& daemon;
  TokenFile& tokens;
  const OutsideTree& outside;
  JournalView journal;
  std::string work_dir;
  std::vector<std::string> notes;
  std::vector<std::string> findings;
  std::vector<std::string> instances;  // every TUNEPLANE_INSTANCE the deployment had, first first
  std::string backup_file;             // between a backup and its restore
  std::int64_t auth_seq = -1;          // the journal's last event when the token turned bad
  std::map<std::uint64_t, std::uint32_t> copies;  // by the action's pick: the copy its follow-up cancels
  int planted = 0;                     // logs/ directories with planted links
  int burst_jobs = 0;                  // jobs exp-b01… an auth fault submitted at once
};

// Applies one action of the schedule (explore_faults*.cc); what it did goes to `notes`.
void apply(const Action& action, World& world);

}  // namespace tpslurm::soak
