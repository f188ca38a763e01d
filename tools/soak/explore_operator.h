// Operator: the explorer acting as the site's operator during the drain, with the escape
// docs/architecture.md names for each state an attempt can wait in:
//   safe mode (after a restore)        `status`, `audit --blocked`, then `journal clear-safe-mode`
//                                      once serve has run a few poll intervals since its start
//   paused                             `resume`
//   submit_unknown                     `resolve --adopt ID` when Slurm holds a job with its name
//                                      and serve has not adopted it after a while; else
//                                      `resolve --absent` (refused until the quiet period and a
//                                      complete search: tried again each round)
//   submitted/pending/running, but     `resolve --lost` after a while
//   slurmctld no longer holds its job
//   ended, cleanup not closed          `cleanup --force` after a while
// An escape is counted when its command is accepted (exit 0), and it must move the attempt (its
// state or cleanup; safe mode or pause: the control cleared) within `bound_s`, else the
// finding says so and `failed()` counts it. tick() is one round. Not thread-safe.
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
  Operator(World& world, double bound_s, double patience_s)
      : m_world(world), m_bound_s(bound_s), m_patience_s(patience_s) {}

  void tick(const std::vector<SimJob>& jobs);

  const std::map<std::string, int>& applied() const { return m_applied; }
  int failed() const { return m_failed; }
  const std::vector<std::string>& findings() const { return m_findings; }

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
  // Runs the escape; true when accepted. Tracked under `key` with `marker`.
  bool escape(const std::string& key, const std::string& marker, const std::string& name,
              const std::vector<std::string>& args);
  void check(const std::string& key, const std::string& marker);
  double waited(const std::string& key, const std::string& marker);

  World& m_world;
  const double m_bound_s;
  const double m_patience_s;
  std::map<std::string, Tracked> m_tracked;
  std::map<std::string, Waiting> m_waiting;
  std::map<std::string, int> m_applied;
  int m_failed = 0;
  std::vector<std::string> m_findings;
};

}  // namespace tpslurm::soak
