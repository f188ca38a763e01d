// The cycle's status poll (docs/architecture.md §5): ONE bulk state query (slurm::SlurmClient::
// bulk_state, batched; every component id of a het job) for every attempt Slurm holds —
// identified and released submits, pending and running attempts, and ended ones whose
// cleanup waits for Slurm (cleanup none or epilog_pending). Full records (`get_job`, by SLUID
// where the server allows it) are read only for attempts whose reported state differs from
// the journal's; v0.0.38's bulk answer already holds them. What is new is posted on the
// StatusBoard and its jobs are returned to be woken; unchanged attempts cost no journal write.
// A job slurmctld no longer reports is posted absent (with the count of polls in a row), never
// judged here: its pass looks for the end in exit.json and slurmdbd. So is one whose id a full
// record shows to name another job (none of its records carries the attempt's tag; the
// StatusBoard keeps it): a full read, v0.0.38's answer, or the cycle's full listing, which is
// read when the sweep reads it anyway — a bulk state has ids and states only, so another job
// in the attempt's state shows at the latest at the next sweep. An attempt seen for the
// first time after its release is always read in full (its pending reason). A bulk state has
// no reasons: pending attempts are read for why they wait as reason_reads.h spaces them (a few
// records alone, or the cycle's full listing, `GET jobs`, shared with the sweep:
// cycle_listing.h), and the attempts whose wait changed (slurm_verdict.h: pending_news) are
// posted; v0.0.38's bulk answer holds the records every time.
//
// Once a minute at most, the time of a poll that answered for every attempt is kept in the
// journal (journal_meta `last_status_poll`) so that `status` can say when Slurm was last read.
// Runs on a pool thread (or inline in once mode); writes go through the JournalWriter; the
// client's request budget and back-off apply to every call.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reconcile/cycle_listing.h"
#include "reconcile/reason_reads.h"
#include "reconcile/services.h"

namespace tpslurm::reconcile {

// What one poll leaves for the next: v0.0.38's update_time baseline, the absent counts, when
// each pending attempt's record was last read.
struct StatusRoundState {
  std::optional<TimePoint> since;
  ReasonReads reasons;
  std::map<std::string, int> absent;  // submit token -> polls in a row without the job
  std::optional<TimePoint> last_meta_write;
};

struct StatusRoundReport {
  bool ran = false;                   // false when no attempt is followed
  int attempts = 0;                   // attempts followed
  int calls = 0;                      // bulk calls made
  int changed = 0;                    // attempts with news: a new state, reason or estimate
  int absent = 0;                     // attempts slurmctld did not report
  int unanswered = 0;                 // attempts nothing was learned about (a failed call, the budget)
  std::chrono::seconds worst_lag{0};  // the longest time since a followed attempt was seen
  std::vector<std::string> wake;      // jobs with news on the board
};

StatusRoundReport run_status_round(Services& services, StatusRoundState& state, CycleListing& listing);

}  // namespace tpslurm::reconcile
