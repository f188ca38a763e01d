// The catalog's faults, one function per kind (explore_faults_slurm.cc: what Slurm does;
// explore_faults_site.cc: what happens to the daemon, its token, its journal and its storage;
// explore_faults_api.cc: clients of the platform API; explore_faults_clock.cc: serve's clock),
// and what they share: picking among the attempts or Slurm jobs there are at the action's time.
// Each writes a note of what it did, or why it found nothing to act on. Internal to the explorer.
#pragma once

#include <functional>
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

// A job of the fault's own, `prefix`NN (exp-r01, exp-c02, ...) submitted now; its id.
std::string own_job(World& world, const std::string& prefix);
// A watch that waits for `job_id`'s newest attempt to be released into Slurm and then calls
// `act` with it and its Slurm job each round until `act` says it is done; past kOwnJobWithinS it
// gives up with a note.
inline constexpr int kOwnJobWithinS = 60;
Watch when_released(const std::string& job_id, std::function<bool(World&, const AttemptRow&, const SimJob&)> act);

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
void reused_ids(const Action& action, World& world);
void hostile_files(const Action& action, World& world);
void idle_connections(const Action& action, World& world);
void clock_step(const Action& action, World& world);

// A cancel with `grace_s` of `key` (Slurm job `slurm_id`) asked at `asked` (the explorer's
// monotonic clock): the watch looks at Slurm once grace_s + kKillBoundS have passed, and a job
// that still runs there is a late kill (world.late_kills); then `after_check` runs (a clock set
// right, serve started again).
inline constexpr double kKillBoundS = 10;  // two poll intervals for the kill to be sent and seen, and a margin
struct GraceCheck {
  std::string key;
  std::int64_t slurm_id = 0;
  std::string name;  // with the id, the record (ids can be given out again)
  int grace_s = 0;
  Steady::time_point asked;
};
Watch kill_in_time(const GraceCheck& check, std::function<void(World&)> after_check);

}  // namespace tpslurm::soak
