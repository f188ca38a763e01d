// The faults that happen in Slurm: slurmctld forgetting every job (also between a submit and its
// identify, its id taken by a foreign job), slurmdbd lagging, copies submitted or cancelled
// behind the daemon's back, a node failing under a running job.
#include <algorithm>
#include <chrono>
#include <set>

#include "explore_copy.h"
#include "explore_faults.h"
#include "model/job_tag.h"

namespace tpslurm::soak {

void forget_jobs(const Action& action, World& world) {
  if ((action.variant & 2) && !action.follow_up) {
    auto slowed = world.sim.control(slurm::HttpMethod::post, "/sim/faults",
                                    R"({"kind": "slow_controller", "method": "POST", "path_prefix": )"
                                    R"("/slurm/v0.0.45/job/", "ms": 2500, "seconds": 8})");
    note(world, action, slowed.ok() ? "every POST job/… (submits, releases) answers 2.5 s late for 8 s"
                                    : "cannot slow the releases: " + slowed.error().message());
    return;
  }
  auto jobs = fetch_sim_jobs(world.sim);
  std::int64_t highest = 0;
  long in_controller = 0;
  if (jobs.ok()) {
    world.nodes.touch_started(*jobs);  // the nodes opened the outputs of what started before slurmctld forgot
    for (const auto& job : *jobs) {
      highest = std::max(highest, job.id);
      in_controller += job.in_controller ? 1 : 0;
    }
  }
  const std::int64_t next = (action.variant & 1) ? std::max<std::int64_t>(1, highest - 2) : highest + 1000;
  auto reset = world.sim.control(slurm::HttpMethod::post, "/sim/ids/reset",
                                 R"({"next_id": )" + std::to_string(next) + R"(, "forget_jobs": true})");
  note(world, action,
       reset.ok() ? std::to_string(in_controller) + " jobs forgotten, the next id is " + std::to_string(next) +
                        ((action.variant & 1) ? " (ids given out again)" : "")
                  : "cannot reset: " + reset.error().message());
}

void accounting_lag(const Action& action, World& world) {
  auto added = world.sim.control(slurm::HttpMethod::post, "/sim/faults",
                                 R"({"kind": "accounting_lag", "seconds": )" + std::to_string(action.seconds) + "}");
  note(world, action,
       added.ok() ? "slurmdbd shows nothing that changed for " + std::to_string(action.seconds) +
                        " s (MinJobAge " + std::to_string(world.schedule.min_job_age_s) + " s)"
                  : "cannot add the lag: " + added.error().message());
}

void copies(const Action& action, World& world) {
  if (action.follow_up) {
    const std::uint32_t id = world.copies[action.pick];
    const std::string error = id ? step_job(world, id, R"({"state": "CANCELLED"})") : "there was none";
    note(world, action,
         error.empty() ? "the copy " + std::to_string(id) + " cancelled" : "the copy was not cancelled (" + error + ")");
    return;
  }
  if (action.variant == 1) {
    const auto held = slurm_jobs_in(world, "PENDING", true);
    if (held.empty()) return note(world, action, "no held job of ours to cancel");
    const SimJob& job = pick(held, action.pick);
    const std::string error = step_job(world, job.id, R"({"state": "CANCELLED"})");
    return note(world, action,
                error.empty() ? "held job " + std::to_string(job.id) + " (" + job.name + ") cancelled"
                              : "cannot cancel " + std::to_string(job.id) + ": " + error);
  }
  const auto live = attempts_in(world, {"submit_unknown", "submitted", "pending", "running"});
  if (live.empty()) return note(world, action, "no live attempt to copy");
  const AttemptRow& a = pick(live, action.pick);
  const model::JobTag tag{a.tag_name, model::tag_comment(a.submit_token), a.attempt_dir};
  auto copy = submit_held_copy(world.sim.url(), world.sim.key_file(), tag);
  if (!copy.ok()) return note(world, action, "no copy of " + a.tag_name + ": " + copy.error().message());
  world.copies[action.pick] = *copy;
  note(world, action, "held copy " + std::to_string(*copy) + " of " + a.job_id + "/" + std::to_string(a.number) +
                          " (" + a.state + ")");
}

namespace {

constexpr int kLateReceiptMs = 3000;  // under serve's request timeout (5 s): the answer comes, late
constexpr int kReusedIdsWindowS = 12;     // the submits slowed, and the explorer waits for one

// The first job of ours created since `before` whose receipt serve has not journaled yet.
const SimJob* unreceipted(World& world, const std::vector<SimJob>& jobs, const std::set<std::int64_t>& before) {
  auto attempts = world.journal.attempts();
  if (!attempts.ok()) return nullptr;
  const std::string ours = "tp-" + world.deployment.instance() + "-";
  for (const auto& job : jobs) {
    if (before.count(job.id) || !job.in_controller || job.name.rfind(ours, 0) != 0) continue;
    const bool receipted = std::any_of(attempts->begin(), attempts->end(), [&job](const AttemptRow& a) {
      return a.slurm_job_id == job.id && a.tag_name == job.name;
    });
    if (!receipted) return &job;
  }
  return nullptr;
}

// slurmctld restarted without its state: every job forgotten, `id` given out next, and a foreign
// job (another user's, held, a name of its own) takes it before serve reads the job by that id.
void reuse_id(const Action& action, World& world, const std::vector<SimJob>& jobs, const SimJob& job,
              const std::string& rule) {
  world.nodes.touch_started(jobs);  // the nodes opened the outputs of what started before slurmctld forgot
  auto reset = world.sim.control(slurm::HttpMethod::post, "/sim/ids/reset",
                                 R"({"next_id": )" + std::to_string(job.id) + R"(, "forget_jobs": true})");
  (void)world.sim.control(slurm::HttpMethod::del, rule);
  const std::string name = "foreign-" + std::to_string(job.id);
  const model::JobTag tag{name, "not TunePlane's", world.work_dir};
  auto foreign = reset.ok() ? submit_held_copy(world.sim.url(), world.sim.key_file(), tag, "alice")
                            : Result<std::uint32_t>(reset.error());
  if (!foreign.ok()) return note(world, action, "no foreign job: " + foreign.error().message());
  world.foreign.push_back({*foreign, name, true});
  note(world, action,
       job.name + " created as job " + std::to_string(job.id) + ", its receipt late; slurmctld forgot every job; " +
           "alice's held job " + name + " took id " + std::to_string(*foreign) +
           (*foreign == job.id ? "" : " (not the same: another submit came first)"));
}

}  // namespace

void reused_ids(const Action& action, World& world) {
  auto jobs = fetch_sim_jobs(world.sim);
  std::set<std::int64_t> before;
  if (jobs.ok()) {
    for (const auto& job : *jobs) before.insert(job.id);
  }
  auto slowed = world.sim.control(slurm::HttpMethod::post, "/sim/faults",
                                  R"({"kind": "slow_controller", "method": "POST", "path_prefix": )"
                                  R"("/slurm/v0.0.45/job/submit", "ms": )" +
                                      std::to_string(kLateReceiptMs) + R"(, "seconds": )" + std::to_string(kReusedIdsWindowS) + "}");
  if (!slowed.ok()) return note(world, action, "cannot slow the submits: " + slowed.error().message());
  const std::string rule = "/sim/faults/" + boost::json::serialize(slowed->as_object().at("id"));
  // A job of its own, so that a submit comes within the window (none between a backup and its restore).
  if (world.backup_file.empty()) own_job(world, "exp-r");
  const auto until = Steady::now() + std::chrono::seconds(kReusedIdsWindowS);
  world.watches.push_back([action, before, until, rule](World& w) {
    auto now = fetch_sim_jobs(w.sim);
    if (!now.ok()) return false;
    if (const SimJob* job = unreceipted(w, *now, before)) {
      reuse_id(action, w, *now, *job, rule);
      return true;
    }
    if (Steady::now() < until) return false;
    (void)w.sim.control(slurm::HttpMethod::del, rule);
    note(w, action, "no submit of ours came while the answers were late");
    return true;
  });
}

void node_fail(const Action& action, World& world) {
  auto running = slurm_jobs_in(world, "RUNNING", false);
  std::erase_if(running, [&world](const SimJob& job) { return world.pinned.count(job.id) > 0; });
  if (running.empty()) return note(world, action, "no running job");
  const SimJob& job = pick(running, action.pick);
  const std::string error = step_job(world, job.id, R"({"state": "NODE_FAIL"})");
  note(world, action,
       error.empty() ? "job " + std::to_string(job.id) + " (" + job.name + ") ended NODE_FAIL"
                     : "cannot fail " + std::to_string(job.id) + ": " + error);
}

}  // namespace tpslurm::soak
