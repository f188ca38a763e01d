// Cancelling a job Slurm may hold: a cancel desire (with a checkpoint signal first when a grace
// is asked for a running job), and the cancel that ends an attempt found wrong (an anomaly, a
// limit). A job Slurm no longer knows counts as cancelled, and so does one whose id now names
// another job (the cancel reads the job first and leaves that one alone: slurm_client.h).
#include "reconcile/elapsed_board.h"
#include "reconcile/retry_board.h"
#include "reconcile/status_board.h"
#include "reconcile/steps.h"

namespace tpslurm::reconcile {
namespace {

using model::AttemptState;

constexpr std::string_view kCancel = "cancel";
// The job's checkpoint signal (docs/launch-request.md: checkpoint_grace_seconds).
constexpr std::string_view kCheckpointSignal = "SIGUSR1";

}  // namespace

StepEnd cancel_and_fail(Step& step, const std::string& problem, CancelCause cause, const std::string& retry_because) {
  const bool anomaly = cause == CancelCause::anomaly;
  if (step.not_due(kCancel) || step.budget_refuses()) return StepEnd::wait;
  const model::JobTag tag = tag_of(step.services, step.attempt);
  slurm::CancelResult cancelled =
      step.services.slurm.cancel(slurm::JobRef{*step.attempt.slurm_job_id, step.attempt.sluid, tag, step.attempt.unix_user});
  // The attempt's job is not where the problem was seen: how it ended is for its evidence to say.
  if (cancelled.another_job) return conclude_id_reused(step, cancelled.message);
  if (!cancelled.ok() && cancelled.outcome != slurm::Outcome::not_found) {
    return step.retry_said_once(kCancel, kCancel, anomaly ? "anomaly" : "cancel.failed",
                                problem + "; cancel failed: " + cancelled.message + "; tried again, spaced");
  }
  journal::AttemptChanges changes;
  changes.outcome_reason = (anomaly ? "anomaly: " : "") + problem + "; cancelled";
  changes.failure_phase = anomaly ? "anomaly" : "slurm";
  journal::EventDetail detail{{anomaly ? "anomaly" : "reason", problem}};
  decide_retry(step, AttemptState::failed, retry_because, changes, detail);
  return step.move(AttemptState::failed, changes, detail);
}

namespace {

// cancel --grace on a running job: the checkpoint signal first; wait is returned until the
// grace has passed. next: kill now (no grace, not running, or the signal could not be given).
// The grace is measured on the ElapsedBoard from the signal on, so a step of the wall clock
// neither lengthens nor shortens it; after a restart the journaled signalled_at gives the time
// already waited once, on the wall clock's word, never below zero (elapsed_board.h): a step
// back while the daemon was down costs at most one more grace.
StepEnd checkpoint_first(Step& step, const slurm::JobRef& ref) {
  const int grace = step.job.cancel_grace_seconds.value_or(0);
  if (grace <= 0 || step.attempt.state != AttemptState::running) return StepEnd::next;
  const std::string measured = "cancel-grace:" + step.attempt.submit_token;
  if (step.attempt.signalled_at.empty()) {
    slurm::CancelResult signalled = step.services.slurm.cancel(ref, kCheckpointSignal);
    if (!signalled.ok()) {
      step.log(config::LogLevel::warn, "checkpoint signal not given (" + signalled.message + "): killing now");
      return StepEnd::next;
    }
    journal::AttemptChanges changes;
    changes.signalled = true;
    StepEnd end = step.update(
        "checkpoint_signal", changes,
        {{"reason", std::string(kCheckpointSignal) + " sent; the kill follows in " + std::to_string(grace) + " s"}});
    if (end != StepEnd::next) return end;
    (void)step.services.elapsed.since(measured, step.services.clock.now());  // the grace starts now
    step.result.look_again = std::chrono::seconds(grace);
    return StepEnd::wait;
  }
  const TimePoint signalled = parse_utc(step.attempt.signalled_at).value_or(step.services.clock.now());
  const std::chrono::seconds left = std::chrono::seconds(grace) - step.services.elapsed.since(measured, signalled);
  if (left.count() <= 0) return StepEnd::next;
  step.result.look_again = left;
  return StepEnd::wait;
}

}  // namespace

StepEnd apply_cancel(Step& step) {
  const std::string words =
      "cancelled on request" + (step.job.desire_reason.empty() ? std::string() : ": " + step.job.desire_reason);
  journal::AttemptChanges changes;
  changes.outcome_reason = words;
  if (!step.attempt.slurm_job_id) return step.move(AttemptState::cancelled, changes, {});
  const slurm::JobRef ref{*step.attempt.slurm_job_id, step.attempt.sluid, tag_of(step.services, step.attempt),
                         step.attempt.unix_user};
  // Before the checkpoint signal too: a signal the budget refused would be taken for one that
  // could not be given, and the job killed without its grace.
  if (step.budget_refuses()) return StepEnd::wait;
  if (StepEnd first = checkpoint_first(step, ref); first != StepEnd::next) return first;
  if (step.not_due(kCancel) || step.budget_refuses()) return StepEnd::wait;
  slurm::CancelResult answer = step.services.slurm.cancel(ref);
  if (!answer.ok() && answer.outcome != slurm::Outcome::not_found && !answer.another_job) {
    return step.retry_said_once(kCancel, kCancel, "cancel.failed", answer.message + "; tried again, spaced");
  }
  // The polls that follow its cleanup take nothing at that id for the attempt's (status_board.h).
  if (answer.another_job) step.services.statuses.note_id_reused(step.attempt.submit_token, answer.message);
  std::string slurm = answer.already_done ? "had already ended" : "cancelled";
  if (answer.another_job) slurm = "its id now names another job, left alone (" + answer.message + ")";
  return step.move(AttemptState::cancelled, changes, {{"reason", words}, {"slurm", slurm}});
}

}  // namespace tpslurm::reconcile
