// The cycle's search by tag: ONE batch search (slurm::SlurmClient::find_jobs_by_tags) serves
// every attempt that needs one — in per-user mode one per user, in that user's own listings
// (slurm::SearchOptions::as_user: PrivateData=jobs hides other users' jobs from the service
// identity, never a user's own) —
//   - blocked attempts (submit_unknown): their report per source is journaled on the attempt
//     (searched_at, complete_search_at, search_report, and how long after the intent each
//     ran as the ElapsedBoard measures it; a `search` event when the report changes);
//   - in safe mode, attempts that are prepared or submitting: nothing is sent for them
//     before a complete search;
//   - attempts resolved absent in the last kWatchResolved: a job that appears later carrying
//     their tag is cancelled, and the event says so.
// The search is complete (every source answered, no cached skip) only when asked `full`; the
// round asks for it when a blocked attempt's quiet period has passed (by the ElapsedBoard, not
// the wall clock alone) without a complete search since, in safe mode, on the first round and
// every kFullEvery rounds after it. Runs on a pool thread; writes go through the JournalWriter.
#pragma once

#include <chrono>

#include "reconcile/services.h"

namespace tpslurm::reconcile {

inline constexpr std::chrono::hours kWatchResolved{24 * 7};
inline constexpr int kFullEvery = 10;

struct SearchRoundReport {
  int attempts = 0;  // attempts searched for
  int found = 0;     // of them, attempts with at least one match
  int late_cancelled = 0;
  bool complete = false;
  bool ran = false;  // false when nothing needed a search
};

SearchRoundReport run_search_round(Services& services, bool safe_mode, int round);

}  // namespace tpslurm::reconcile
