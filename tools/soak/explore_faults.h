// The catalog's faults, one function per kind (explore_faults_slurm.cc: what Slurm does;
// explore_faults_site.cc: what happens to the daemon, its token, its journal and its storage),
// and what they share: picking among the attempts or Slurm jobs there are at the action's time.
// Each writes a note of what it did, or why it found nothing to act on. Internal to the explorer.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "explore_world.h"
#include "sim_jobs.h"

namespace tpslurm::soak {

void note(World& world, const Action& action, const std::string& text);
// The journal's attempts in one of `states` that were prepared (they have a tag and a directory).
std::vector<AttemptRow> attempts_in(World& world, std::initializer_list<const char*> states);
// The simulator's records of ours (named tp-…) that slurmctld holds in `state` (and held, if asked).
std::vector<SimJob> slurm_jobs_in(World& world, const std::string& state, bool held_only);
// POST /sim/jobs/{id}/state with `body`; the error in words, empty when it was taken.
std::string step_job(World& world, std::int64_t id, const std::string& body);

template <class T>
const T& pick(const std::vector<T>& among, std::uint64_t choice) {
  return among[choice % among.size()];
}

void forget_jobs(const Action& action, World& world);
void accounting_lag(const Action& action, World& world);
void copies(const Action& action, World& world);
void node_fail(const Action& action, World& world);
void auth_fails(const Action& action, World& world);
void restore_backup(const Action& action, World& world);
void rename(const Action& action, World& world);
void plant(const Action& action, World& world);

}  // namespace tpslurm::soak
