// Journal stories for tests: an attempt put where a test needs it through the journal's own
// transitions (every guard and event as in production), at the times a ManualClock gives.
#pragma once

#include <string>

#include "base/clock.h"
#include "base/result.h"
#include "journal/journal.h"

namespace tpslurm::testing {

// Job `job_id` with one attempt whose submit answer was lost (submit_unknown, its job
// blocked), its intent journaled at `intent`.
Status add_blocked_job(const std::string& journal_path, const std::string& job_id, TimePoint intent);

// A search by tag for `job_id`'s first attempt journaled at `at`, complete (every source
// answered) or not, measured as `serve` would with no step of the clock (`at` minus the intent).
Status record_search(const std::string& journal_path, const std::string& job_id, TimePoint at, bool complete);

}  // namespace tpslurm::testing
