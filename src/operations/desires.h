// The desires writers other than the daemon journal about existing jobs and the whole
// instance — `cancel`, `pause`, `resume`, from the CLI or the platform API. The daemon applies
// them (reconcile/); nothing here talks to Slurm.
//
// `by` names who asked (the invoking user, or the API's token name) and is journaled with the
// reason and, for a cancel, as the desire event's "by". Cancel is compare-and-set on the job's
// version, retried a few times when the daemon changes the job meanwhile; all three are
// idempotent. Thread-safe as the journal is.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "journal/journal.h"

namespace tpslurm::operations {

enum class CancelOutcome { requested, already_requested, already_final };

struct Cancelled {
  CancelOutcome outcome = CancelOutcome::requested;
  model::JobPhase phase = model::JobPhase::queued;  // the job's phase when asked
};

// not_found when there is no such job; transient when it kept changing.
Result<Cancelled> request_cancel(journal::Journal& journal, std::string_view job_id, std::string_view by,
                                 std::string_view reason, std::optional<int> grace_seconds);

// The `paused` control as it was before the call (nullopt: it was off).
Result<std::optional<journal::ControlRecord>> set_paused(journal::Journal& journal, bool paused, std::string_view by,
                                                         std::string_view reason);

}  // namespace tpslurm::operations
