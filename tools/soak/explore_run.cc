#include "explore_run.h"

#include <algorithm>
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

constexpr double kWatchesWithinS = 120;

// Plays the nodes' part; the simulator's records for the caller (empty when unreadable).
std::vector<SimJob> nodes_round(World& world) {
  auto jobs = fetch_sim_jobs(world.sim);
  if (!jobs.ok()) return {};
  world.nodes.touch_started(*jobs);
  return std::move(jobs).value();
}

// One round of the run (about ten a second): the faults' watches, the nodes' part every half
// second (and the operator's look at the attempts), serve watched for exiting on its own.
void timeline_round(World& world, Operator& op, Steady::time_point& nodes_at) {
  run_watches(world);
  if (Steady::now() >= nodes_at) {
    nodes_round(world);
    op.observe();
    nodes_at = Steady::now() + std::chrono::milliseconds(500);
  }
  world.daemon.watch();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

void timeline(World& world, Operator& op) {
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
    timeline_round(world, op, nodes_at);
  }
}

// Until every watch is done (each has a deadline of its own; this one is a backstop).
void finish_watches(World& world, Operator& op) {
  const auto start = Steady::now();
  auto nodes_at = start;
  while (!world.watches.empty() && seconds_since(start) < kWatchesWithinS) timeline_round(world, op, nodes_at);
  if (world.watches.empty()) return;
  world.findings.push_back(std::to_string(world.watches.size()) + " fault(s) still waiting after " +
                           fixed(kWatchesWithinS, 0) + " s");
  world.watches.clear();
}

// True once every job has ended with its cleanup closed and safe mode is off.
bool drain(World& world, Operator& op, int seconds) {
  (void)world.sim.control(slurm::HttpMethod::del, "/sim/faults");
  if (auto good = world.tokens.good(); !good.ok()) world.findings.push_back(good.error().message());
  op.begin_drain();
  const auto start = Steady::now();
  for (int round = 0; seconds_since(start) < seconds; ++round) {
    if (round % 2 == 0) {
      (void)world.sim.control(slurm::HttpMethod::post, "/sim/jobs/advance",
                              R"({"count": 10000000, "from": "RUNNING", "to": "COMPLETED"})");
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
    op.tick(nodes_round(world));
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
  r.invariants = check_invariants(EndState{*attempts, *retry, *jobs, world.instances, world.foreign});
  r.escapes_by_state = op.by_state();
  r.escapes_needed = op.needed();
  r.escapes_failed = op.failed();
  r.api_refusals = static_cast<long>(world.api_refusals.size());
  r.late_kills = static_cast<long>(world.late_kills.size());
  for (const auto& f : r.invariants.findings) r.findings.push_back(f);
  for (const auto& f : op.findings()) r.findings.push_back(f);
  for (const auto& f : world.api_refusals) r.findings.push_back(f);
  for (const auto& f : world.late_kills) r.findings.push_back(f);
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
  const long bad = i.duplicate_runs + i.runs_twice + i.free_retries_of_a_run + i.ended_without_running +
                   r.escapes_needed + i.stuck + r.escapes_failed + i.foreign_touched + r.api_refusals + r.late_kills +
                   r.daemon.slow_stops + r.other;
  r.status = bad == 0 ? 0 : 1;
}

bool steps_the_clock(const Schedule& s) {
  return std::any_of(s.actions.begin(), s.actions.end(),
                     [](const Action& a) { return a.kind == FaultKind::clock_step; });
}

// The deployment's settings: the simulator, the token file, the API and its port.
DeploymentConfig deployment_config(const ExploreOptions& options, const std::string& work_dir, Sim& sim,
                                   const TokenFile& tokens, const ApiTokens& api_tokens, int api_port) {
  DeploymentConfig config;
  config.binary = options.daemon_binary;
  config.root = work_dir + "/deployment";
  config.slurm_url = sim.url();
  config.key_file = sim.key_file();
  config.poll_interval = "2s";
  config.instance = "explore";
  config.token_file = tokens.path();
  config.quiet_period = "8s";
  config.max_attempts = 2;
  config.api_tokens_file = api_tokens.path();
  config.api_listen = "127.0.0.1:" + std::to_string(api_port);
  return config;
}

// Runs the schedule on a deployment that is set up; the result's status is 2 when serve could
// not start.
void run_on(ScheduleResult& r, const ExploreOptions& options, World& world) {
  Operator op(world, options.escape_bound_s);
  if (!world.daemon.start()) {
    r.status = 2;
    r.findings = world.daemon.findings();
    return;
  }
  if (options.plant) plant_at_start(world);
  timeline(world, op);
  if (options.plant) plant_before_drain(world);
  finish_watches(world, op);
  for (const auto& line : world.notes) tell("  " + line);
  const bool drained = drain(world, op, options.drain_seconds);
  if (options.plant) {
    auto planted = plant_after_drain(world);
    tell(planted.ok() ? "planted " + *planted : "cannot plant: " + planted.error().message());
  }
  world.daemon.stop("the end of the drain");
  world.idle.close();
  if (options.plant) {
    auto planted = plant_explore_faults(world);
    tell(planted.ok() ? "planted " + *planted : "cannot plant: " + planted.error().message());
  }
  r.daemon = world.daemon.figures();
  judge(r, world, op, drained);
}

}  // namespace

ScheduleResult run_schedule(const ExploreOptions& options, std::uint64_t seed, const std::string& work_dir) {
  ScheduleResult r;
  r.schedule = draw_schedule(seed, options.schedule);
  count_faults(r);
  for (const auto& line : describe(r.schedule)) tell(line);
  const auto fail = [&r](const std::string& why) {
    r.findings.push_back(why);
    r.status = 2;
    return r;
  };
  std::filesystem::create_directories(work_dir);
  SimConfig sim_config;
  sim_config.binary = options.sim_binary;
  sim_config.dir = work_dir;
  sim_config.timing = "pending=" + std::to_string(r.schedule.pending_s) + "s,running=" +
                      std::to_string(r.schedule.job_seconds) + "s,completing=1s";
  sim_config.min_job_age_s = r.schedule.min_job_age_s;
  sim_config.accounting = r.schedule.accounting;
  auto sim = Sim::start(sim_config);
  if (!sim.ok()) return fail(sim.error().message());
  TokenFile tokens(work_dir + "/slurm.jwt", (*sim)->key_file());
  auto outside = OutsideTree::create(work_dir + "/outside");
  const int api_port = free_loopback_port();
  ApiTokens api_tokens(work_dir + "/api-tokens", "explore-client", make_api_token());
  auto api = ApiClient::create(api_port, api_tokens.token());
  if (!tokens.good().ok() || !outside.ok() || api_port == 0 || !api_tokens.write().ok() || !api.ok()) {
    return fail("cannot write the token, the API's tokens or the outside tree, or find a port for the API");
  }
  std::string error;
  auto deployment = Deployment::create(deployment_config(options, work_dir, **sim, tokens, api_tokens, api_port), error);
  if (!deployment) return fail(error);
  FakedClock clock(work_dir + "/faketime");
  Environment serve_env;
  if (steps_the_clock(r.schedule)) {
    const std::string library = FakedClock::library();
    if (library.empty()) return fail("clock_step needs Debian's libfaketime (tools/packages); or --without clock_step");
    if (!clock.set(0).ok()) return fail("cannot write " + work_dir + "/faketime");
    serve_env = clock.environment(library);
  }
  DaemonControl daemon(*deployment, options.grace_s, work_dir + "/notify.sock");
  if (daemon.notify_socket().empty()) return fail("cannot make the socket serve says READY=1 on");
  serve_env["NOTIFY_SOCKET"] = daemon.notify_socket();
  deployment->set_serve_environment(serve_env);
  Nodes nodes;
  World world(r.schedule, **sim, *deployment, daemon, tokens, *outside, nodes, api_tokens, **api, api_port,
              steps_the_clock(r.schedule) ? &clock : nullptr, work_dir);
  run_on(r, options, world);
  return r;
}

}  // namespace tpslurm::soak
