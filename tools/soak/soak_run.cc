#include "soak_run.h"

#include <stdlib.h>

#include <filesystem>
#include <random>

#include "daemon.h"
#include "feeder.h"
#include "journal_view.h"
#include "plant.h"
#include "runner.h"
#include "sim.h"
#include "tally.h"

namespace tpslurm::soak {
namespace {

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
  std::uintmax_t wal = 0;
  for (const char* suffix : {"", "-wal"}) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(journal_path + suffix, ec);
    if (!ec) (*suffix ? wal : bytes) = size;
  }
  say("jobs fed " + std::to_string(feeder.submitted()) + " (failed submits " + std::to_string(feeder.failed()) +
      "), peak live attempts " + std::to_string(f.peak_live) + ", Slurm jobs " + std::to_string(t.slurm_jobs) + "");
  say("faults at p = " + fixed(options.fault_probability, 3) + ": " + faults);
  std::string states;
  for (const auto& [state, n] : t.attempt_states) states += " " + state + "=" + std::to_string(n);
  say("attempts by state:" + states);
  say("daemon rss between " + mib(f.rss_min_kib) + " and " + mib(f.rss_max_kib) + " MiB over the run");
  const auto per_attempt = [&t](std::uintmax_t n) {
    return fixed(t.attempts ? static_cast<double>(n) / static_cast<double>(t.attempts) : 0.0, 0);
  };
  say("journal " + std::to_string(bytes) + " bytes = " + per_attempt(bytes) + " bytes per attempt (+ WAL " +
      std::to_string(wal) + " bytes = " + per_attempt(wal) + " per attempt)");
  say("worst time from a restart to its first journaled status poll " + fixed(f.worst_first_poll_s, 2) + " s (" +
      std::to_string(f.first_polls) + " restarts got that far before the next kill)");
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
  if (options.plant) {
    auto planted = plant_faults(sim, deployment.journal_path());
    if (!planted.ok()) {
      say("cannot plant the faults: " + planted.error().message());
      return 2;
    }
    say("planted " + *planted);
  }
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
  const long expected = options.plant ? 1 : 0;
  const bool counted = t.duplicates == expected && t.losses == expected && t.unfinished == expected;
  if (options.plant)
    say(counted ? "the planted faults were counted, and nothing else"
                : "the planted faults were not counted as planted");
  return counted && runner.figures().unexpected_exits == 0 ? 0 : 1;
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
  SimConfig sim_config;
  sim_config.binary = options.sim_binary;
  sim_config.dir = options.work_dir;
  sim_config.timing = "pending=1s,running=" + std::to_string(options.job_seconds) + "s,completing=1s";
  auto sim = Sim::start(sim_config);
  if (!sim.ok()) {
    say("cannot start the simulator: " + sim.error().message());
    return 2;
  }
  std::string error;
  DeploymentConfig config;
  config.binary = options.daemon_binary;
  config.root = options.work_dir + "/deployment";
  config.slurm_url = (*sim)->url();
  config.key_file = (*sim)->key_file();
  config.poll_interval = options.poll_interval;
  auto deployment = Deployment::create(config, error);
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
  const int stopped = runner.stop_daemon();
  if (stopped != 0) say("serve exited " + std::to_string(stopped) + " on SIGTERM; see its log");
  int status = ran ? finish(options, **sim, runner, *deployment, feeder) : 2;
  if (status == 0 && (!drained || stopped != 0)) status = 1;
  if (status == 0 && !options.keep) {
    sim->reset();
    std::filesystem::remove_all(options.work_dir);
  } else {
    say("kept " + options.work_dir);
  }
  return status;
}

}  // namespace tpslurm::soak
