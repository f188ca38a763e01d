// Why a job waits in Slurm, in words a platform user understands (docs/api.md, *Pending,
// explained*): Slurm's pending reason codes (`state_reason`: Priority, Resources,
// ReqNodeNotAvail, AssocGrpGRES, …, as src/common/job_state_reason.c names them) mapped to a
// short explanation and, where there is one, what the user can change. The account (Assoc…)
// and QoS (QOS…, Max…PerAccount, Max…PerUser) limit families are read from the code's parts,
// so a limit on any resource is explained; a code the table does not know is shown as Slurm's
// own word with no advice.
//
// And when a new expected start is news: Slurm's estimate (a pending job's `start_time`, set by
// the backfill scheduler) drifts by seconds between polls; only a move that matters at the
// scale of the wait left is journaled as an event. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"

namespace tpslurm::model {

struct PendingExplanation {
  std::string explanation;     // "other jobs come first: they have a higher priority or were queued earlier"
  std::string what_to_change;  // empty when waiting is the only way
  bool never_clears = false;   // waiting cannot end it (a wrong account, a constraint no node has)
};

PendingExplanation explain_pending(std::string_view reason);

// The wait no longer ends by itself: BadConstraints, InvalidAccount, InvalidQOS, PartitionConfig,
// AccountNotAllowed, QOSNotAllowed, and a launch failure held for requeue ("launch failed
// requeued held").
bool pending_forever(std::string_view reason);

// A new estimate is news when one appears or goes, or it moved by at least a quarter of the
// wait that was left (at least 10 minutes): a job expected in two days moves by 12 hours, one
// expected in half an hour by 10 minutes.
bool estimate_moved(const std::optional<TimePoint>& before, const std::optional<TimePoint>& after, TimePoint now);

inline constexpr std::chrono::minutes kLeastEstimateMove{10};

}  // namespace tpslurm::model
