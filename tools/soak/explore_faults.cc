#include "explore_faults.h"

#include <chrono>
#include <cstdio>
#include <optional>

namespace tpslurm::soak {

void note(World& world, const Action& action, const std::string& text) {
  char at[32];
  std::snprintf(at, sizeof at, "t=%5.1f s  ", action.at_s);
  world.notes.push_back(at + std::string(fault_name(action.kind)) + ": " + text);
}

std::vector<AttemptRow> attempts_in(World& world, std::initializer_list<const char*> states) {
  std::vector<AttemptRow> out;
  auto rows = world.journal.attempts();
  if (!rows.ok()) return out;
  for (const auto& row : *rows) {
    if (row.number == 0 || row.tag_name.empty() || row.attempt_dir.empty()) continue;
    for (const char* state : states) {
      if (row.state == state) out.push_back(row);
    }
  }
  return out;
}

std::vector<SimJob> slurm_jobs_in(World& world, const std::string& state, bool held_only) {
  std::vector<SimJob> out;
  auto jobs = fetch_sim_jobs(world.sim);
  if (!jobs.ok()) return out;
  for (const auto& job : *jobs) {
    if (job.in_controller && job.state == state && job.name.rfind("tp-", 0) == 0 && (!held_only || job.held)) {
      out.push_back(job);
    }
  }
  return out;
}

std::string step_job(World& world, std::int64_t id, const std::string& body) {
  auto answer = world.sim.control(slurm::HttpMethod::post, "/sim/jobs/" + std::to_string(id) + "/state", body);
  return answer.ok() ? std::string() : answer.error().message();
}

std::string own_job(World& world, const std::string& prefix) {
  char id[32];
  std::snprintf(id, sizeof id, "%s%02d", prefix.c_str(), ++world.own_jobs);
  if (world.deployment.submit(id) != 0) world.findings.push_back(std::string("submit of ") + id + " failed");
  return id;
}

namespace {

// The newest attempt of `job_id` and its Slurm job, once slurmctld holds it released.
std::optional<std::pair<AttemptRow, SimJob>> released(World& world, const std::string& job_id) {
  auto rows = world.journal.attempts();
  auto jobs = fetch_sim_jobs(world.sim);
  if (!rows.ok() || !jobs.ok()) return std::nullopt;
  std::optional<AttemptRow> newest;
  for (const auto& a : *rows) {
    if (a.job_id == job_id && !a.tag_name.empty() && (!newest || a.number > newest->number)) newest = a;
  }
  if (!newest) return std::nullopt;
  for (const auto& job : *jobs) {
    if (job.in_controller && !job.held && job.name == newest->tag_name) return std::make_pair(*newest, job);
  }
  return std::nullopt;
}

}  // namespace

Watch when_released(const std::string& job_id, std::function<bool(World&, const AttemptRow&, const SimJob&)> act) {
  const auto until = Steady::now() + std::chrono::seconds(kOwnJobWithinS);
  return [job_id, act, until](World& w) {
    if (const auto found = released(w, job_id); found && act(w, found->first, found->second)) return true;
    if (Steady::now() < until) return false;
    w.notes.push_back(job_id + " did not get as far as running in Slurm in " + std::to_string(kOwnJobWithinS) + " s");
    return true;
  };
}

void apply(const Action& action, World& world) {
  switch (action.kind) {
    case FaultKind::no_accounting:
      break;  // a setting of the simulator, made when it starts
    case FaultKind::forget_jobs:
      forget_jobs(action, world);
      break;
    case FaultKind::accounting_lag:
      accounting_lag(action, world);
      break;
    case FaultKind::auth_fails:
      auth_fails(action, world);
      break;
    case FaultKind::copies:
      copies(action, world);
      break;
    case FaultKind::restore_backup:
      restore_backup(action, world);
      break;
    case FaultKind::rename:
      rename(action, world);
      break;
    case FaultKind::plant_links:
      plant(action, world);
      break;
    case FaultKind::sigkill:
      world.daemon.kill();
      world.daemon.start();
      note(world, action, "serve SIGKILLed and started again");
      break;
    case FaultKind::sigterm:
      world.daemon.stop("the sigterm fault");
      world.daemon.start();
      note(world, action, "serve stopped with SIGTERM and started again");
      break;
    case FaultKind::node_fail:
      node_fail(action, world);
      break;
    case FaultKind::reused_ids:
      reused_ids(action, world);
      break;
    case FaultKind::hostile_files:
      hostile_files(action, world);
      break;
    case FaultKind::idle_connections:
      idle_connections(action, world);
      break;
    case FaultKind::clock_step:
      clock_step(action, world);
      break;
  }
}

void run_watches(World& world) {
  std::vector<Watch> watching;
  watching.swap(world.watches);  // a watch may leave another
  for (auto& watch : watching) {
    if (!watch(world)) world.watches.push_back(std::move(watch));
  }
}

}  // namespace tpslurm::soak
