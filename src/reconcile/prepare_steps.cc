// The steps before anything is sent: a new attempt and its directory.
#include "base/crash_point.h"
#include "base/uuid.h"
#include "reconcile/intake_priority.h"
#include "reconcile/prepare.h"
#include "reconcile/steps.h"

namespace tpslurm::reconcile {

using model::AttemptState;
using model::CleanupStep;
using model::JobPhase;

namespace {

// The API's new jobs are still coming in: they are journaled first (intake_priority.h), and
// the controller wakes this job when they stop.
bool intake_first(Step& step) {
  if (step.services.intake == nullptr) return false;
  if (!step.services.intake->holding_for(step.services.clock.steady())) return false;
  step.result.waits_for_intake = true;
  return true;
}

}  // namespace

StepEnd start_attempt(Step& step) {
  const journal::JobRecord& job = step.job;
  if (model::is_final(job.phase)) return StepEnd::wait;
  if (job.desire == model::Desire::cancel) {
    return step.written(step.services.journal.write([&](journal::Journal& j) {
      return j.set_phase(job.job_id, job.phase, JobPhase::cancelled,
                         "cancelled before anything was sent" +
                             (job.desire_reason.empty() ? std::string() : ": " + job.desire_reason));
    }));
  }
  if (job.phase != JobPhase::queued || step.gates.paused || step.gates.storage_unwritable) return StepEnd::wait;
  const int number = job.current_attempt.value_or(0) + 1;
  if (number > job.max_attempts) return StepEnd::wait;
  if (infra_backoff_holds(step) || submits_held_off(step) || intake_first(step)) return StepEnd::wait;
  const std::string token = new_uuid();
  // A run of a sweep waits while max_running of its runs hold an attempt: asked in the write
  // that begins the attempt (the writer is one thread), looked at again each cycle.
  bool sweep_full = false;
  const Status wrote = step.services.journal.write([&](journal::Journal& j) -> Status {
    auto room = j.sweep_has_room(job.job_id);
    if (!room.ok()) return room.error();
    if (!*room) {
      sweep_full = true;
      return ok_status();
    }
    auto added = j.add_attempt(job.job_id, number, token, job.request_sha256);
    if (!added.ok()) return added.error();
    return ok_status();
  });
  if (sweep_full) return StepEnd::wait;
  StepEnd end = step.written(wrote);
  if (end == StepEnd::next) {
    step.attempt.number = number;
    step.log(config::LogLevel::info, "attempt created");
    crash_point("prepare.after_preparing");
  }
  return end;
}

StepEnd prepare(Step& step) {
  if (step.gates.paused || step.gates.storage_unwritable) return StepEnd::wait;
  // A missing credential or image on a vanished root is no reason to fail the attempt.
  if (step.storage_missing()) return StepEnd::wait;
  const auto fail = [&](const Error& error) {
    journal::AttemptChanges changes;
    changes.outcome_reason = error.message();
    changes.failure_phase = "prepare";
    return step.move(AttemptState::failed, changes, {});
  };
  auto rendered = render_attempt_of(step.services, step.job, step.attempt);
  if (!rendered.ok()) return fail(rendered.error());
  if (step.not_due("prepare")) return StepEnd::wait;
  auto files = write_attempt_of(step.services, step.attempt, *rendered);
  if (!files.ok()) {
    // A directory that holds another attempt, or an image that does not verify, stays so.
    if (files.error().kind() == ErrorKind::corrupt) return fail(files.error());
    return step.storage_failed(files.error(), "prepare");
  }
  journal::AttemptChanges changes;
  changes.attempt_dir = files->attempt_dir;
  changes.script_sha256 = files->script_sha256;
  changes.env_sha256 = files->env_sha256;
  changes.manifest_sha256 = files->manifest_sha256;
  changes.tag_name = rendered->submit.tag.name;
  changes.tag_workdir = rendered->submit.tag.working_directory;
  step.attempt.tag_name = *changes.tag_name;
  step.attempt.tag_workdir = *changes.tag_workdir;
  return journal_prepared(step, changes, std::move(*rendered));
}

}  // namespace tpslurm::reconcile
