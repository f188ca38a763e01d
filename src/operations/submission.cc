#include "operations/submission.h"

#include <algorithm>
#include <map>
#include <optional>

#include "base/crash_point.h"
#include "base/digest.h"
#include "operations/journal_answer.h"
#include "storage/job_credential.h"

namespace tpslurm::operations {
namespace {

// The journal's answer as the submitter sees it (detail::journal_answer), a user at its limit
// `over_limit` with the limit's words.
Result<Submitted> journaled(Result<model::SubmitOutcome> outcome, const model::JobOwner& owner, Submitted submitted) {
  auto answer = detail::journal_answer(outcome, submitted.refusal);
  if (!answer.ok()) return answer.error();
  submitted.outcome = *answer;
  if (*answer == model::SubmitOutcome::over_limit) {
    submitted.refusal = "user " + owner.platform_user + " has " + std::to_string(owner.max_live_jobs.value_or(0)) +
                        " or more jobs not yet ended, as many as its max_live_jobs in the user map allows: submit "
                        "this one again when one of them has ended, or ask the operator to raise the limit";
  }
  return submitted;
}


// The jobs of the submissions still ok and not refused already (at_limit()), in one commit.
// Another writer may have journaled a different request under an id meanwhile: a conflict.
void journal_all(journal::Journal& journal, const std::vector<Submission>& submissions,
                 const std::vector<journal::NewJob>& jobs, std::vector<Result<Submitted>>& results,
                 const CommitThrough& through) {
  std::vector<std::size_t> grouped;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].ok() && results[i]->outcome != model::SubmitOutcome::over_limit) grouped.push_back(i);
  }
  if (grouped.empty()) return;
  const auto add_all = [&](journal::Journal& writing) -> Status {
    for (const std::size_t i : grouped) {
      results[i] = journaled(writing.add_job(jobs[i], submissions[i].submitted_by), submissions[i].owner,
                             std::move(*results[i]));
    }
    return ok_status();
  };
  Status committed;
  if (through) {
    std::vector<std::string> ids;
    ids.reserve(grouped.size());
    for (const std::size_t i : grouped) ids.push_back(jobs[i].job_id);
    committed = through(add_all, std::move(ids));
  } else {
    committed = detail::own_group(journal, add_all);
  }
  if (!committed.ok()) {
    for (const std::size_t i : grouped) results[i] = committed.error();
  }
}

}  // namespace

Result<Submitted> submit_job(journal::Journal& journal, const model::Settings& settings, const Submission& submission,
                             std::string_view hmac_key) {
  return std::move(submit_jobs(journal, settings, {submission}, hmac_key).front());
}

namespace {

// Whether a new job's user already has its max_live_jobs, read before its credential is written,
// so that a refused job leaves no token behind; `result` then says so (or the read's error).
// add_job() holds the limit again in the commit, against jobs of the same user in this batch or
// journaled meanwhile (the credential then written stays, as for a conflict).
bool at_limit(journal::Journal& journal, const model::JobOwner& owner, Result<Submitted>& result) {
  if (!owner.max_live_jobs) return false;
  auto live = journal.live_jobs_of(owner.platform_user);
  if (!live.ok()) {
    result = live.error();
    return true;
  }
  if (*live < *owner.max_live_jobs) return false;
  result = journaled(model::SubmitOutcome::over_limit, owner, std::move(*result));
  return true;
}

// One round of submit_jobs(): every job id at most once.
std::vector<Result<Submitted>> submit_round(journal::Journal& journal, const model::Settings& settings,
                                            const std::vector<Submission>& submissions, std::string_view hmac_key,
                                            const CommitThrough& through) {
  std::vector<Result<Submitted>> results;
  std::vector<journal::NewJob> jobs;
  std::vector<storage::CredentialRequest> credentials;
  std::vector<std::size_t> needs_credential;  // indexes of the submissions of new jobs
  for (const Submission& submission : submissions) {
    const model::LaunchRequest& request = submission.request;
    Submitted submitted;
    submitted.request_sha256 = sha256_hex(request.canonical_json);
    const model::JobOwner& owner = submission.owner;
    jobs.push_back({request.job_id, request.canonical_json, submitted.request_sha256, "", "", request.max_attempts,
                    owner.platform_user, owner.unix_user, owner.default_account, owner.max_live_jobs});
    results.emplace_back(std::move(submitted));
    auto existing = journal.job(request.job_id);
    if (!existing.ok()) {
      results.back() = existing.error();
    } else if (!existing->has_value()) {
      // A new job: its credential first. A known one: the journal decides the outcome, and its
      // credential is never touched again.
      if (at_limit(journal, submission.owner, results.back())) continue;
      if (hmac_key.empty()) {
        results.back() = invalid_argument("no HMAC key to sign the job's credential with");
        continue;
      }
      needs_credential.push_back(results.size() - 1);
      credentials.push_back({request.job_id, request.ingest_token.value_or("")});
    }
  }
  auto written = storage::write_job_credentials(settings.storage_root, credentials, hmac_key, settings.storage_group,
                                              settings.identity_mode);
  for (std::size_t k = 0; k < needs_credential.size(); ++k) {
    const std::size_t i = needs_credential[k];
    if (!written[k].ok()) {
      results[i] = written[k].error();
      continue;
    }
    jobs[i].credential_path = written[k]->path;
    jobs[i].credential_hmac = written[k]->hmac;
  }
  crash_point("submit_job.after_credentials");
  journal_all(journal, submissions, jobs, results, through);
  crash_point("submit_job.after_commit");
  return results;
}

// Which round each submission goes in: a job id's first submission in the first, its second in
// the second, and so on.
std::vector<std::size_t> rounds_of(const std::vector<Submission>& submissions) {
  std::map<std::string_view, std::size_t> seen;
  std::vector<std::size_t> rounds;
  rounds.reserve(submissions.size());
  for (const Submission& submission : submissions) rounds.push_back(seen[submission.request.job_id]++);
  return rounds;
}

}  // namespace

std::vector<Result<Submitted>> submit_jobs(journal::Journal& journal, const model::Settings& settings,
                                           const std::vector<Submission>& submissions, std::string_view hmac_key,
                                           const CommitThrough& through) {
  // A job id that comes again in the batch is journaled in a round after the one that held it
  // before: exactly as if it came after, and the credential of a new job is written for its
  // first submission alone (another token for it is not written beside it to no purpose).
  const std::vector<std::size_t> rounds = rounds_of(submissions);
  const std::size_t last = rounds.empty() ? 0 : *std::max_element(rounds.begin(), rounds.end());
  if (last == 0) return submit_round(journal, settings, submissions, hmac_key, through);
  std::vector<std::optional<Result<Submitted>>> answered(submissions.size());
  for (std::size_t round = 0; round <= last; ++round) {
    std::vector<Submission> these;
    std::vector<std::size_t> where;
    for (std::size_t i = 0; i < submissions.size(); ++i) {
      if (rounds[i] != round) continue;
      these.push_back(submissions[i]);
      where.push_back(i);
    }
    auto results = submit_round(journal, settings, these, hmac_key, through);
    for (std::size_t k = 0; k < where.size(); ++k) answered[where[k]] = std::move(results[k]);
  }
  std::vector<Result<Submitted>> results;
  results.reserve(submissions.size());
  for (auto& result : answered) results.push_back(std::move(*result));
  return results;
}

namespace detail {

Status own_group(journal::Journal& journal, const std::function<Status(journal::Journal&)>& change) {
  if (Status began = journal.begin_group(); !began.ok()) return began;
  Status changed = change(journal);
  Status committed = journal.end_group();
  return changed.ok() ? committed : changed;
}

Result<model::SubmitOutcome> journal_answer(const Result<model::SubmitOutcome>& outcome, std::string& refusal) {
  if (outcome.ok()) return *outcome;
  const Error& error = outcome.error();
  if (error.kind() != ErrorKind::invalid_argument || journal::is_unwritable(error)) return error;
  refusal = error.message();
  return model::SubmitOutcome::conflict;
}

}  // namespace detail

}  // namespace tpslurm::operations
