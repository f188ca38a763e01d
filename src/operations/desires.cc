#include "operations/desires.h"

namespace tpslurm::operations {

Result<Cancelled> request_cancel(journal::Journal& journal, std::string_view job_id, std::string_view by,
                                 std::string_view reason, std::optional<int> grace_seconds) {
  const std::string who(by);
  const std::string words = reason.empty() ? "requested by " + who : std::string(reason) + " (by " + who + ")";
  for (int tries = 0; tries < 5; ++tries) {
    auto job = journal.job(job_id);
    if (!job.ok()) return job.error();
    if (!job->has_value()) return not_found("no job " + std::string(job_id) + " in the journal");
    const journal::JobRecord& record = **job;
    if (model::is_final(record.phase)) return Cancelled{CancelOutcome::already_final, record.phase};
    if (record.desire == model::Desire::cancel) return Cancelled{CancelOutcome::already_requested, record.phase};
    Status set = journal.set_desire(job_id, model::Desire::cancel, words, record.version, grace_seconds, who);
    if (set.ok()) return Cancelled{CancelOutcome::requested, record.phase};
    if (set.error().kind() != ErrorKind::transient) return set.error();
  }
  return transient("job " + std::string(job_id) + " kept changing; try again");
}

Result<std::optional<journal::ControlRecord>> set_paused(journal::Journal& journal, bool paused, std::string_view by,
                                                         std::string_view reason) {
  auto before = journal.control("paused");
  if (!before.ok()) return before.error();
  const Status changed =
      paused ? journal.set_control("paused", by, reason) : journal.clear_control("paused", by, reason);
  if (!changed.ok()) return changed.error();
  return before;
}

}  // namespace tpslurm::operations
