// Schedule: what one seed of the explorer does, drawn from the seed alone (std::mt19937_64, no
// other input), so that `--seed N` with the same options replays the same schedule. A schedule
// is a cluster setting (slurmdbd present or not, MinJobAge, how long jobs wait and run), the times at
// which jobs are fed, and a timeline of actions, each one fault of the catalog (FaultKind) or
// the follow-up of one (the good token back after a bad one, the restore after the backup).
// Times are seconds from the daemon's first start. The kinds added to the catalog later
// (kFirstLaterKind on) are drawn from a second stream of the seed: the first stream draws what it
// always drew and a later kind may take a fault's place, so that with every later kind left out
// (`--without`) a seed draws exactly the schedule it drew before they were added. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace tpslurm::soak {

// The catalog. Each kind is one path a real site walks (tools/soak/README.md, "tp-explore").
enum class FaultKind {
  no_accounting,   // the cluster has no slurmdbd for the whole schedule
  forget_jobs,     // slurmctld restarts from an older state: every job forgotten, ids reused or not
  accounting_lag,  // slurmdbd behind for S seconds while jobs end and are purged
  auth_fails,      // the daemon's token file turns bad for a while
  copies,          // a held copy with an attempt's tag submitted behind the daemon's back; a held copy cancelled
  restore_backup,  // a backup now; later serve stopped, the backup restored, serve started in safe mode
  rename,          // serve stopped, TUNEPLANE_INSTANCE changed, refused, `journal move-deployment`, started
  plant_links,     // a FIFO exit.json and links out of the tree planted in a running attempt's logs/
  sigkill,         // serve SIGKILLed and restarted at once
  sigterm,         // serve stopped with SIGTERM (timed against the grace) and restarted
  node_fail,       // a running job's node fails (NODE_FAIL): the attempt fails and is retried
  // Added to the catalog later, and drawn from a stream of their own (draw_schedule):
  reused_ids,        // slurmctld forgets every job between a submit and its identify; a foreign job takes the id
  hostile_files,     // a running attempt's logs/: a 100 GiB sparse file, 20,000 files, names of any bytes, a deep tree
  idle_connections,  // a few hundred idle TCP connections to the platform API while its client polls
  clock_step,        // serve's wall clock stepped an hour back or forward while a cancel's grace runs
};
constexpr int kFaultKinds = 15;
constexpr int kFirstLaterKind = 11;  // reused_ids: the first kind of the later stream

const char* fault_name(FaultKind kind);
// The kind named `name`; false when there is none.
bool fault_kind(const std::string& name, FaultKind& kind);

struct Action {
  double at_s = 0;
  FaultKind kind = FaultKind::sigkill;
  bool follow_up = false;  // the second half of a fault (counted once, with its first half)
  int variant = 0;         // the kind's own choice (e.g. forget: reuse ids or not)
  int seconds = 0;         // a window's length, where the kind has one (clock_step: the cancel's grace)
  std::uint64_t pick = 0;  // which attempt or job it picks among the candidates at its time
};

// Whether an auth_fails action first submits a burst of jobs and turns the token bad
// auth_burst_ms() later, while their submits are under way (from its `pick`, so that the draw
// of every other action stays as it was).
bool auth_burst(const Action& action);
int auth_burst_ms(const Action& action);

struct ScheduleOptions {
  int seconds = 40;  // the timeline's length
  int jobs = 12;     // jobs fed over its first 70 %
  int min_faults = 3;
  int max_faults = 6;
  std::set<FaultKind> without;  // kinds never drawn (to explore around a known finding)
};

// The kinds of a comma-separated list ("forget_jobs,sigkill") into `kinds`; false with `error`
// naming the first unknown one.
bool parse_kinds(const std::string& list, std::set<FaultKind>& kinds, std::string& error);
// Every kind but `only`: what `--only` leaves out.
std::set<FaultKind> all_but(const std::set<FaultKind>& only);

struct Schedule {
  std::uint64_t seed = 0;
  int seconds = 0;
  bool accounting = true;
  int min_job_age_s = 300;
  int pending_s = 1;  // how long a released job waits before it starts
  int job_seconds = 8;
  std::vector<double> feed_at;  // one time per job, sorted
  std::vector<Action> actions;  // sorted by time
  int faults = 0;               // faults drawn (no_accounting included), follow-ups not counted
};

Schedule draw_schedule(std::uint64_t seed, const ScheduleOptions& options);

// One line per action ("  t=  12.3 s  forget_jobs: ids reused"), and the setting's line first.
std::vector<std::string> describe(const Schedule& schedule);
std::string describe(const Action& action);

}  // namespace tpslurm::soak
