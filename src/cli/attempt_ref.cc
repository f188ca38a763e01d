#include "cli/attempt_ref.h"

namespace tpslurm::cli {

Result<journal::AttemptRecord> find_attempt(journal::Journal& journal, const std::string& spec) {
  const auto slash = spec.rfind('/');
  std::string job_id = slash == std::string::npos ? spec : spec.substr(0, slash);
  auto attempts = journal.attempts(job_id);
  if (!attempts.ok()) return attempts.error();
  if (attempts->empty()) return not_found("no attempts of job " + job_id + " in the journal");
  if (slash == std::string::npos) return attempts->back();
  const std::string number = spec.substr(slash + 1);
  for (const auto& a : *attempts) {
    if (std::to_string(a.number) == number) return a;
  }
  return not_found("job " + job_id + " has no attempt " + number + " (give JOB/N, e.g. " + job_id + "/" +
                   std::to_string(attempts->back().number) + ")");
}

}  // namespace tpslurm::cli
