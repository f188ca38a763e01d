// Retries after the cluster ended an attempt (model/infra_failure.h): decided when the attempt
// ends, on TUNEPLANE_INFRA_RETRIES and at no cost to the job's own attempts; the next attempt
// waits its back-off, counted from the end of this one's cleanup. What was used is the journal's
// own record (the attempts' failure phases), so a restart changes neither the count nor the wait.
#include "base/duration.h"
#include "model/infra_failure.h"
#include "reconcile/elapsed_board.h"
#include "reconcile/steps.h"

namespace tpslurm::reconcile {
namespace {

// The job's attempts that the cluster ended, as journaled; empty when the journal cannot say.
std::optional<int> infra_failures_journaled(const Step& step) {
  auto attempts = step.services.journal.read().attempts(step.job.job_id);
  if (!attempts.ok()) return std::nullopt;
  return static_cast<int>(journal::infra_failures(*attempts));
}

}  // namespace

std::chrono::seconds infra_backoff(std::chrono::seconds first, int nth) {
  std::chrono::seconds wait = first;
  for (int i = 1; i < nth && wait < model::kLongestInfraBackoff; ++i) wait *= 2;
  return std::min(wait, model::kLongestInfraBackoff);
}

bool decide_infra_retry(const Step& step, const Verdict& v, journal::AttemptChanges& changes,
                        journal::EventDetail& detail) {
  const std::optional<int> before = infra_failures_journaled(step);
  if (!before) return false;
  const int limit = step.services.settings.infra_retries;
  const int nth = *before + 1;  // this attempt's end is not journaled yet
  const std::string budget = std::to_string(limit) + " (TUNEPLANE_INFRA_RETRIES)";
  if (step.job.desire != model::Desire::run) {
    detail.emplace_back("retry", "no: " + v.retry_because + ", but a cancel was asked");
  } else if (nth > limit) {
    detail.emplace_back("retry", "no: " + v.retry_because + ", but the job's retries after the cluster's failures " +
                                     "are spent: " + std::to_string(nth - 1) + " of " + budget);
  } else {
    changes.job_phase = model::JobPhase::queued;
    changes.grant_attempt = true;
    const auto wait = infra_backoff(step.services.settings.infra_retry_backoff, nth);
    detail.emplace_back("retry", "yes: " + v.retry_because + ", the cluster's failure: retry " + std::to_string(nth) +
                                     " of " + budget + ", which costs none of the job's attempts; attempt " +
                                     std::to_string(step.attempt.number + 1) + " starts " + format_duration(wait) +
                                     " after this one's cleanup has closed");
    detail.emplace_back("infra_retry", std::to_string(nth) + "/" + std::to_string(limit));
  }
  return true;
}

bool infra_backoff_holds(Step& step) {
  const journal::AttemptRecord& last = step.attempt;
  if (last.number == 0 || last.state != model::AttemptState::failed || !model::is_infra_failure(last.failure_phase)) {
    return false;
  }
  const std::optional<TimePoint> closed = parse_utc(last.cleanup_at);
  if (!closed) return false;
  const std::optional<int> nth = infra_failures_journaled(step);
  if (!nth) {
    step.result.look_again = std::chrono::seconds(5);
    return true;
  }
  const auto wait = infra_backoff(step.services.settings.infra_retry_backoff, *nth);
  const auto waited = step.services.elapsed.since("infra-retry:" + last.submit_token, *closed);
  if (waited >= wait) return false;
  step.look_again_at(step.services.clock.now() + (wait - waited));
  return true;
}

}  // namespace tpslurm::reconcile
