// The platform's view of a job: its phase (docs/architecture.md §5) and what the operator or the
// platform wants (the desire).
//
//   queued             -> submitting | failed | cancelled
//   submitting         -> queued (not sent / temporary refusal) | submit_unconfirmed
//                         | pending | running | failed | cancelled
//   submit_unconfirmed -> pending | running | succeeded | failed | cancelled | lost
//                         | queued (an operator resolved the submit as absent: a new attempt)
//   pending            -> running | succeeded | failed | cancelled | lost | queued (retry)
//   running            -> succeeded | failed | cancelled | lost | queued (retry)
//   succeeded, failed, cancelled, lost: final
//
// A retry (queued again) happens only after the previous attempt's cleanup finished and only
// for failures that are not the program's own (see retry_policy in later layers).
#pragma once

#include <optional>
#include <string_view>

#include "base/result.h"
#include "model/attempt_state.h"

namespace tpslurm::model {

enum class JobPhase { queued, submitting, submit_unconfirmed, pending, running, succeeded, failed, cancelled, lost };

inline constexpr JobPhase kAllJobPhases[] = {
    JobPhase::queued,    JobPhase::submitting, JobPhase::submit_unconfirmed, JobPhase::pending, JobPhase::running,
    JobPhase::succeeded, JobPhase::failed,     JobPhase::cancelled,          JobPhase::lost,
};

std::string_view to_string(JobPhase phase);
std::optional<JobPhase> parse_job_phase(std::string_view text);
bool is_final(JobPhase phase);
bool is_legal(JobPhase from, JobPhase to);
Status check_transition(JobPhase from, JobPhase to);

// The phase an attempt in `state` shows the platform.
JobPhase phase_of(AttemptState state);

// What is wanted of a job; written by the CLI and the API with compare-and-set.
enum class Desire { run, cancel };
std::string_view to_string(Desire desire);
std::optional<Desire> parse_desire(std::string_view text);

// What journaling a LaunchRequest did: a new job, the same request again (idempotent by job_id,
// nothing touched), a different request under a known job id (refused), or a new job of a user
// with as many jobs not yet ended as the user map allows (refused; nothing journaled).
enum class SubmitOutcome { created, unchanged, conflict, over_limit };

}  // namespace tpslurm::model
