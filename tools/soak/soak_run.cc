#include "soak_run.h"

#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <thread>

#include "daemon.h"
#include "feeder.h"
#include "journal_view.h"
#include "sim.h"
#include "tally.h"

namespace tpslurm::soak {
namespace {

using Steady = std::chrono::steady_clock;

double seconds_since(Steady::time_point t) { return std::chrono::duration<double>(Steady::now() - t).count(); }

void say(const std::string& line) {
  std::printf("soak: %s\n", line.c_str());
  std::fflush(stdout);
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string mib(long kib) { return fixed(static_cast<double>(kib) / 1024.0, 1); }

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
  void stop_daemon();

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

void Runner::stop_daemon() {
  if (m_daemon && m_daemon->running()) m_daemon->signal_and_wait(SIGTERM);
}

std::string make_work_dir(const SoakOptions& options) {
  if (!options.work_dir.empty()) {
    std::filesystem::create_directories(options.work_dir);
    return options.work_dir;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tp-soak.XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return {};
  return pattern;
}

std::string random_faults(const SoakOptions& options) {
  return R"({"seed": )" + std::to_string(options.seed) + R"(, "probability": )" + fixed(options.fault_probability, 4) +
         R"(, "kinds": ["drop_response", "error_response", "delay", "close_after_response", "close_mid_body"],
            "path_prefix": "/slurm", "ms": 2000, "status": 500})";
}

void report(const SoakOptions& options, Runner& runner, const std::string& journal_path, const Tally& t,
            const std::string& faults, const Feeder& feeder) {
  const Figures& f = runner.figures();
  std::uintmax_t bytes = 0;
  for (const char* suffix : {"", "-wal"}) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(journal_path + suffix, ec);
    if (!ec) bytes += size;
  }
  say("jobs fed " + std::to_string(feeder.submitted()) + " (failed submits " + std::to_string(feeder.failed()) +
      "), peak live attempts " + std::to_string(f.peak_live) + ", Slurm jobs " + std::to_string(t.slurm_jobs) + "");
  say("faults at p = " + fixed(options.fault_probability, 3) + ": " + faults);
  std::string states;
  for (const auto& [state, n] : t.attempt_states) states += " " + state + "=" + std::to_string(n);
  say("attempts by state:" + states);
  say("daemon rss between " + mib(f.rss_min_kib) + " and " + mib(f.rss_max_kib) + " MiB over the run");
  say("journal " + std::to_string(bytes) + " bytes = " +
      fixed(t.attempts ? static_cast<double>(bytes) / static_cast<double>(t.attempts) : 0.0, 0) + " bytes per attempt");
  say("worst time to converge after a kill " + fixed(f.worst_converge_s, 2) + " s; " + std::to_string(f.converged) +
      " of " + std::to_string(f.restarts) + " starts converged, " + std::to_string(f.unconverged) +
      " killed again before converging");
  say(std::to_string(f.resolved_absent) +
      " blocked submits resolved --absent by the soak as the operator (killed after the intent, before the POST)");
  if (f.unexpected_exits) say("serve exited on its own " + std::to_string(f.unexpected_exits) + " times");
  for (const auto& finding : t.findings) say(finding);
  say(std::to_string(t.attempts) + " attempts, " + std::to_string(f.kills) + " kills, " + std::to_string(t.duplicates) +
      " duplicates, " + std::to_string(t.losses) + " losses, " + std::to_string(t.unfinished) + " unfinished cleanups");
}

int finish(const SoakOptions& options, Sim& sim, Runner& runner, const Deployment& deployment, Feeder& feeder) {
  auto jobs = fetch_sim_jobs(sim);
  auto attempts = JournalView(deployment.journal_path()).attempts();
  if (!jobs.ok() || !attempts.ok()) {
    say("cannot take the tally: " + (jobs.ok() ? attempts.error().message() : jobs.error().message()));
    return 2;
  }
  auto stats = sim.control(slurm::HttpMethod::get, "/sim/stats");
  std::string faults;
  if (const auto* injected = stats.ok() ? stats->as_object().if_contains("faults_injected") : nullptr;
      injected && injected->is_object()) {
    long total = 0;
    for (const auto& [kind, n] : injected->as_object()) {
      total += static_cast<long>(n.to_number<double>());
      faults += std::string(faults.empty() ? "" : ", ") + std::string(kind) + " " + std::to_string(n.to_number<long>());
    }
    const auto requests = stats->as_object().at("requests").to_number<long>();
    faults = std::to_string(total) + " faults in " + std::to_string(requests) + " requests (" + faults + ")";
  }
  const Tally t = tally(*attempts, *jobs);
  report(options, runner, deployment.journal_path(), t, faults, feeder);
  const bool clean = t.duplicates == 0 && t.losses == 0 && t.unfinished == 0 && runner.figures().unexpected_exits == 0;
  return clean ? 0 : 1;
}

}  // namespace

int run_soak(const SoakOptions& given) {
  SoakOptions options = given;
  if (options.seed == 0) options.seed = std::random_device()();
  if (options.job_seconds <= 0) options.job_seconds = std::max(10, options.seconds / 2);
  options.work_dir = make_work_dir(options);
  if (options.work_dir.empty()) return 2;
  say("work directory " + options.work_dir + ", seed " + std::to_string(options.seed) + ", " +
      std::to_string(options.seconds) + " s of kills every " + std::to_string(options.kill_min_s) + "-" +
      std::to_string(options.kill_max_s) + " s, up to " + std::to_string(options.attempts) + " jobs running " +
      std::to_string(options.job_seconds) + " s each, faults p = " + fixed(options.fault_probability, 3));
  auto sim = Sim::start({options.sim_binary, options.work_dir,
                         "pending=1s,running=" + std::to_string(options.job_seconds) + "s,completing=1s", 300});
  if (!sim.ok()) {
    say("cannot start the simulator: " + sim.error().message());
    return 2;
  }
  std::string error;
  auto deployment = Deployment::create({options.daemon_binary, options.work_dir + "/deployment", (*sim)->url(),
                                        (*sim)->key_file(), options.poll_interval},
                                       error);
  if (!deployment) {
    say(error);
    return 2;
  }
  if (auto faults = (*sim)->control(slurm::HttpMethod::post, "/sim/faults/random", random_faults(options));
      !faults.ok()) {
    say("cannot turn the random faults on: " + faults.error().message());
    return 2;
  }
  Runner runner(options, **sim, *deployment);
  // The jobs come over the first two thirds of the kill phase, so kills land while submits run.
  Feeder feeder(*deployment, options.attempts, options.feeders, std::chrono::seconds(options.seconds) * 2 / 3);
  const bool ran = runner.kill_phase();
  feeder.stop();
  const bool drained = ran && runner.drain();
  runner.stop_daemon();
  int status = ran ? finish(options, **sim, runner, *deployment, feeder) : 2;
  if (status == 0 && !drained) status = 1;
  if (status == 0 && !options.keep) {
    sim->reset();
    std::filesystem::remove_all(options.work_dir);
  } else {
    say("kept " + options.work_dir);
  }
  return status;
}

}  // namespace tpslurm::soak
