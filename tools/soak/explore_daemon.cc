#include "explore_daemon.h"

#include <signal.h>

#include <thread>

namespace tpslurm::soak {

bool DaemonControl::start() {
  std::string error;
  m_process = m_deployment.serve(error);
  if (!m_process) {
    m_findings.push_back("cannot start serve: " + error);
    return false;
  }
  m_started_at = Steady::now();
  ++m_figures.starts;
  return true;
}

void DaemonControl::kill() {
  if (!running()) return;
  m_process->signal_and_wait(SIGKILL);
  m_process.reset();
  ++m_figures.kills;
}

bool DaemonControl::stop(const std::string& why) {
  if (!running()) return true;
  // serve holds SIGTERM from its first step until its handler is installed; a signal that comes
  // before that step (a process just exec'd, which under the sanitizers takes up to a second
  // to get there) can only kill it, and says nothing about how it stops. A stop is judged on a
  // serve started at least this long ago.
  constexpr auto kStarting = std::chrono::seconds(2);
  if (const auto since = Steady::now() - m_started_at; since < kStarting) std::this_thread::sleep_for(kStarting - since);
  const auto grace = std::chrono::milliseconds(static_cast<long>(m_grace_s * 1000));
  const Process::Stopped stopped = m_process->stop_within(SIGTERM, grace);
  m_process.reset();
  ++m_figures.stops;
  m_figures.worst_stop_s = std::max(m_figures.worst_stop_s, stopped.seconds);
  if (!stopped.in_time) {
    ++m_figures.slow_stops;
    m_findings.push_back("slow SIGTERM: serve did not exit within " + fixed(m_grace_s, 0) + " s (" + why +
                         "); SIGKILLed");
    return false;
  }
  if (stopped.exit_code != 0) {
    ++m_figures.failed_stops;
    m_findings.push_back("serve exited " + std::to_string(stopped.exit_code) + " on SIGTERM (" + why + ")");
  }
  return true;
}

void DaemonControl::watch() {
  if (!m_process || m_process->running()) return;
  m_process.reset();
  ++m_figures.unexpected_exits;
  m_findings.push_back("serve exited on its own; see deployment/serve.log");
  start();
}

bool DaemonControl::refuses(double bound_s, std::string& finding) {
  std::string error;
  auto process = m_deployment.serve(error);
  if (!process) {
    finding = "cannot start serve: " + error;
    return false;
  }
  const auto deadline = Steady::now() + std::chrono::milliseconds(static_cast<long>(bound_s * 1000));
  while (Steady::now() < deadline && process->running()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (process->running()) {
    process->signal_and_wait(SIGTERM);
    finding = "serve ran under another deployment instead of refusing";
    return false;
  }
  const int code = process->wait();
  if (code == 0) {
    finding = "serve exited 0 under another deployment instead of refusing";
    return false;
  }
  return true;
}

}  // namespace tpslurm::soak
