// The orphan and duplicate sweep, periodic (every kSweepEvery cycles), reading the cycle's
// listing (`GET jobs`, every job's record; shared with the status poll: cycle_listing.h):
//   - a job named like this instance's (tp-<instance>-...) whose het job no attempt holds is
//     an orphan: recorded (audit --orphans) and reported, never cancelled — only an operator
//     knows what it is;
//   - a live job carrying an attempt's tag (two of three marks) whose het job is not the one
//     the journal holds is a duplicate (a proxy re-sent the POST): cancelled, the double run
//     an event; the journaled job is never cancelled as a duplicate. Attempts still blocked
//     are left to the search round, which adopts the first copy.
// Runs on a pool thread; writes go through the JournalWriter.
#pragma once

#include "reconcile/cycle_listing.h"
#include "reconcile/services.h"

namespace tpslurm::reconcile {

inline constexpr int kSweepEvery = 30;

struct SweepReport {
  bool listed = false;  // the listing answered
  int orphans = 0;
  int duplicates_cancelled = 0;
};

SweepReport run_sweep(Services& services, CycleListing& listing);

}  // namespace tpslurm::reconcile
