#include "plant.h"

#include <SQLiteCpp/SQLiteCpp.h>

namespace tpslurm::soak {

Result<std::string> plant_faults(Sim& sim, const std::string& journal_path) {
  std::string job_id;
  int number = 0;
  try {
    SQLite::Database db(journal_path, SQLite::OPEN_READWRITE);
    db.exec("PRAGMA busy_timeout = 5000");
    SQLite::Statement pick(db,
                           "SELECT job_id, number FROM attempts WHERE cleanup = 'closed' AND slurm_job_id IS NOT NULL "
                           "ORDER BY job_id, number LIMIT 1");
    if (!pick.executeStep()) return not_found("no ended attempt with a Slurm job to plant on");
    job_id = pick.getColumn(0).getString();
    number = pick.getColumn(1).getInt();
    SQLite::Statement reopen(db, "UPDATE attempts SET cleanup = 'staging_pending' WHERE job_id = ? AND number = ?");
    reopen.bind(1, job_id);
    reopen.bind(2, number);
    reopen.exec();
  } catch (const std::exception& e) {
    return transient("journal " + journal_path + ": " + e.what());
  }
  const std::string copy = "tp-soak-" + job_id + "-" + std::to_string(number);
  const std::string stranger = "tp-soak-planted-1";
  auto created =
      sim.control(slurm::HttpMethod::post, "/sim/jobs/bulk",
                  R"({"count": 2, "state": "COMPLETED", "names": [")" + copy + R"(", ")" + stranger + R"("]})");
  if (!created.ok()) return created.error();
  return "a second Slurm job named " + copy + ", a Slurm job " + stranger + " that no attempt knows, and " + job_id +
         "/" + std::to_string(number) + "'s cleanup reopened (staging_pending)";
}

}  // namespace tpslurm::soak
