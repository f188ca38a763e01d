// Journaling a validated sweep (model/sweep_request.h): the sweep and one new job per run, in
// one journal commit — what `submit --sweep` and `POST /v1/sweeps` do.
//
// Idempotent by sweep_id, as submit_job() is by job_id: the same sweep again (the hash of its
// canonical JSON without credentials) is `unchanged` and touches nothing, not even a credential;
// a different sweep under the same id is a `conflict`, and so is a run whose job_id is already a
// job (alone or of another sweep), naming it. Both are found before any credential is written,
// and held again by the journal in the commit (Journal::add_sweep). In per-user mode every run
// counts toward the user's max_live_jobs: a sweep that would take the user over it is
// `over_limit`, and nothing is written. Otherwise every run's ingest credential is written
// (storage::write_job_credentials, one batch), then the sweep and its jobs are journaled in one
// commit, all or nothing: through `through` when given (the daemon's journal writer, which wakes
// the new jobs), else in a group of `journal`'s own. A failure of either is an error, and
// nothing is journaled. Thread-safe as the journal is.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "journal/journal.h"
#include "model/catalogs.h"
#include "model/settings.h"
#include "model/sweep_request.h"
#include "operations/submission.h"

namespace tpslurm::operations {

struct SweepSubmitted {
  model::SubmitOutcome outcome = model::SubmitOutcome::created;
  std::string request_sha256;        // over the sweep's canonical JSON
  std::vector<std::string> job_ids;  // run i's at i
  std::string refusal;               // why, for `conflict` and `over_limit`
};

// A validated sweep, whose it is (model::owner_of its base: every run's) and who sent it, as
// for Submission.
struct SweepSubmission {
  model::SweepRequest request;
  model::JobOwner owner{};
  std::string submitted_by{};
};

// `hmac_key`: the local key (state/hmac.key). `journal` is read (what is known already) and,
// without `through`, written: then it must have no group open.
Result<SweepSubmitted> submit_sweep(journal::Journal& journal, const model::Settings& settings,
                                    const SweepSubmission& submission, std::string_view hmac_key,
                                    const CommitThrough& through = {});

}  // namespace tpslurm::operations
