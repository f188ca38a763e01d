// The rules for starting a job's next attempt (docs/architecture.md §4, "a retry is a new
// attempt ... created only after the previous attempt's cleanup has finished").
//
// Attempts of a job are numbered 1, 2, 3, ... without gaps; a job makes at most its
// max_attempts (spec.retry.max_attempts, default 1); and a new attempt starts only when every
// earlier one has ended and its cleanup is closed. Together: at most one live attempt per job,
// and no two allocations of one job ever overlap or hold resources at the same time.
//
// Pure: the journal gathers the facts (AttemptHistory) inside its transaction and asks
// check_next_attempt(); the journal's schema holds the same rules against any other writer.
#pragma once

#include <optional>
#include <string_view>

#include "base/result.h"
#include "model/attempt_state.h"

namespace tpslurm::model {

// An attempt whose cleanup is not closed yet (live, or ended and still cleaning up).
struct UnclosedAttempt {
  int number = 0;
  AttemptState state = AttemptState::preparing;
  CleanupStep cleanup = CleanupStep::none;
};

// What a job's journal says about its attempts so far.
struct AttemptHistory {
  int max_attempts = 1;
  int attempts_made = 0;  // the highest attempt number so far; 0 before the first
  std::optional<UnclosedAttempt> unclosed;
};

// ok when `number` may start now; otherwise invalid_argument, naming the job, the attempt in
// the way and what has to happen first. Checked in this order: an unclosed attempt, the
// max_attempts limit, the number.
Status check_next_attempt(std::string_view job_id, const AttemptHistory& history, int number);

}  // namespace tpslurm::model
