#include "explore_plant.h"

#include <SQLiteCpp/SQLiteCpp.h>


#include "base/clock.h"
#include "explore_copy.h"
#include "explore_faults.h"

namespace tpslurm::soak {
namespace {

constexpr int kPlantedGraceS = 2;

bool plant_stuck_epilog(World& w, const AttemptRow& a, const SimJob& job) {
  std::string error;
  if (job.state == "PENDING") error = step_job(w, job.id, R"({"auto_progress": false, "state": "RUNNING"})");
  if (error.empty()) {
    error = step_job(w, job.id, R"({"auto_progress": false, "state": "COMPLETED", "completing": true})");
  }
  w.notes.push_back("plant: " + a.job_id + "/" + std::to_string(a.number) + "'s Slurm job " +
                    std::to_string(job.id) +
                    (error.empty() ? " completed and kept COMPLETING: its cleanup waits in epilog_pending"
                                   : " could not be kept COMPLETING: " + error));
  return true;
}

bool plant_late_kill(World& w, const AttemptRow& a, const SimJob& job) {
  if (job.state == "PENDING") (void)step_job(w, job.id, R"({"auto_progress": false, "state": "RUNNING"})");
  if (a.state != "running") return false;  // until serve has seen it run
  (void)step_job(w, job.id, R"({"auto_progress": false})");
  w.pinned.insert(job.id);
  w.daemon.stop("a planted late kill");
  const int code = w.deployment.command({"cancel", a.job_id, "--grace", std::to_string(kPlantedGraceS), "--reason",
                                         "explore: planted, cancelled while serve is stopped"});
  const std::string key = a.job_id + "/" + std::to_string(a.number);
  w.notes.push_back("plant: serve stopped, " + key + " (Slurm job " + std::to_string(job.id) +
                    ") cancelled with a grace of " + std::to_string(kPlantedGraceS) + " s" +
                    (code == 0 ? "" : ": the cancel exited " + std::to_string(code)));
  w.watches.push_back(kill_in_time({key, job.id, job.name, kPlantedGraceS, Steady::now()}, [](World& after) {
    after.daemon.start();
    after.notes.push_back("plant: serve started again");
  }));
  return true;
}

// A foreign job (alice's, held) submitted and then cancelled, as if by the daemon.
std::string plant_foreign(World& world) {
  const model::JobTag tag{"foreign-planted", "not TunePlane's", world.work_dir};
  auto id = submit_held_copy(world.sim.url(), world.sim.key_file(), tag, "alice");
  if (!id.ok()) return "no foreign job (" + id.error().message() + ")";
  world.foreign.push_back({*id, tag.name, true});
  const std::string error = step_job(world, *id, R"({"state": "CANCELLED"})");
  return "foreign job " + std::to_string(*id) + (error.empty() ? " cancelled" : " not cancelled (" + error + ")");
}

}  // namespace

void plant_at_start(World& world) { world.watches.push_back(when_released(own_job(world, "exp-p"), plant_late_kill)); }

void plant_before_drain(World& world) {
  world.watches.push_back(when_released(own_job(world, "exp-p"), plant_stuck_epilog));
}

Result<std::string> plant_after_drain(World& world) {
  if (auto revoked = world.api_tokens.revoke(); !revoked.ok()) return revoked.error();
  const std::string refused = world.api.poll("/v1/jobs/exp-001");
  (void)world.api_tokens.write();
  if (refused.empty()) return permanent("the API served the client after its token line was taken out");
  world.api_refusals.push_back("API (planted): the client's token line taken out, its request refused: " + refused);
  return "the client's token revoked: " + refused;
}

Result<std::string> plant_explore_faults(World& world) {
  auto rows = world.journal.attempts();
  if (!rows.ok()) return rows.error();
  std::vector<AttemptRow> succeeded;
  for (const auto& a : *rows) {
    if (a.state == "succeeded" && a.cleanup == "closed" && !a.tag_name.empty()) succeeded.push_back(a);
  }
  if (succeeded.size() < 3) return not_found("fewer than three succeeded attempts to plant on");
  const AttemptRow& twice = succeeded[0];
  const AttemptRow& again = succeeded[1];
  const AttemptRow& reopened = succeeded[2];
  const std::string next = again.tag_name.substr(0, again.tag_name.rfind('-') + 1) + std::to_string(again.number + 1);
  auto created = world.sim.control(slurm::HttpMethod::post, "/sim/jobs/bulk",
                                   R"({"count": 2, "state": "COMPLETED", "names": [")" + twice.tag_name + R"(", ")" +
                                       next + R"("]})");
  if (!created.ok()) return created.error();
  try {
    SQLite::Database db(world.deployment.journal_path(), SQLite::OPEN_READWRITE);
    db.exec("PRAGMA busy_timeout = 5000");
    SQLite::Statement reopen(db, "UPDATE attempts SET cleanup = 'staging_pending' WHERE job_id = ? AND number = ?");
    reopen.bind(1, reopened.job_id);
    reopen.bind(2, reopened.number);
    reopen.exec();
    SQLite::Statement free_retry(db,
                                 "INSERT INTO events (at, job_id, attempt, kind, from_state, to_state, detail) "
                                 "VALUES (?, ?, ?, 'attempt.state', 'running', 'failed', json_object('retry', ?))");
    free_retry.bind(1, format_utc(std::chrono::system_clock::now()));
    free_retry.bind(2, reopened.job_id);
    free_retry.bind(3, reopened.number);
    free_retry.bind(4, "yes: planted; it never ran, so it costs none of the job's attempts");
    free_retry.exec();
  } catch (const std::exception& e) {
    return transient(std::string("journal: ") + e.what());
  }
  return "a second started Slurm job named " + twice.tag_name + ", a started " + next + " beside " + again.job_id +
         "/" + std::to_string(again.number) + ", " + reopened.job_id + "/" + std::to_string(reopened.number) +
         "'s cleanup reopened and a free retry added to its end, and a " + plant_foreign(world);
}

}  // namespace tpslurm::soak
