#include "operations/submission.h"

#include "base/digest.h"
#include "storage/job_credential.h"

namespace tpslurm::operations {
namespace {

// The journal's answer as the submitter sees it: its refusal of a different request under a
// known id becomes `conflict` with the journal's words; other failures stay errors.
Result<Submitted> journaled(Result<model::SubmitOutcome> outcome, Submitted submitted) {
  if (!outcome.ok()) {
    if (outcome.error().kind() != ErrorKind::invalid_argument) return outcome.error();
    submitted.outcome = model::SubmitOutcome::conflict;
    submitted.conflict = outcome.error().message();
    return submitted;
  }
  submitted.outcome = *outcome;
  return submitted;
}

}  // namespace

Result<Submitted> submit_job(journal::Journal& journal, const model::Settings& settings,
                             const model::LaunchRequest& request, std::string_view hmac_key,
                             std::string_view submitted_by) {
  Submitted submitted;
  submitted.request_sha256 = sha256_hex(request.canonical_json);
  journal::NewJob job{request.job_id, request.canonical_json, submitted.request_sha256, "", "", request.max_attempts};
  auto existing = journal.job(request.job_id);
  if (!existing.ok()) return existing.error();
  // A known job: the journal decides the outcome; its credential is never touched again.
  if (existing->has_value()) return journaled(journal.add_job(job), submitted);

  if (hmac_key.empty()) return invalid_argument("no HMAC key to sign the job's credential with");
  auto credential =
      storage::write_job_credential(settings.storage_root, request.job_id, request.ingest_token.value_or(""),
                                    std::string(hmac_key), settings.storage_group);
  if (!credential.ok()) return credential.error();
  job.credential_path = credential->path;
  job.credential_hmac = credential->hmac;
  // Another writer may have journaled a different request under this id meanwhile: a conflict.
  return journaled(journal.add_job(job, submitted_by), submitted);
}

}  // namespace tpslurm::operations
