// Sending the submit (docs/architecture.md §4 steps 2-3): the intent committed before any byte
// leaves (with `prepared` in one write when the submit follows prepare at once), one POST on a
// fresh connection, and its answer classified into the journal.
#include <algorithm>
#include <boost/json.hpp>

#include "base/crash_point.h"
#include "reconcile/preflight_gate.h"
#include "reconcile/prepare.h"
#include "reconcile/search_board.h"
#include "reconcile/steps.h"

namespace tpslurm::reconcile {
namespace {

using model::AttemptState;
using slurm::Outcome;

std::string receipt_json(const slurm::SubmitResult& answer) {
  boost::json::object receipt;
  receipt["job_id"] = *answer.job_id;
  receipt["http_status"] = answer.http_status;
  receipt["release"] = answer.release;
  receipt["dialect"] = answer.dialect;
  if (!answer.message.empty()) receipt["message"] = answer.message;
  if (!answer.user_message.empty()) receipt["user_message"] = answer.user_message;
  return boost::json::serialize(receipt);
}

// The answer proves that nothing was created: the attempt goes back to prepared.
bool nothing_created(Outcome outcome) {
  return outcome == Outcome::rejected_transient || outcome == Outcome::not_sent || outcome == Outcome::auth;
}

StepEnd record_answer(Step& step, const slurm::SubmitResult& answer) {
  journal::AttemptChanges changes;
  changes.dialect = answer.dialect;
  if (!answer.release.empty()) changes.server_release = answer.release;
  if (answer.outcome == Outcome::ok) {
    changes.slurm_job_id = *answer.job_id;
    changes.receipt = receipt_json(answer);
    changes.found_by = "receipt";
    return step.move(AttemptState::submitted, changes, {{"reason", "receipt"}});
  }
  changes.outcome_reason = answer.message;
  if (answer.outcome == Outcome::rejected) {
    changes.failure_phase = "submit";
    return step.move(AttemptState::rejected, changes, {{"reason", "Slurm rejected the job: " + answer.message}});
  }
  if (nothing_created(answer.outcome)) {
    changes.job_phase = model::JobPhase::queued;
    StepEnd end = step.move(
        AttemptState::prepared, changes,
        {{"reason", "not submitted (" + std::string(slurm::to_string(answer.outcome)) + "): " + answer.message}});
    step.result.look_again = std::chrono::seconds(5);
    return end == StepEnd::next ? StepEnd::wait : end;
  }
  return step.move(AttemptState::submit_unknown, changes,
                   {{"reason", "the submission may have happened: " + answer.message}});
}

// The calls a new submit brings besides its own: a held submit's identify and release.
int follow_ups(const Step& step) { return step.services.settings.submit_mode == model::SubmitMode::held ? 2 : 1; }

// What prepare rendered and wrote in this pass, if it did: within a pass the request, settings
// and catalogs are the ones it was rendered from, and its files are the ones just written.
std::optional<render::RenderedAttempt> take_carried_render(Step& step) {
  PassCarry& carry = step.carry;
  if (!carry.rendered || carry.rendered_attempt != step.attempt.number ||
      carry.rendered_token != step.attempt.submit_token) {
    return std::nullopt;
  }
  std::optional<render::RenderedAttempt> rendered = std::move(carry.rendered);
  carry.rendered.reset();
  return rendered;
}

// The render a submit sends. Files prepare wrote in this same pass are not read back: only the
// service account can write there and no job of the attempt has run. An attempt prepared in an
// earlier pass is verified against its manifest (a file changed since fails: back to
// `preparing`, whose write then refuses the changed directory), then rendered again, which
// gives the same bytes: rendering is deterministic.
Result<render::RenderedAttempt> rendered_for_send(Step& step) {
  if (auto carried = take_carried_render(step)) return std::move(*carried);
  if (Status intact = verify_prepared(step.services, step.attempt); !intact.ok()) {
    return intact.error().with_context("prepared files changed");
  }
  return render_attempt_of(step.services, step.job, step.attempt);
}

// The checks between a submit's render and its intent: the pre-flight passes, and the request
// budget grants the POST's call (with room for the calls it brings). The call is taken before
// the intent is journaled: a submit the budget refuses changes no row and emits no event
// (docs/architecture.md §4). nullopt: the step waits, looked at again when it can go.
std::optional<slurm::Reservation> cleared_to_send(Step& step) {
  const slurm::CallResult preflight = step.services.preflight.check();
  if (!preflight.ok()) {
    step.result.look_again = std::chrono::seconds(5);
    if (step.services.preflight.tell_once(preflight.message)) {
      step.log(config::LogLevel::warn, "not submitting: pre-flight failed: " + preflight.message);
    }
    return std::nullopt;
  }
  slurm::Reserved reserved;
  if (slurm::RequestBudget* budget = step.services.budget; budget != nullptr) {
    reserved = budget->reserve_submit(follow_ups(step));
    if (!reserved.admission.granted) {
      if (reserved.admission.retry_at) step.look_again_at(*reserved.admission.retry_at);
      return std::nullopt;
    }
  }
  return std::move(reserved.reservation);
}

// `before` and the intent in one write, then the POST with the call `reservation` holds, and its
// answer journaled. Nothing is sent unless that write committed.
StepEnd send(Step& step, std::vector<Step::Move> before, const render::RenderedAttempt& rendered,
             slurm::Reservation reservation) {
  const bool held = step.services.settings.submit_mode == model::SubmitMode::held;
  model::SubmitDescription description = rendered.submit;
  description.hold = held;
  description.unix_user = step.job.unix_user;
  journal::AttemptChanges intent;
  intent.submit_mode = held ? "held" : "direct";
  before.push_back({AttemptState::submitting, std::move(intent), {}});
  if (StepEnd end = step.move(before); end != StepEnd::next) return end;
  crash_point("submit.after_intent");
  const slurm::SubmitResult answer = step.services.slurm.submit(description, std::move(reservation));
  crash_point("submit.after_answer");
  if (step.services.metrics != nullptr) step.services.metrics->count_submit_outcome(slurm::to_string(answer.outcome));
  step.services.preflight.note_submit(answer.outcome);
  return record_answer(step, answer);
}

}  // namespace

bool submits_held_off(Step& step) {
  std::optional<TimePoint> budget_until;
  if (const slurm::RequestBudget* budget = step.services.budget; budget != nullptr) {
    budget_until = budget->refused_submit_until(follow_ups(step));
  }
  for (const auto until :
       {step.services.slurm.backing_off_until(), step.services.preflight.holding_until(), budget_until}) {
    if (!until || *until <= step.services.clock.now()) continue;
    step.look_again_at(*until);
    return true;
  }
  return false;
}

StepEnd send_submit(Step& step) {
  const PassGates& gates = step.gates;
  if (gates.paused || gates.storage_unwritable) return StepEnd::wait;
  if (gates.safe_mode) {
    // A restored journal may be behind Slurm: only a complete search that found nothing lets
    // this attempt be sent; what it found is adopted by search_blocked once it is blocked.
    auto found = step.services.searches.get(step.attempt.submit_token);
    step.result.wants_search = true;
    if (!found || !found->result.complete()) return StepEnd::wait;
    // A copy that started left its mark in logs/, even where Slurm forgot it (no slurmdbd).
    if (!found->result.matches.empty() || attempt_started(step)) {
      // Held, as the copy found may be: the attempt adopts it and releases it then (releasing a
      // job that is not held changes nothing), else it would pend held for ever.
      journal::AttemptChanges intent;
      intent.submit_mode = "held";
      StepEnd end = step.move(AttemptState::submitting, intent,
                              {{"reason", found->result.matches.empty() ? "safe mode: a copy of it started (its logs/)"
                                                                        : "safe mode: found in Slurm by tag"}});
      return end == StepEnd::next ? mark_unknown(step) : end;
    }
  }
  if (submits_held_off(step)) return StepEnd::wait;
  auto rendered = rendered_for_send(step);
  if (!rendered.ok()) return step.move(AttemptState::preparing, {}, {{"reason", rendered.error().message()}});
  auto cleared = cleared_to_send(step);
  if (!cleared) return StepEnd::wait;
  return send(step, {}, *rendered, std::move(*cleared));
}

StepEnd journal_prepared(Step& step, const journal::AttemptChanges& prepared, render::RenderedAttempt rendered) {
  std::vector<Step::Move> moves{{AttemptState::prepared, prepared, {}}};
  if (step.gates.safe_mode) {
    // send_submit's search decides, in this pass, with the render kept for it.
    StepEnd end = step.move(moves);
    if (end == StepEnd::next) {
      step.carry.rendered_attempt = step.attempt.number;
      step.carry.rendered_token = step.attempt.submit_token;
      step.carry.rendered = std::move(rendered);
    }
    return end;
  }
  if (!submits_held_off(step)) {
    if (auto cleared = cleared_to_send(step)) return send(step, std::move(moves), rendered, std::move(*cleared));
  }
  // Not now: `prepared` alone, looked at again when the submit can go.
  StepEnd end = step.move(moves);
  return end == StepEnd::next ? StepEnd::wait : end;
}

StepEnd mark_unknown(Step& step) {
  return step.move(AttemptState::submit_unknown, {},
                   {{"reason", "submitting without a receipt: the submission may have happened"}});
}

}  // namespace tpslurm::reconcile
