// Runner: the soak's two timed phases on a started simulator and deployment (soak_run.h says
// what a soak is). kill_phase() runs `serve`, SIGKILLs it at a random moment every
// kill_min_s..kill_max_s seconds and restarts it at once, for `seconds`, watching each restart
// converge and sampling the daemon's resident set every second (a line every memory_every_s).
// drain() turns the faults off, ends what still runs in the simulated cluster, resolves as the
// operator the blocked submits Slurm never saw, and waits (bounded) until every job has ended
// and every cleanup is closed. The figures add up over both. Not thread-safe.
#pragma once

#include <map>
#include <optional>
#include <random>
#include <string>

#include "daemon.h"
#include "journal_view.h"
#include "output.h"
#include "sim.h"
#include "soak_run.h"

namespace tpslurm::soak {

// One restart whose convergence is being watched.
struct Restart {
  Steady::time_point at;
  std::map<AttemptKey, std::string> due;  // each with its progress marker at the restart
  std::string marker;
  bool needs_poll = false;
};

struct Figures {
  int kills = 0;
  int restarts = 0;
  int converged = 0;
  int unconverged = 0;
  double worst_converge_s = 0;
  int first_polls = 0;  // restarts that journaled a status poll before the next kill
  double worst_first_poll_s = 0;
  int unexpected_exits = 0;
  int resolved_absent = 0;
  long peak_live = 0;
  long rss_min_kib = 0;
  long rss_max_kib = 0;
};

class Runner {
 public:
  Runner(const SoakOptions& options, Sim& sim, const Deployment& deployment)
      : m_options(options),
        m_sim(sim),
        m_deployment(deployment),
        m_journal(deployment.journal_path()),
        m_random(options.seed) {}

  bool kill_phase();
  bool drain();
  Figures& figures() { return m_figures; }
  Steady::time_point started() const { return m_started; }
  // SIGTERM and the exit code (0 when none runs); an ASan build's report at exit shows here.
  int stop_daemon();

 private:
  bool start_daemon();
  void kill_daemon();
  void watch_restart();
  void resolve_blocked();
  void sample(bool print, const std::string& phase);
  Steady::time_point next_kill();

  const SoakOptions& m_options;
  Sim& m_sim;
  const Deployment& m_deployment;
  JournalView m_journal;
  std::mt19937_64 m_random;
  std::optional<Process> m_daemon;
  std::optional<Restart> m_restart;
  Figures m_figures;
  Steady::time_point m_started = Steady::now();
  Steady::time_point m_last_print = Steady::now();
  long m_peak_since_print = 0;
};

}  // namespace tpslurm::soak
