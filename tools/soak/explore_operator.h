// Operator: the explorer acting as the site's operator during the drain, with the escape
// docs/architecture.md §5 names for each state an attempt can wait in. Some escapes the
// architecture requires (the daemon waits for a person there); the others stand for a daemon
// that should have moved on by itself, and each one accepted is counted as *needed* (a finding):
//   safe mode (after a restore)        `status`, `audit --blocked`, then `journal clear-safe-mode`
//                                      once serve has run a few poll intervals since its start
//                                      (required)
//   paused                             `resume` (required)
//   submit_unknown                     `resolve --adopt ID` when slurmctld holds a job with its
//                                      name (needed: serve's search finds it); else
//                                      `resolve --absent`, refused until the quiet period and a
//                                      complete search, tried each round (required)
//   submitted/pending/running, but     `resolve --lost` (needed: serve concludes a job
//   slurmctld no longer holds its job  slurmctld forgot)
//   ended, cleanup not closed          `cleanup --force` (needed: serve moves every cleanup step
//                                      on)
// A needed escape is tried only when serve has had the time its documented timing gives it
// (patience()): a spaced step is tried again 5 s × 2^(n-1) after its n-th failure, at most 5 min
// (reconcile/retry_board.h), so a cause that cleared when the drain began is retried at most the
// attempt's age then + 5 s later; then two poll intervals and a margin; sealing asks slurmdbd
// for the usage four times, 35 s in all. observe() during the timeline records when each
// attempt was first seen, begin_drain() when the faults went off.
// An escape is counted, by the state (or control) it was issued in, when its command is
// accepted (exit 0), and it must move the attempt (its state or cleanup; safe mode or pause: the
// control cleared) within `bound_s`, else the finding says so and `failed()` counts it. tick()
// is one round of the drain. Not thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "explore_world.h"
#include "output.h"
#include "sim_jobs.h"

namespace tpslurm::soak {

class Operator {
 public:
  Operator(World& world, double bound_s) : m_world(world), m_bound_s(bound_s) {}

  void observe();
  void begin_drain() { m_drain_start = Steady::now(); }
  void tick(const std::vector<SimJob>& jobs);

  // Escapes accepted, by "`command` in state".
  const std::map<std::string, int>& by_state() const { return m_by_state; }
  // Escapes accepted where serve should have moved on by itself.
  int needed() const { return m_needed; }
  int failed() const { return m_failed; }
  const std::vector<std::string>& findings() const { return m_findings; }
  // Seconds serve is given in `cleanup` (an attempt's cleanup step, or "" before its end) before
  // a needed escape, for an attempt first seen `age_s` before the drain began.
  static double patience(double age_s, const std::string& cleanup);

 private:
  struct Tracked {
    std::string marker;  // state|cleanup (or the control) when the escape was accepted
    Steady::time_point at;
    std::string escape;
  };
  struct Waiting {
    std::string marker;
    Steady::time_point since;
  };

  void controls();
  void attempt(const AttemptRow& a, const std::map<std::string, const SimJob*>& held);
  // Runs the escape; true when accepted. Tracked under `key` with `marker`; `state` is where
  // it was issued; `needed_because` is what serve should have done (empty: a required escape).
  bool escape(const std::string& key, const std::string& marker, const std::string& state, const std::string& name,
              const std::vector<std::string>& args, const std::string& needed_because = "");
  void check(const std::string& key, const std::string& marker);
  // Seconds the attempt has waited with `marker` (since the drain began, at the earliest).
  double waited(const std::string& key, const std::string& marker);
  double patience_for(const std::string& key, const std::string& cleanup) const;

  World& m_world;
  const double m_bound_s;
  Steady::time_point m_drain_start = Steady::now();
  std::map<std::string, Steady::time_point> m_first_seen;
  std::map<std::string, Tracked> m_tracked;
  std::map<std::string, Waiting> m_waiting;
  std::map<std::string, int> m_by_state;
  int m_needed = 0;
  int m_failed = 0;
  std::vector<std::string> m_findings;
};

}  // namespace tpslurm::soak
