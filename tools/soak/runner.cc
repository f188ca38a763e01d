#include "runner.h"

#include <signal.h>

#include <filesystem>
#include <set>
#include <thread>

#include "tally.h"

namespace tpslurm::soak {

Steady::time_point Runner::next_kill() {
  std::uniform_int_distribution<int> ms(m_options.kill_min_s * 1000, m_options.kill_max_s * 1000);
  return Steady::now() + std::chrono::milliseconds(ms(m_random));
}

// Starts `serve`; while it is down the journal is quiet, so what is in flight now is exactly
// what the restart has to act on.
bool Runner::start_daemon() {
  Restart restart;
  if (std::filesystem::exists(m_deployment.journal_path())) {
    auto due = m_journal.in_flight();
    auto marker = m_journal.last_status_poll();
    auto counts = m_journal.counts();
    if (due.ok()) restart.due = *due;
    if (marker.ok()) restart.marker = *marker;
    restart.needs_poll = counts.ok() && counts->live > 0;
  }
  std::string error;
  m_daemon = m_deployment.serve(error);
  if (!m_daemon) {
    say("cannot start serve: " + error);
    return false;
  }
  restart.at = Steady::now();
  m_restart = std::move(restart);
  ++m_figures.restarts;
  return true;
}

void Runner::kill_daemon() {
  if (m_restart) {
    ++m_figures.unconverged;
    m_figures.worst_converge_s = std::max(m_figures.worst_converge_s, seconds_since(m_restart->at));
    m_restart.reset();
  }
  m_daemon->signal_and_wait(SIGKILL);
  ++m_figures.kills;
}

void Runner::watch_restart() {
  if (!m_restart) return;
  if (m_restart->needs_poll) {
    auto marker = m_journal.last_status_poll();
    if (!marker.ok() || *marker == m_restart->marker) return;
    m_restart->needs_poll = false;
    ++m_figures.first_polls;
    m_figures.worst_first_poll_s = std::max(m_figures.worst_first_poll_s, seconds_since(m_restart->at));
  }
  auto now = m_journal.markers(m_restart->due);
  if (!now.ok()) return;
  for (const auto& [key, marker] : *now) {
    if (m_restart->due.at(key) == marker) return;
  }
  ++m_figures.converged;
  m_figures.worst_converge_s = std::max(m_figures.worst_converge_s, seconds_since(m_restart->at));
  m_restart.reset();
}

void Runner::sample(bool print, const std::string& phase) {
  const long rss = m_daemon && m_daemon->running() ? resident_kib(m_daemon->pid()) : 0;
  m_peak_since_print = std::max(m_peak_since_print, rss);
  if (rss > 0) {
    m_figures.rss_max_kib = std::max(m_figures.rss_max_kib, rss);
    if (m_figures.rss_min_kib == 0 || rss < m_figures.rss_min_kib) m_figures.rss_min_kib = rss;
  }
  if (!print) return;
  auto counts = m_journal.counts();
  if (!counts.ok()) return;
  m_figures.peak_live = std::max(m_figures.peak_live, counts->live);
  say(phase + " t=" + std::to_string(static_cast<int>(seconds_since(m_started))) + "s daemon rss " + mib(rss) +
      " MiB (peak " + mib(m_peak_since_print) + " MiB since the last line), " + std::to_string(counts->jobs) +
      " jobs, " + std::to_string(counts->attempts) + " attempts, " + std::to_string(counts->live) + " live, " +
      std::to_string(m_figures.kills) + " kills");
  m_peak_since_print = 0;
  m_last_print = Steady::now();
}

bool Runner::kill_phase() {
  if (!start_daemon()) return false;
  const auto end = m_started + std::chrono::seconds(m_options.seconds);
  auto kill_at = next_kill();
  auto sample_at = Steady::now();
  while (Steady::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    watch_restart();
    if (!m_daemon->running()) {
      ++m_figures.unexpected_exits;
      say("serve exited on its own; see " + m_options.work_dir + "/deployment/serve.log");
      m_restart.reset();
      if (!start_daemon()) return false;
    }
    if (Steady::now() >= sample_at) {
      sample(seconds_since(m_last_print) >= m_options.memory_every_s, "run");
      sample_at = Steady::now() + std::chrono::seconds(1);
    }
    if (Steady::now() >= kill_at && Steady::now() < end) {
      kill_daemon();
      if (!start_daemon()) return false;
      kill_at = next_kill();
    }
  }
  return true;
}

// The operator's part: an attempt blocked by a lost answer whose name the simulator never saw
// (the daemon was killed after journaling the intent, before its POST arrived) is resolved
// absent; the daemon refuses until the quiet period and a complete search have passed.
void Runner::resolve_blocked() {
  auto blocked = m_journal.blocked();
  if (!blocked.ok() || blocked->empty()) return;
  auto jobs = fetch_sim_jobs(m_sim);
  if (!jobs.ok()) return;
  std::set<std::string> names;
  for (const auto& job : *jobs) names.insert(job.name);
  for (const auto& key : *blocked) {
    const auto slash = key.rfind('/');
    const std::string name = "tp-soak-" + key.substr(0, slash) + "-" + key.substr(slash + 1);
    if (names.count(name) == 0 && m_deployment.resolve_absent(key) == 0) {
      ++m_figures.resolved_absent;
      say("resolved " + key + " --absent: blocked by a lost answer, and Slurm never had " + name);
    }
  }
}

// Faults off, no kills, the cluster ends what still runs; true once every job has ended with
// its cleanup closed.
bool Runner::drain() {
  if (auto cleared = m_sim.control(slurm::HttpMethod::del, "/sim/faults"); !cleared.ok()) {
    say("cannot clear the faults: " + cleared.error().message());
    return false;
  }
  const auto end = Steady::now() + std::chrono::seconds(m_options.drain_seconds);
  const auto drain_start = Steady::now();
  for (int round = 0; Steady::now() < end; ++round) {
    if (round % 5 == 0) resolve_blocked();
    (void)m_sim.control(slurm::HttpMethod::post, "/sim/jobs/advance",
                        R"({"count": 10000000, "from": "RUNNING", "to": "COMPLETED"})");
    for (int i = 0; i < 8; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      watch_restart();
    }
    if (!m_daemon->running()) {
      ++m_figures.unexpected_exits;
      say("serve exited on its own during the drain");
      if (!start_daemon()) return false;
    }
    sample(seconds_since(m_last_print) >= m_options.memory_every_s, "drain");
    auto counts = m_journal.counts();
    if (counts.ok() && counts->unended_jobs == 0 && counts->open_cleanups == 0) {
      say("drained in " + fixed(seconds_since(drain_start), 1) + " s");
      return true;
    }
  }
  say("not drained after " + std::to_string(m_options.drain_seconds) + " s");
  return false;
}

int Runner::stop_daemon() { return m_daemon && m_daemon->running() ? m_daemon->signal_and_wait(SIGTERM) : 0; }

}  // namespace tpslurm::soak
