#include "explore_run.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "daemon.h"
#include "explore_faults.h"
#include "explore_nodes.h"
#include "explore_operator.h"
#include "explore_plant.h"
#include "explore_world.h"
#include "output.h"
#include "sim.h"

namespace tpslurm::soak {
namespace {

void tell(const std::string& line) {
  std::printf("explore: %s\n", line.c_str());
  std::fflush(stdout);
}

std::string job_id(std::size_t n) {
  char id[32];
  std::snprintf(id, sizeof id, "exp-%03zu", n + 1);
  return id;
}

// Plays the nodes' part; the simulator's records for the caller (empty when unreadable).
std::vector<SimJob> nodes_round(World& world, Nodes& nodes) {
  auto jobs = fetch_sim_jobs(world.sim);
  if (!jobs.ok()) return {};
  nodes.touch_started(*jobs);
  return std::move(jobs).value();
}

void timeline(World& world, Nodes& nodes) {
  const Schedule& s = world.schedule;
  const auto start = Steady::now();
  std::size_t fed = 0;
  std::size_t acted = 0;
  auto nodes_at = start;
  while (fed < s.feed_at.size() || acted < s.actions.size() || seconds_since(start) < s.seconds) {
    const double t = seconds_since(start);
    while (acted < s.actions.size() && s.actions[acted].at_s <= t) apply(s.actions[acted++], world);
    while (world.backup_file.empty() && fed < s.feed_at.size() && s.feed_at[fed] <= t) {
      if (world.deployment.submit(job_id(fed)) != 0) world.findings.push_back("submit of " + job_id(fed) + " failed");
      ++fed;
    }
    if (Steady::now() >= nodes_at) {
      nodes_round(world, nodes);
      nodes_at = Steady::now() + std::chrono::milliseconds(500);
    }
    world.daemon.watch();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// True once every job has ended with its cleanup closed and safe mode is off.
bool drain(World& world, Nodes& nodes, Operator& op, int seconds) {
  (void)world.sim.control(slurm::HttpMethod::del, "/sim/faults");
  if (auto good = world.tokens.good(); !good.ok()) world.findings.push_back(good.error().message());
  const auto start = Steady::now();
  for (int round = 0; seconds_since(start) < seconds; ++round) {
    if (round % 2 == 0) {
      (void)world.sim.control(slurm::HttpMethod::post, "/sim/jobs/advance",
                              R"({"count": 10000000, "from": "RUNNING", "to": "COMPLETED"})");
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
    op.tick(nodes_round(world, nodes));
    world.daemon.watch();
    auto counts = world.journal.counts();
    auto safe = world.journal.control_set("safe_mode");
    if (counts.ok() && safe.ok() && counts->unended_jobs == 0 && counts->open_cleanups == 0 && !*safe) {
      tell("drained in " + fixed(seconds_since(start), 1) + " s");
      return true;
    }
  }
  tell("not drained after " + std::to_string(seconds) + " s");
  return false;
}

void count_faults(ScheduleResult& r) {
  if (!r.schedule.accounting) ++r.faults_applied[fault_name(FaultKind::no_accounting)];
  for (const auto& a : r.schedule.actions) {
    if (!a.follow_up) ++r.faults_applied[fault_name(a.kind)];
  }
}

// The verdict over the end state; status 1 on any finding.
void judge(ScheduleResult& r, World& world, const Operator& op, bool drained) {
  auto attempts = world.journal.attempts();
  auto retry = world.journal.retry_decisions();
  auto jobs = fetch_sim_jobs(world.sim);
  if (!attempts.ok() || !retry.ok() || !jobs.ok()) {
    r.findings.push_back("cannot take the invariants");
    r.status = 2;
    return;
  }
  r.invariants = check_invariants(*attempts, *retry, *jobs, world.instances);
  r.escapes = op.applied();
  r.escapes_failed = op.failed();
  for (const auto& f : r.invariants.findings) r.findings.push_back(f);
  for (const auto& f : op.findings()) r.findings.push_back(f);
  std::vector<std::string> other = world.findings;
  for (const auto& change : world.outside.changes()) other.push_back("outside the storage tree: " + change);
  for (const auto& f : world.daemon.findings()) {
    if (f.rfind("slow SIGTERM", 0) == 0) r.findings.push_back(f);
    else other.push_back(f);
  }
  if (!drained) other.push_back("the drain did not end");
  r.other = static_cast<long>(other.size());
  for (const auto& f : other) r.findings.push_back(f);
  const auto& i = r.invariants;
  const long bad = i.duplicate_runs + i.runs_twice + i.ended_without_running + i.stuck + r.escapes_failed +
                   r.daemon.slow_stops + r.other;
  r.status = bad == 0 ? 0 : 1;
}

}  // namespace

ScheduleResult run_schedule(const ExploreOptions& options, std::uint64_t seed, const std::string& work_dir) {
  ScheduleResult r;
  r.schedule = draw_schedule(seed, options.schedule);
  count_faults(r);
  for (const auto& line : describe(r.schedule)) tell(line);
  std::filesystem::create_directories(work_dir);
  SimConfig sim_config;
  sim_config.binary = options.sim_binary;
  sim_config.dir = work_dir;
  sim_config.timing = "pending=" + std::to_string(r.schedule.pending_s) + "s,running=" +
                      std::to_string(r.schedule.job_seconds) + "s,completing=1s";
  sim_config.min_job_age_s = r.schedule.min_job_age_s;
  sim_config.accounting = r.schedule.accounting;
  auto sim = Sim::start(sim_config);
  TokenFile tokens(work_dir + "/slurm.jwt", sim.ok() ? (*sim)->key_file() : "");
  auto outside = OutsideTree::create(work_dir + "/outside");
  if (!sim.ok() || !tokens.good().ok() || !outside.ok()) {
    r.findings.push_back(sim.ok() ? "cannot write the token or the outside tree" : sim.error().message());
    r.status = 2;
    return r;
  }
  DeploymentConfig config;
  config.binary = options.daemon_binary;
  config.root = work_dir + "/deployment";
  config.slurm_url = (*sim)->url();
  config.key_file = (*sim)->key_file();
  config.poll_interval = "2s";
  config.instance = "explore";
  config.token_file = tokens.path();
  config.quiet_period = "8s";
  config.max_attempts = 2;
  std::string error;
  auto deployment = Deployment::create(config, error);
  if (!deployment) {
    r.findings.push_back(error);
    r.status = 2;
    return r;
  }
  DaemonControl daemon(*deployment, options.grace_s);
  World world{r.schedule, **sim, *deployment, daemon, tokens, *outside, JournalView(deployment->journal_path()),
              work_dir, {}, {}, {"explore"}, {}, -1, {}, 0, 0};
  Nodes nodes;
  Operator op(world, options.escape_bound_s, options.patience_s);
  if (!daemon.start()) {
    r.status = 2;
    r.findings = daemon.findings();
    return r;
  }
  timeline(world, nodes);
  for (const auto& line : world.notes) tell("  " + line);
  const bool drained = drain(world, nodes, op, options.drain_seconds);
  daemon.stop("the end of the drain");
  if (options.plant) {
    auto planted = plant_explore_faults(world);
    tell(planted.ok() ? "planted " + *planted : "cannot plant: " + planted.error().message());
  }
  r.daemon = daemon.figures();
  judge(r, world, op, drained);
  return r;
}

}  // namespace tpslurm::soak
