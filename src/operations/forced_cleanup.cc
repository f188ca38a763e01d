#include "operations/forced_cleanup.h"

#include "operations/resolution.h"
#include "storage/attempt_removal.h"

namespace tpslurm::operations {

using model::CleanupStep;

ForcedStep forced_step(CleanupStep from) {
  switch (from) {
    case CleanupStep::none:
    case CleanupStep::epilog_pending:
      return {CleanupStep::staging_pending, "stop waiting for Slurm to release the job's resources"};
    case CleanupStep::staging_pending: return {CleanupStep::sealing, "remove credentials/ and scratch/ and go on"};
    case CleanupStep::sealing: return {CleanupStep::closed, "close without sealing the logs"};
    case CleanupStep::closed: break;
  }
  return {CleanupStep::closed, ""};
}

Status check_forceable(const journal::AttemptRecord& attempt) {
  const std::string which = attempt_name(attempt);
  if (!model::is_final(attempt.state)) {
    return invalid_argument("attempt " + which + " is " + std::string(model::to_string(attempt.state)) +
                            "; cleanup starts when it has ended (cancel it first)");
  }
  if (attempt.cleanup == CleanupStep::closed) {
    return invalid_argument("attempt " + which + ": cleanup is closed; nothing to force");
  }
  return {};
}

Result<ForcedStep> force_cleanup(journal::Journal& journal, const journal::AttemptRecord& attempt, std::string_view by,
                                 std::string_view reason) {
  if (Status forceable = check_forceable(attempt); !forceable.ok()) return forceable.error();
  if (reason.empty()) return invalid_argument("forcing a cleanup step needs a reason: it is journaled");
  const ForcedStep next = forced_step(attempt.cleanup);
  journal::EventDetail detail{{"reason", std::string(reason) + " (forced by " + std::string(by) + ")"},
                              {"forced", next.what}};
  if (attempt.cleanup == CleanupStep::staging_pending) {
    // The operator's command removes all of it in one call, without a slice's limits; the
    // daemon's passes remove a slice at a time.
    storage::WorkSlice whole = storage::WorkSlice::unlimited();
    auto removed = storage::remove_staging(attempt.attempt_dir, whole);
    if (!removed.ok()) detail.emplace_back("left", removed.error().message());
  }
  if (Status moved = journal.advance_cleanup(attempt.key(), attempt.cleanup, next.to, detail); !moved.ok()) {
    return moved.error();
  }
  return next;
}

}  // namespace tpslurm::operations
