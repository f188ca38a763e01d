// A submit whose answer was lost blocks its job (docs/architecture.md §4 step 5): nothing is sent
// again; the attempt's evidence file and the cycle's search by tag are read until the job is
// found. Found -> the copy that ran (else the first that can still run) is adopted, every other
// copy cancelled as a duplicate (held ones never ran); when every copy ended without running the
// attempt is abandoned and the job retried at no cost. An empty or incomplete search proves
// nothing: the attempt stays blocked until found or until an operator resolves it.
#include <boost/json.hpp>

#include "base/crash_point.h"
#include "model/attempt_layout.h"
#include "reconcile/found_jobs.h"
#include "reconcile/search_board.h"
#include "reconcile/steps.h"
#include "storage/attempt_evidence.h"
#include "storage/layout.h"

namespace tpslurm::reconcile {
namespace {

using model::AttemptState;

// The job id the batch script wrote into logs/slurm-job.json, if it ran.
std::optional<std::uint32_t> evidence_job_id(const Step& step) {
  return storage::read_job_id(attempt_dir_of(step.services, step.attempt));
}

// The job named by the evidence, read back and checked against the tag. `forgotten`: Slurm no
// longer knows the job the evidence names.
std::vector<FoundJob> found_by_evidence(Step& step, const model::JobTag& tag, std::optional<std::uint32_t>& forgotten) {
  auto id = evidence_job_id(step);
  if (!id) return {};
  slurm::JobsResult read = step.services.slurm.get_job(slurm::JobRef{*id, {}, std::nullopt, step.attempt.unix_user});
  if (read.outcome == slurm::Outcome::not_found) forgotten = id;
  if (!read.ok()) return {};
  std::vector<model::JobSnapshot> ours;
  for (const auto& record : read.jobs) {
    if (tag.identifies(record.tag())) ours.push_back(record);
  }
  return group_found(ours, "evidence");
}

StepEnd cancel_duplicate(Step& step, const FoundJob& copy, const model::JobTag& tag, std::uint32_t kept) {
  slurm::CancelResult cancelled = step.services.slurm.cancel(slurm::JobRef{copy.leader_id, copy.leader_sluid, tag, step.attempt.unix_user});
  crash_point("duplicate.after_cancel");
  const std::string words = "duplicate of Slurm job " + std::to_string(kept) + " (" + copy.source + ", " +
                            (copy.live() ? "still live" : "already ended") + "): cancel " +
                            (cancelled.ok() || cancelled.outcome == slurm::Outcome::not_found
                                 ? "sent"
                                 : "failed (" + cancelled.message + "), retried at the next search");
  step.log(config::LogLevel::warn, words);
  return step.event("duplicate", {{"reason", words},
                                  {"duplicate_slurm_job_id", std::to_string(copy.leader_id)},
                                  {"kept_slurm_job_id", std::to_string(kept)}});
}

StepEnd adopt(Step& step, const FoundJob& job, std::string_view found_by) {
  crash_point("search.after_found");
  boost::json::object receipt;
  receipt["found_by"] = std::string(found_by);
  receipt["source"] = job.source;
  receipt["job_id"] = job.leader_id;
  journal::AttemptChanges changes;
  changes.slurm_job_id = job.leader_id;
  if (!job.leader_sluid.empty()) changes.sluid = job.leader_sluid;
  changes.receipt = boost::json::serialize(receipt);
  changes.found_by = std::string(found_by);
  StepEnd end = step.move(AttemptState::submitted, changes,
                          {{"reason", "found by " + job.source + " after a lost answer"}, {"found_by", job.source}});
  if (end == StepEnd::next) {
    step.attempt.slurm_job_id = job.leader_id;
    step.services.searches.forget(step.attempt.submit_token);
    crash_point("adopt.after_commit");
  }
  return end;
}

StepEnd adopt_forgotten(Step& step, std::uint32_t id) {
  FoundJob job;
  job.leader_id = id;
  job.source = "logs/slurm-job.json (Slurm no longer knows the job)";
  return adopt(step, job, "evidence");
}

// Slurm created the job (one copy or several) and every copy ended without running — cancelled
// while held, by someone else: nothing ran, so the job goes on with a new attempt at no cost.
StepEnd every_copy_ended(Step& step, const std::vector<FoundJob>& found) {
  std::string ids;
  for (const auto& copy : found) ids += (ids.empty() ? "" : ", ") + std::to_string(copy.leader_id);
  const std::string words = "every copy Slurm created (job " + ids + ") ended without running";
  journal::AttemptChanges changes;
  changes.outcome_reason = words;
  journal::EventDetail detail{{"reason", words}, {"found_by", found.front().source}};
  retry_at_no_cost(step, words, changes, detail);
  if (step.job.desire == model::Desire::cancel) changes.job_phase = model::JobPhase::cancelled;
  return step.move(AttemptState::abandoned, changes, detail);
}

}  // namespace

StepEnd search_blocked(Step& step) {
  const model::JobTag tag = tag_of(step.services, step.attempt);
  std::optional<std::uint32_t> forgotten;
  std::vector<FoundJob> found = found_by_evidence(step, tag, forgotten);
  std::string found_by = "evidence";
  if (found.empty()) {
    auto searched = step.services.searches.get(step.attempt.submit_token);
    step.result.wants_search = true;
    if (!searched) return StepEnd::wait;
    found = group_matches(searched->result.matches);
    found_by = "search";
    // The batch script ran as a job Slurm no longer knows and no copy is left: that job is
    // the attempt's; how it ended is concluded once it is followed (forgotten_steps.cc).
    if (found.empty() && forgotten && searched->result.complete()) return adopt_forgotten(step, *forgotten);
  }
  if (found.empty()) return StepEnd::wait;
  const std::size_t kept = copy_to_keep(found);
  if (kept == found.size()) return every_copy_ended(step, found);
  // The copy that ran, else the first that can still run, is kept; every other one is
  // cancelled before it is adopted (and only the kept one is ever released).
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (i == kept) continue;
    if (cancel_duplicate(step, found[i], tag, found[kept].leader_id) == StepEnd::failed) return StepEnd::failed;
  }
  return adopt(step, found[kept], found_by);
}

}  // namespace tpslurm::reconcile
