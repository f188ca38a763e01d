#include "explore_faults.h"

#include <cstdio>

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
  }
}

}  // namespace tpslurm::soak
