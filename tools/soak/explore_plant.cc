#include "explore_plant.h"

#include <SQLiteCpp/SQLiteCpp.h>

namespace tpslurm::soak {

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
  } catch (const std::exception& e) {
    return transient(std::string("journal: ") + e.what());
  }
  return "a second started Slurm job named " + twice.tag_name + ", a started " + next + " beside " + again.job_id +
         "/" + std::to_string(again.number) + ", and " + reopened.job_id + "/" + std::to_string(reopened.number) +
         "'s cleanup reopened";
}

}  // namespace tpslurm::soak
