// DaemonControl: the explorer's `serve` on one Deployment: started, SIGKILLed, stopped with
// SIGTERM and timed against the grace (every stop, whatever is planted under the storage root),
// watched for exiting on its own, and started where it must refuse (another deployment). Each
// stop is counted and the slow ones (past the grace: SIGKILLed) are named in `findings`. Not
// thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "daemon.h"
#include "output.h"

namespace tpslurm::soak {

struct DaemonFigures {
  int starts = 0;
  int kills = 0;
  int stops = 0;
  int slow_stops = 0;       // SIGTERM not answered within the grace
  int failed_stops = 0;     // answered with a non-zero exit
  int unexpected_exits = 0;  // exited on its own while it should have run
  double worst_stop_s = 0;
};

class DaemonControl {
 public:
  DaemonControl(const Deployment& deployment, double grace_s) : m_deployment(deployment), m_grace_s(grace_s) {}
  ~DaemonControl() { (void)stop("the end of the explorer"); }

  // Starts serve; false when it could not be spawned.
  bool start();
  void kill();
  // SIGTERM, timed; true when it exited within the grace. Nothing to do when none runs.
  bool stop(const std::string& why);
  // Whether serve runs; one that exited on its own is counted and started again.
  void watch();
  // Starts serve where it must refuse to run; true when it exited non-zero within `bound_s`
  // (it is SIGTERMed otherwise and the finding says so).
  bool refuses(double bound_s, std::string& finding);

  bool running() { return m_process && m_process->running(); }
  Steady::time_point started_at() const { return m_started_at; }
  const DaemonFigures& figures() const { return m_figures; }
  const std::vector<std::string>& findings() const { return m_findings; }

 private:
  const Deployment& m_deployment;
  const double m_grace_s;
  std::optional<Process> m_process;
  Steady::time_point m_started_at = Steady::now();
  DaemonFigures m_figures;
  std::vector<std::string> m_findings;
};

}  // namespace tpslurm::soak
