// Summary: runs schedules one after another (each in <base>/seed-N, removed when clean unless
// kept), prints what each found and the command that replays a failing one, and at the end the
// figures over all of them: per fault kind how often it was applied, the escapes the operator
// used by the state they were issued in, the worst SIGTERM, and the verdict line
//   explore: S schedules, F faults, D duplicate runs, R runs twice, C free retries of a run,
//            E ended without running, O escapes needed, W stuck, J foreign jobs touched,
//            A API refusals, G late kills, T slow SIGTERMs, X other findings
// finish() returns the exit status: 0 when every figure but S and F is 0 (with --plant: when each
// schedule counted exactly what explore_plant.h plants and nothing else), 2 when a schedule could
// not be set up, 1 otherwise. Not thread-safe.
#pragma once

#include <map>
#include <string>

#include "explore_run.h"

namespace tpslurm::soak {

class Summary {
 public:
  Summary(const ExploreOptions& options, std::string program, std::string base, bool keep)
      : m_options(options), m_program(std::move(program)), m_base(std::move(base)), m_keep(keep) {}

  void run(std::uint64_t seed);
  int finish();

 private:
  std::string replay(std::uint64_t seed) const;
  std::string without() const;  // " --without a,b", " --only c" or empty
  bool clean(const ScheduleResult& r) const;

  const ExploreOptions& m_options;
  std::string m_program;
  std::string m_base;
  bool m_keep;
  long m_schedules = 0, m_faults = 0, m_duplicate_runs = 0, m_runs_twice = 0, m_free_retries = 0, m_ended = 0,
       m_needed = 0, m_stuck = 0, m_foreign = 0, m_api = 0, m_late = 0, m_slow = 0, m_other = 0,
       m_failed_schedules = 0, m_setup_failures = 0, m_stops = 0;
  double m_worst_stop_s = 0;
  std::map<std::string, int> m_faults_by_kind;
  std::map<std::string, int> m_escapes;  // by "`command` in state"
  std::map<std::string, long> m_states;
};

}  // namespace tpslurm::soak
