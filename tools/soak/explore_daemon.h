// DaemonControl: the explorer's `serve` on one Deployment: started, SIGKILLed, stopped with
// SIGTERM and timed against the grace (every stop, whatever is planted under the storage root),
// watched for exiting on its own, and started where it must refuse (another deployment). Each
// stop is counted and the slow ones (past the grace: SIGKILLed) are named in `findings`.
// serve is given a NOTIFY_SOCKET of the explorer's own, as systemd gives it one: a stop is
// judged only once serve has said READY=1 (its stop signals are handled from then on; one sent
// earlier, before serve's first step, could only kill it), or after kReadyWithin without it.
// Not thread-safe.
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
  int unready_stops = 0;    // sent without READY=1, kReadyWithin after the start
  int unexpected_exits = 0;  // exited on its own while it should have run
  double worst_stop_s = 0;
};

class DaemonControl {
 public:
  // `notify_socket`: the path of the datagram socket serve's NOTIFY_SOCKET names (notify_socket()).
  DaemonControl(const Deployment& deployment, double grace_s, std::string notify_socket);
  ~DaemonControl();
  DaemonControl(const DaemonControl&) = delete;
  DaemonControl& operator=(const DaemonControl&) = delete;

  // The NOTIFY_SOCKET value to give serve; empty when the socket could not be made (the path is
  // too long for one, or cannot be bound): the explorer then refuses to run.
  std::string notify_socket() const { return m_notify_fd >= 0 ? m_notify_path : std::string(); }

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
  // Waits until serve says READY=1 (or kReadyWithin passes).
  void wait_ready();

  const Deployment& m_deployment;
  const double m_grace_s;
  const std::string m_notify_path;
  int m_notify_fd = -1;
  bool m_ready = false;  // the serve running said READY=1
  std::optional<Process> m_process;
  Steady::time_point m_started_at = Steady::now();
  DaemonFigures m_figures;
  std::vector<std::string> m_findings;
};

}  // namespace tpslurm::soak
