#include "operations/sweep_submission.h"

#include "base/crash_point.h"
#include "base/digest.h"
#include "operations/journal_answer.h"
#include "storage/job_credential.h"

namespace tpslurm::operations {
namespace {

std::string conflict_words(const std::string& sweep_id, const std::string& known, const std::string& hash) {
  return "sweep " + sweep_id + " was already submitted with a different request (sha256 " + known + "; this one is " +
         hash + "): a sweep id names one request; submit the change under a new sweep_id";
}

std::string over_limit_words(const model::JobOwner& owner, std::size_t runs) {
  return "user " + owner.platform_user + " may have " + std::to_string(owner.max_live_jobs.value_or(0)) +
         " jobs not yet ended (max_live_jobs in the user map), and its live jobs and this sweep's " +
         std::to_string(runs) + " runs would exceed that: submit it when enough of them have ended, split it, or ask "
         "the operator to raise the limit";
}

// What the journal says before anything is written: the sweep known already (unchanged or a
// conflict), a run's job id taken, the user at its limit. Nothing: go on.
Result<std::optional<SweepSubmitted>> refused_early(journal::Journal& journal, const SweepSubmission& submission,
                                                    SweepSubmitted& submitted) {
  const model::SweepRequest& sweep = submission.request;
  auto known = journal.sweep(sweep.sweep_id);
  if (!known.ok()) return known.error();
  if (known->has_value()) {
    if ((*known)->request_sha256 == submitted.request_sha256) {
      submitted.outcome = model::SubmitOutcome::unchanged;
    } else {
      submitted.outcome = model::SubmitOutcome::conflict;
      submitted.refusal = conflict_words(sweep.sweep_id, (*known)->request_sha256, submitted.request_sha256);
    }
    return std::optional<SweepSubmitted>(submitted);
  }
  for (std::size_t i = 0; i < sweep.runs.size(); ++i) {
    auto job = journal.job(sweep.runs[i].job_id);
    if (!job.ok()) return job.error();
    if (!job->has_value()) continue;
    submitted.outcome = model::SubmitOutcome::conflict;
    submitted.refusal = "runs[" + std::to_string(i) + "].job_id \"" + sweep.runs[i].job_id +
                        "\" is already a job, not of sweep " + sweep.sweep_id +
                        ": a job id names one job; give the run a new job_id";
    return std::optional<SweepSubmitted>(submitted);
  }
  const model::JobOwner& owner = submission.owner;
  if (owner.max_live_jobs) {
    auto live = journal.live_jobs_of(owner.platform_user);
    if (!live.ok()) return live.error();
    if (*live + static_cast<std::int64_t>(sweep.runs.size()) > *owner.max_live_jobs) {
      submitted.outcome = model::SubmitOutcome::over_limit;
      submitted.refusal = over_limit_words(owner, sweep.runs.size());
      return std::optional<SweepSubmitted>(submitted);
    }
  }
  return std::optional<SweepSubmitted>{};
}

// The sweep and its jobs as the journal takes them, each run's credential written.
Result<journal::NewSweep> with_credentials(const model::Settings& settings, const SweepSubmission& submission,
                                           const std::string& hash, std::string_view hmac_key) {
  const model::SweepRequest& sweep = submission.request;
  const model::JobOwner& owner = submission.owner;
  journal::NewSweep out{sweep.sweep_id, hash, sweep.max_running, owner.platform_user, owner.max_live_jobs, {}};
  std::vector<storage::CredentialRequest> credentials;
  credentials.reserve(sweep.runs.size());
  for (const model::LaunchRequest& run : sweep.runs) {
    out.jobs.push_back({run.job_id, run.canonical_json, sha256_hex(run.canonical_json), "", "", run.max_attempts,
                        owner.platform_user, owner.unix_user, owner.default_account, owner.max_live_jobs});
    credentials.push_back({run.job_id, run.ingest_token.value_or("")});
  }
  auto written = storage::write_job_credentials(settings.storage_root, credentials, hmac_key, settings.storage_group,
                                              settings.identity_mode);
  for (std::size_t i = 0; i < written.size(); ++i) {
    if (!written[i].ok()) return written[i].error().with_context("runs[" + std::to_string(i) + "]");
    out.jobs[i].credential_path = written[i]->path;
    out.jobs[i].credential_hmac = written[i]->hmac;
  }
  return out;
}

}  // namespace

Result<SweepSubmitted> submit_sweep(journal::Journal& journal, const model::Settings& settings,
                                    const SweepSubmission& submission, std::string_view hmac_key,
                                    const CommitThrough& through) {
  SweepSubmitted submitted;
  submitted.request_sha256 = sha256_hex(submission.request.canonical_json);
  for (const model::LaunchRequest& run : submission.request.runs) submitted.job_ids.push_back(run.job_id);
  auto early = refused_early(journal, submission, submitted);
  if (!early.ok()) return early.error();
  if (*early) return std::move(**early);
  if (hmac_key.empty()) return invalid_argument("no HMAC key to sign the runs' credentials with");
  auto sweep = with_credentials(settings, submission, submitted.request_sha256, hmac_key);
  if (!sweep.ok()) return sweep.error();
  crash_point("submit_sweep.after_credentials");
  Result<model::SubmitOutcome> outcome = model::SubmitOutcome::created;
  const auto add = [&](journal::Journal& writing) -> Status {
    outcome = writing.add_sweep(*sweep, submission.submitted_by);
    return ok_status();
  };
  const Status committed = through ? through(add, submitted.job_ids) : detail::own_group(journal, add);
  if (!committed.ok()) return committed.error();
  crash_point("submit_sweep.after_commit");
  // Another writer may have journaled the sweep or one of its job ids since the reads above.
  auto answer = detail::journal_answer(outcome, submitted.refusal);
  if (!answer.ok()) return answer.error();
  submitted.outcome = *answer;
  if (*answer == model::SubmitOutcome::over_limit) {
    submitted.refusal = over_limit_words(submission.owner, submission.request.runs.size());
  }
  return submitted;
}

}  // namespace tpslurm::operations
