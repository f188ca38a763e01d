// Journaling a validated LaunchRequest as a new job — what `submit` and `POST /v1/jobs` do.
//
// Idempotent by job_id: the same request (the hash of its canonical JSON without credentials)
// again is `unchanged` and touches nothing, not even the credential; a different request
// under the same id is a `conflict` carrying the journal's words. A new job's ingest
// credential is written first, once, mode 0400 under the storage root (storage/job_credential.h),
// with the daemon's local HMAC key, which the caller reads once (storage/secret_key.h); the
// journal keeps its path and HMAC, never the token. Operational failures (journal, disk) are errors.
// Thread-safe as the journal is; two writers racing on one new job id end with one job.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "journal/journal.h"
#include "model/job_phase.h"
#include "model/launch_request.h"
#include "model/settings.h"

namespace tpslurm::operations {

struct Submitted {
  model::SubmitOutcome outcome = model::SubmitOutcome::created;
  std::string request_sha256;
  std::string conflict;  // the journal's message, for `conflict`
};

// `hmac_key`: the local key (state/hmac.key). `submitted_by`: journaled with the job's
// creation (the API's token name); empty: not recorded.
Result<Submitted> submit_job(journal::Journal& journal, const model::Settings& settings,
                             const model::LaunchRequest& request, std::string_view hmac_key,
                             std::string_view submitted_by = {});

}  // namespace tpslurm::operations
