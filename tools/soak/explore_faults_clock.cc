// serve's wall clock stepped an hour while a cancel's grace runs (an NTP step, `date -s`): a job
// cancelled with grace G must be gone from Slurm within G and kKillBoundS on the explorer's own
// monotonic clock, whichever way serve's wall clock went. The fault submits a job of its own
// (exp-cNN), and keeps it running in the simulator until it is killed (`auto_progress: false`),
// so that its own end cannot hide a kill that never came.
#include <chrono>
#include <memory>

#include "explore_faults.h"

namespace tpslurm::soak {
namespace {

constexpr long kStepS = 3600;

// When serve has journaled the checkpoint signal of `key`.
bool signalled(World& world, const std::string& key) {
  auto rows = world.journal.attempts();
  if (!rows.ok()) return false;
  for (const auto& a : *rows) {
    if (a.job_id + "/" + std::to_string(a.number) == key) return !a.signalled_at.empty();
  }
  return false;
}

// `a` runs in Slurm as `job`: kept running, cancelled with the action's grace; once the signal is
// journaled (the grace counts from it), serve's clock steps, and after the check it is set right.
bool cancel_while_the_clock_steps(const Action& action, World& world, const AttemptRow& a, const SimJob& job) {
  if (job.state == "PENDING") (void)step_job(world, job.id, R"({"auto_progress": false, "state": "RUNNING"})");
  if (a.state != "running") return false;  // until serve has seen it run: the grace is for a running job
  const std::string key = a.job_id + "/" + std::to_string(a.number);
  if (std::string error = step_job(world, job.id, R"({"auto_progress": false})"); !error.empty()) {
    note(world, action, "cannot keep job " + std::to_string(job.id) + " running: " + error);
    return true;
  }
  world.pinned.insert(job.id);
  const int code = world.deployment.command({"cancel", a.job_id, "--grace", std::to_string(action.seconds),
                                             "--reason", "explore: cancelled while serve's clock steps"});
  if (code != 0) {
    world.findings.push_back("cancel --grace of " + a.job_id + " exited " + std::to_string(code));
    return true;
  }
  note(world, action, key + " (Slurm job " + std::to_string(job.id) + ") cancelled with a grace of " +
                          std::to_string(action.seconds) + " s");
  const long step = action.variant == 0 ? -kStepS : kStepS;
  const GraceCheck check{key, job.id, job.name, action.seconds, Steady::now()};
  auto stepped = std::make_shared<bool>(false);
  Watch check_kill = kill_in_time(check, [action, stepped](World& w) {
    if (*stepped) (void)w.clock->set(0);
    note(w, action, *stepped ? "serve's clock set right again (a step of an hour the other way)"
                             : "serve's clock was not stepped (no signal journaled within the grace, or another step "
                               "under way)");
  });
  world.watches.push_back([action, key, step, stepped, check, check_kill](World& w) {
    // One step at a time: the clock is shared.
    if (!*stepped && w.clock->offset() == 0 && seconds_since(check.asked) < check.grace_s && signalled(w, key)) {
      *stepped = w.clock->set(step).ok();
      note(w, action, std::string("the checkpoint signal journaled; serve's clock stepped an hour ") +
                          (step < 0 ? "back" : "forward"));
    }
    return check_kill(w);
  });
  return true;
}

}  // namespace

Watch kill_in_time(const GraceCheck& check, std::function<void(World&)> after_check) {
  return [check, after_check](World& w) {
    if (seconds_since(check.asked) < check.grace_s + kKillBoundS) return false;
    auto jobs = fetch_sim_jobs(w.sim);
    std::string still;
    bool forgotten = false;
    if (jobs.ok()) {
      for (const auto& job : *jobs) {
        if (job.id != check.slurm_id || job.name != check.name) continue;
        if (job.state != "RUNNING" && job.state != "SUSPENDED") continue;
        if (job.in_controller) still = job.state;
        else forgotten = true;  // slurmctld forgot it (another fault): there is no kill to judge
      }
    }
    if (forgotten) w.notes.push_back(check.key + ": slurmctld forgot its job before the kill was due");
    if (!still.empty()) {
      w.late_kills.push_back("late kill: " + check.key + " cancelled with a grace of " +
                             std::to_string(check.grace_s) + " s, and Slurm job " + std::to_string(check.slurm_id) +
                             " is still " + still + " " + fixed(seconds_since(check.asked), 1) + " s later");
    }
    if (after_check) after_check(w);
    return true;
  };
}

void clock_step(const Action& action, World& world) {
  if (world.clock == nullptr) return note(world, action, "serve's clock is not faked");
  if (!world.backup_file.empty()) return note(world, action, "no job is fed between a backup and its restore");
  const std::string job = own_job(world, "exp-c");
  note(world, action, job + " submitted, to be cancelled once it runs");
  world.watches.push_back(when_released(job, [action](World& w, const AttemptRow& a, const SimJob& slurm_job) {
    return cancel_while_the_clock_steps(action, w, a, slurm_job);
  }));
}

}  // namespace tpslurm::soak
