// The attempt state machine (docs/architecture.md §4-5) and the cleanup sequence after it.
//
// An attempt is one submission of a job to Slurm with its own number, submit token and
// directory. Its state only moves along the edges of this table; the journal refuses any
// other move, so a bug cannot, say, resubmit an attempt whose response was lost:
//
//   preparing      -> prepared | failed | cancelled
//   prepared       -> submitting | preparing (manifest no longer verifies) | failed | cancelled
//   submitting     -> submitted | rejected | prepared (not_sent, rejected_transient)
//                     | submit_unknown
//   submit_unknown -> submitted (found by evidence or search, or adopted) | abandoned (resolved
//                     absent, or every copy Slurm created ended without running)
//   submitted      -> pending | running | succeeded | failed | cancelled | lost
//   pending        -> running | succeeded | failed | cancelled | lost
//   running        -> succeeded | failed | cancelled | lost
//   succeeded, failed, cancelled, lost, rejected, abandoned: final
//
// `submit_unknown` has no edge back to `prepared`: after a lost response nothing may be sent
// again until the original allocation is found, every copy is known to have ended without
// running, or an operator resolves it (`abandoned`).
//
// From `submitted` on an attempt names its allocation: every move into or out of submitted,
// pending and running, and into succeeded or lost (reached only through them), needs the
// attempt's Slurm job id, or an allocation could be journaled that nothing can find again.
//
// Once an attempt is final its cleanup runs, in order, across restarts:
//
//   none -> epilog_pending (Slurm still shows COMPLETING or STAGE_OUT) -> staging_pending
//   none -> staging_pending (nothing held, or never submitted)
//   staging_pending -> sealing (credentials/ and scratch/ removed) -> closed (logs sealed)
//
// Until cleanup is `closed` the platform sees resources_held = true.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "base/result.h"

namespace tpslurm::model {

enum class AttemptState {
  preparing,
  prepared,
  submitting,
  submit_unknown,
  submitted,
  pending,
  running,
  succeeded,
  failed,
  cancelled,
  lost,
  rejected,
  abandoned,
};

inline constexpr AttemptState kAllAttemptStates[] = {
    AttemptState::preparing, AttemptState::prepared,  AttemptState::submitting, AttemptState::submit_unknown,
    AttemptState::submitted, AttemptState::pending,   AttemptState::running,    AttemptState::succeeded,
    AttemptState::failed,    AttemptState::cancelled, AttemptState::lost,       AttemptState::rejected,
    AttemptState::abandoned,
};

std::string_view to_string(AttemptState state);
std::optional<AttemptState> parse_attempt_state(std::string_view text);
bool is_final(AttemptState state);
bool is_legal(AttemptState from, AttemptState to);
// invalid_argument naming both states when the move is not in the table.
Status check_transition(AttemptState from, AttemptState to);
// Whether an attempt in `state` has been submitted for certain (submitted, pending, running,
// succeeded, lost), so that it has a Slurm job id.
bool has_slurm_job(AttemptState state);
// Whether the move from -> to needs the attempt's Slurm job id (either side has_slurm_job).
bool needs_slurm_job_id(AttemptState from, AttemptState to);

enum class CleanupStep { none, epilog_pending, staging_pending, sealing, closed };

inline constexpr CleanupStep kAllCleanupSteps[] = {CleanupStep::none, CleanupStep::epilog_pending,
                                                   CleanupStep::staging_pending, CleanupStep::sealing,
                                                   CleanupStep::closed};

std::string_view to_string(CleanupStep step);
std::optional<CleanupStep> parse_cleanup_step(std::string_view text);
bool is_legal(CleanupStep from, CleanupStep to);
Status check_transition(CleanupStep from, CleanupStep to);

}  // namespace tpslurm::model
