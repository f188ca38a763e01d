// Journaling validated LaunchRequests as new jobs — what `submit` and `POST /v1/jobs` do.
//
// Idempotent by job_id: the same request (the hash of its canonical JSON without credentials)
// again is `unchanged` and touches nothing, not even the credential; a different request
// under the same id is a `conflict` carrying the journal's words. A new job's ingest
// credential is written first, once, mode 0400 under the storage root (storage/job_credential.h),
// with the daemon's local HMAC key, which the caller reads once (storage/secret_key.h); the
// journal keeps its path and HMAC, never the token. Operational failures (journal, disk) are errors.
// submit_jobs() takes many requests at once (the API's that arrive together): their
// credentials in one batch (storage::write_job_credentials) and their jobs in one journal
// group, one commit for all. Thread-safe as the journal is; two writers racing on one new job
// id end with one job.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "journal/journal.h"
#include "model/catalogs.h"
#include "model/job_phase.h"
#include "model/launch_request.h"
#include "model/settings.h"

namespace tpslurm::operations {

struct Submitted {
  model::SubmitOutcome outcome = model::SubmitOutcome::created;
  std::string request_sha256;
  std::string refusal;  // why, for `conflict` (the journal's words) and `over_limit`
};

// A validated request, with whose it is (model::owner_of) and, when known, who sent it: the
// API's token name, journaled with the job's creation; empty: not recorded (the CLI).
struct Submission {
  model::LaunchRequest request;
  model::JobOwner owner{};
  std::string submitted_by{};
};

// `hmac_key`: the local key (state/hmac.key).
Result<Submitted> submit_job(journal::Journal& journal, const model::Settings& settings, const Submission& submission,
                             std::string_view hmac_key);

// How submit_jobs() commits its new jobs: runs `change` (every add_job of the batch) as one
// commit and returns that commit's result; `job_ids` are the ids it writes. Empty: a journal
// group of `journal`'s own. The daemon's API hands its jobs to the reconciler's journal writer
// instead, so they share the commits of the reconciler's own writes, and those jobs get their
// pass at once (reconcile::Controller::commit_from_outside).
using CommitThrough =
    std::function<Status(const std::function<Status(journal::Journal&)>& change, std::vector<std::string> job_ids)>;

// One result per submission, in order, each what submit_job() would have answered for it alone
// (the same job id twice: as if one came after the other — the second goes in a round of its
// own after the first's commit, so a different request is a conflict and the same one
// unchanged, whatever its ingest token). The commit failing fails every submission that
// reached it, none of whose jobs is then journaled; the credential it wrote stands in the way
// of no later request (storage/job_credential.h). `journal` is read (which
// jobs are new) and, without `through`, written: then it must have no group open, and no other
// thread may write through it meanwhile (the group is its own). Given `through`, `journal`
// should be a connection that sees only committed jobs.
std::vector<Result<Submitted>> submit_jobs(journal::Journal& journal, const model::Settings& settings,
                                           const std::vector<Submission>& submissions, std::string_view hmac_key,
                                           const CommitThrough& through = {});

}  // namespace tpslurm::operations
