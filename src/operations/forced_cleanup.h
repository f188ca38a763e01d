// The operator's push for a cleanup step that does not move on by itself (`cleanup --force`,
// docs/architecture.md §5): one step on, compare-and-set on the step the operator saw, journaled
// with who asked and why.
//
//   none, epilog_pending -> staging_pending   stop waiting for Slurm to release the resources
//   staging_pending      -> sealing           credentials/ and scratch/ are removed first; if
//                                             that fails the step is still forced and the
//                                             event says what was left
//   sealing              -> closed            the logs stay unsealed
//
// Only ended attempts; the daemon takes the steps after it. Thread-safe as the journal is.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "journal/journal.h"
#include "model/attempt_state.h"

namespace tpslurm::operations {

struct ForcedStep {
  model::CleanupStep to = model::CleanupStep::closed;
  std::string what;  // what forcing it does, in words ("" for closed: nothing to force)
};

// The step `cleanup --force` would take from `from`.
ForcedStep forced_step(model::CleanupStep from);

// invalid_argument, in words for the operator, for an attempt that has not ended or whose
// cleanup is closed.
Status check_forceable(const journal::AttemptRecord& attempt);

// check_forceable's errors, or invalid_argument without a reason; transient when the step moved
// meanwhile.
Result<ForcedStep> force_cleanup(journal::Journal& journal, const journal::AttemptRecord& attempt, std::string_view by,
                                 std::string_view reason);

}  // namespace tpslurm::operations
