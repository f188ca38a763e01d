// The steps before anything is sent: a new attempt, its directory, and the cleanup of an
// attempt that ended without ever reaching Slurm.
#include <filesystem>
#include <system_error>

#include "base/crash_point.h"
#include "base/uuid.h"
#include "reconcile/prepare.h"
#include "reconcile/steps.h"

namespace tpslurm::reconcile {

using model::AttemptState;
using model::CleanupStep;
using model::JobPhase;

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
  const std::string token = new_uuid();
  StepEnd end = step.written(step.services.journal.write([&](journal::Journal& j) -> Status {
    auto added = j.add_attempt(job.job_id, number, token, job.request_sha256);
    if (!added.ok()) return added.error();
    return ok_status();
  }));
  if (end == StepEnd::next) {
    step.attempt.number = number;
    step.log(config::LogLevel::info, "attempt created");
    crash_point("prepare.after_preparing");
  }
  return end;
}

StepEnd prepare(Step& step) {
  if (step.gates.paused || step.gates.storage_unwritable) return StepEnd::wait;
  const auto fail = [&](const Error& error) {
    journal::AttemptChanges changes;
    changes.outcome_reason = error.message();
    changes.failure_phase = "prepare";
    return step.move(AttemptState::failed, changes, {});
  };
  auto rendered = render_attempt_of(step.services, step.job, step.attempt);
  if (!rendered.ok()) return fail(rendered.error());
  auto files = write_attempt_of(step.services, step.attempt, *rendered);
  if (!files.ok()) {
    if (files.error().kind() == ErrorKind::corrupt) return fail(files.error());
    step.result.storage_condition = files.error();
    return StepEnd::wait;
  }
  journal::AttemptChanges changes;
  changes.attempt_dir = files->attempt_dir;
  changes.script_sha256 = files->script_sha256;
  changes.env_sha256 = files->env_sha256;
  changes.manifest_sha256 = files->manifest_sha256;
  return step.move(AttemptState::prepared, changes, {});
}

namespace {

Status remove_subtree(const std::string& path) {
  std::error_code error;
  std::filesystem::remove_all(path, error);
  if (error) return transient("cannot remove " + path + ": " + error.message());
  return ok_status();
}

}  // namespace

StepEnd clean_interrupted(Step& step) {
  const journal::AttemptKey key = step.attempt.key();
  if (step.attempt.cleanup == CleanupStep::none) {
    StepEnd end = step.written(step.services.journal.write([&](journal::Journal& j) {
      return j.advance_cleanup(key, CleanupStep::none, CleanupStep::staging_pending,
                               {{"reason", "never reached Slurm: nothing held"}});
    }));
    if (end != StepEnd::next) return end;
    step.attempt.cleanup = CleanupStep::staging_pending;
  }
  if (step.attempt.cleanup == CleanupStep::staging_pending) {
    if (!step.attempt.attempt_dir.empty()) {
      for (const char* sub : {"/credentials", "/scratch"}) {
        if (Status removed = remove_subtree(step.attempt.attempt_dir + sub); !removed.ok()) {
          step.result.storage_condition = removed.error();
          return StepEnd::wait;
        }
      }
    }
    StepEnd end = step.written(step.services.journal.write([&](journal::Journal& j) {
      return j.advance_cleanup(key, CleanupStep::staging_pending, CleanupStep::sealing,
                               {{"reason", "credentials/ and scratch/ removed"}});
    }));
    if (end != StepEnd::next) return end;
    step.attempt.cleanup = CleanupStep::sealing;
  }
  return step.written(step.services.journal.write([&](journal::Journal& j) {
    return j.advance_cleanup(key, CleanupStep::sealing, CleanupStep::closed,
                             {{"reason", "nothing ran: no scheduler logs to seal"}});
  }));
}

}  // namespace tpslurm::reconcile
