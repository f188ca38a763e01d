#include "reconcile/pass.h"

#include "reconcile/steps.h"

namespace tpslurm::reconcile {
namespace {

using model::AttemptState;

// Enough for a whole submit (prepare, send, identify, release) in one pass; a loop that
// keeps changing state beyond this is a bug, and stopping only delays it to the next look.
constexpr int kMaxStepsPerPass = 12;

StepEnd take_step(Step& step, bool has_attempt) {
  const bool cancel = step.job.desire == model::Desire::cancel;
  if (!has_attempt) return start_attempt(step);
  const journal::AttemptRecord& a = step.attempt;
  switch (a.state) {
    case AttemptState::preparing:
    case AttemptState::prepared:
      if (cancel) return apply_cancel(step);
      return a.state == AttemptState::preparing ? prepare(step) : send_submit(step);
    case AttemptState::submitting: return mark_unknown(step);
    case AttemptState::submit_unknown: return search_blocked(step);
    case AttemptState::submitted:
      // A cancel needs no identify first: it reads the job and kills it only when it carries
      // the attempt's tag, and a job Slurm no longer knows ends cancelled.
      if (cancel) return apply_cancel(step);
      if (a.identified_at.empty() || a.awaiting_release()) return identify_and_release(step);
      return follow(step);
    case AttemptState::pending:
    case AttemptState::running: return cancel ? apply_cancel(step) : follow(step);
    default: break;
  }
  if (a.cleanup != model::CleanupStep::closed) return a.slurm_job_id ? clean_up(step) : clean_interrupted(step);
  return start_attempt(step);
}

}  // namespace

PassResult run_pass(Services& services, const std::string& job_id, const PassGates& gates) {
  PassResult result;
  PassCarry carry;
  for (int i = 0; i < kMaxStepsPerPass; ++i) {
    journal::Journal& journal = services.journal.read();
    auto job = journal.job(job_id);
    if (!job.ok()) {
      if (journal::is_unwritable(job.error())) result.journal_condition = job.error();
      return result;
    }
    if (!job->has_value()) return result;
    Step step{services, gates, result, **job, {}, carry};
    bool has_attempt = false;
    if (step.job.current_attempt) {
      auto attempts = journal.attempts(job_id);
      if (!attempts.ok()) return result;
      for (const auto& a : *attempts) {
        if (a.number == *step.job.current_attempt) step.attempt = a;
      }
      has_attempt = step.attempt.number > 0;
    }
    if (take_step(step, has_attempt) != StepEnd::next) break;
  }
  return result;
}

}  // namespace tpslurm::reconcile
