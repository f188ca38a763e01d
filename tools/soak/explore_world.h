// World: what one schedule of the explorer acts on — the simulator, the deployment and its
// `serve`, the token file, the platform API's tokens and the explorer's client of it, serve's
// faked wall clock, the tree outside the storage root, the nodes the explorer plays — and what a
// fault's two halves share (the backup file, the journal's event position when a token turned
// bad, the copy to cancel, the idle connections). A fault that must wait for something (a submit
// to be created, a grace to pass) leaves a watch, called every round of the timeline until it
// is done. Faults write what they did to `notes`, what broke a promise to `findings` (other
// findings), `api_refusals` or `late_kills`, and the foreign jobs they submitted to `foreign`.
// Owned by the schedule's run; not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "daemon.h"
#include "explore_api.h"
#include "explore_clock.h"
#include "explore_daemon.h"
#include "explore_invariants.h"
#include "explore_links.h"
#include "explore_nodes.h"
#include "explore_schedule.h"
#include "explore_token.h"
#include "journal_view.h"
#include "sim.h"

namespace tpslurm::soak {

// How many attempts one bad token may block: one per pass thread of serve.
constexpr std::size_t kPassThreads = 4;

struct World;
// One round of a fault's later steps; true when it is done.
using Watch = std::function<bool(World&)>;

struct World {
  World(const Schedule& schedule_, Sim& sim_, Deployment& deployment_, DaemonControl& daemon_, TokenFile& tokens_,
        const OutsideTree& outside_, Nodes& nodes_, ApiTokens& api_tokens_, ApiClient& api_, int api_port_,
        FakedClock* clock_, std::string work_dir_)
      : schedule(schedule_), sim(sim_), deployment(deployment_), daemon(daemon_), tokens(tokens_), outside(outside_),
        nodes(nodes_), api_tokens(api_tokens_), api(api_), api_port(api_port_), clock(clock_),
        journal(deployment_.journal_path()), work_dir(std::move(work_dir_)), instances{deployment_.instance()} {}

  const Schedule& schedule;
  Sim& sim;
  Deployment& deployment;
  DaemonControl& daemon;
  TokenFile& tokens;
  const OutsideTree& outside;
  Nodes& nodes;
  ApiTokens& api_tokens;
  ApiClient& api;
  int api_port;
  FakedClock* clock;  // serve's wall clock, when the schedule steps it (else nullptr)
  JournalView journal;
  std::string work_dir;
  std::vector<std::string> notes;
  std::vector<std::string> findings;      // other findings (X)
  std::vector<std::string> api_refusals;  // the explorer's authenticated client refused (A)
  std::vector<std::string> late_kills;    // a cancel's grace overrun in Slurm (G)
  std::vector<ForeignJob> foreign;        // jobs submitted behind the daemon's back, not its own
  std::set<std::int64_t> pinned;          // Slurm jobs kept running until a kill: no other fault ends them
  std::vector<Watch> watches;
  std::vector<std::string> instances;  // every TUNEPLANE_INSTANCE the deployment had, first first
  std::string backup_file;             // between a backup and its restore
  std::int64_t auth_seq = -1;          // the journal's last event when the token turned bad
  std::map<std::uint64_t, std::uint32_t> copies;  // by the action's pick: the copy its follow-up cancels
  IdleConnections idle;
  int planted = 0;     // logs/ directories with planted links
  int burst_jobs = 0;  // jobs exp-b01… an auth fault submitted at once
  int own_jobs = 0;    // jobs exp-r01…, exp-p01… faults and plants submitted
};

// Applies one action of the schedule (explore_faults*.cc); what it did goes to `notes`.
void apply(const Action& action, World& world);
// Calls each watch once; drops those that are done.
void run_watches(World& world);

}  // namespace tpslurm::soak
