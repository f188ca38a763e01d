// An operator's answers to what the daemon cannot settle alone: the rules `resolve` and
// POST /v1/attempts/{id}/resolve share. Every answer is compare-and-set on the attempt's state
// and journaled with who asked.
//
// A submit whose answer was lost (the attempt is submit_unknown and its job blocked,
// docs/architecture.md §4 step 5):
//
//   absent: refused, with the time left, until a complete search (every source answered; on a
//           cluster without accounting, slurmctld's full listing) ran at least
//           TUNEPLANE_RESOLVE_QUIET_PERIOD after the intent, as `serve` measured it
//           (reconcile/elapsed_board.h: a step of the wall clock does not count); refused while
//           the attempt's logs/ holds anything (a copy started: on a cluster without slurmdbd
//           that is all a job slurmctld purged leaves); then the
//           attempt is abandoned and the job gets a new attempt (or ends cancelled if a cancel
//           was requested). The daemon keeps watching the resolved tag.
//   adopt:  reads the job (a numeric id or a SLUID) from Slurm and adopts it only when every
//           component carries the attempt's tag (two of three marks); the daemon then
//           identifies and releases it.
//
// A job Slurm forgot (slurmctld purged it or lost its state, and slurmdbd, down or behind,
// cannot say how it ended: the daemon keeps looking, and concludes alone only once every
// source answered):
//   lost:   for an attempt Slurm held (submitted, pending, running): refused while Slurm still
//           has a job with that id (or SLUID) carrying the attempt's tag, while logs/exit.json
//           holds its end (`serve` ends it from that), or when Slurm cannot be asked; then
//           the attempt ends `lost` with the reason, is not retried, and its cleanup runs.
//
// A refusal is an answer, not an error (`Resolution::refused`); errors are the journal's
// (not_found for no such job or attempt). Thread-safe as the journal and the client are.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/result.h"
#include "journal/journal.h"
#include "model/settings.h"
#include "slurm/slurm_client.h"

namespace tpslurm::operations {

enum class Refusal {
  not_blocked,       // the attempt is not submit_unknown
  too_early,         // absent: the quiet period, or no complete search since it ended
  ran,               // absent: the attempt's logs/ shows that a copy of it started
  not_a_reference,   // adopt: neither a job id nor a SLUID
  not_its_job,       // adopt: Slurm has no such job, or it does not carry the attempt's tag
  slurm_unreadable,  // adopt, lost: Slurm could not be asked, or its answer says nothing
  not_followed,      // lost: the attempt is not one Slurm held (submitted, pending, running)
  still_in_slurm,    // lost: Slurm still has the attempt's job
  end_known,         // lost: logs/exit.json holds the job's end
};

struct Resolution {
  std::optional<Refusal> refused;
  std::string message;             // the refusal's reason, or what was done
  std::uint32_t slurm_job_id = 0;  // adopt: the leader's id
  std::string resolution;          // "absent", "adopted" or "lost" when done
};

// An attempt as an operator names it: "JOB/N", or "JOB" for its newest. not_found naming the
// job or the number, with an example of what to give.
Result<journal::AttemptRecord> find_attempt(journal::Journal& journal, std::string_view spec);

// "j1/2".
std::string attempt_name(const journal::AttemptRecord& attempt);

Result<Resolution> resolve_absent(journal::Journal& journal, const journal::AttemptRecord& attempt,
                                  const model::Settings& settings, TimePoint now, std::string_view by,
                                  std::string_view reason);

// `reference`: a numeric Slurm job id, or a SLUID (it starts with 's').
Result<Resolution> resolve_adopt(journal::Journal& journal, slurm::SlurmClient& slurm,
                                 const journal::AttemptRecord& attempt, const model::Settings& settings,
                                 std::string_view reference, std::string_view by, std::string_view reason);

Result<Resolution> resolve_lost(journal::Journal& journal, slurm::SlurmClient& slurm,
                                const journal::AttemptRecord& attempt, const model::Settings& settings,
                                std::string_view by, std::string_view reason);

}  // namespace tpslurm::operations
