// One schedule of the explorer from start to verdict: the simulator (with or without slurmdbd,
// the schedule's MinJobAge, pending and running times) and a deployment (token file kept by the
// explorer, the platform API on a loopback port with the explorer's client token, jobs allowed 2
// attempts, poll 2 s, quiet period 8 s; serve's wall clock faked when the schedule steps it) set
// up under `work_dir`, `serve` started, then the timeline: jobs fed at their times (none between
// a backup and its restore: a restore loses the jobs journaled after its backup, by design), each
// action applied at its time, the faults' watches run, the nodes' part played (explore_nodes.h),
// until every action and watch is done. Then the drain: faults off, the good token back, running
// jobs ended every 2 s, the Operator's escapes each second, until every job has ended with its
// cleanup closed and safe mode is off, or `drain_seconds` pass; `serve` stopped with SIGTERM
// (timed); the invariants taken (explore_invariants.h) and the tree outside the storage root
// compared. With `plant`, explore_plant.h's cases around the drain. Lines go to stdout as
// "explore: ...". Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "explore_daemon.h"
#include "explore_invariants.h"
#include "explore_schedule.h"

namespace tpslurm::soak {

struct ExploreOptions {
  ScheduleOptions schedule;
  int drain_seconds = 150;
  double grace_s = 20;         // SIGTERM must stop serve within this
  double escape_bound_s = 60;  // an accepted escape must move its attempt within this
  std::string daemon_binary;
  std::string sim_binary;
  bool plant = false;  // one case of each invariant planted (explore_plant.h)
};

struct ScheduleResult {
  int status = 0;  // 0 clean, 1 a finding, 2 could not be set up
  Schedule schedule;
  Invariants invariants;
  DaemonFigures daemon;
  std::map<std::string, int> faults_applied;    // by fault_name
  std::map<std::string, int> escapes_by_state;  // by "`command` in state"
  long escapes_needed = 0;  // where serve should have moved on by itself
  long escapes_failed = 0;  // accepted, nothing moved
  long api_refusals = 0;    // windows in which the API refused the client with a token
  long late_kills = 0;      // cancels whose job still ran past the grace and the bound
  long other = 0;  // outside changes, auth over-blocking, refusals missing, serve exits, drain not done
  std::vector<std::string> findings;
};

ScheduleResult run_schedule(const ExploreOptions& options, std::uint64_t seed, const std::string& work_dir);

}  // namespace tpslurm::soak
