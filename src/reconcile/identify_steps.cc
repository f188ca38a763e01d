// A submitted job's identity and release (docs/architecture.md §4 step 4): identify it by the
// receipt's numeric id (every component must carry the attempt's tag, requeue off), then
// release it when it was submitted held.
#include "base/crash_point.h"
#include "journal/components.h"
#include "reconcile/found_jobs.h"
#include "reconcile/retry_board.h"
#include "reconcile/steps.h"

namespace tpslurm::reconcile {
namespace {

using model::AttemptState;

bool still_held(const model::JobSnapshot& job) {
  return job.state.base == model::SlurmBaseState::pending && job.state_reason == "JobHeldUser";
}

// The attempt's components as the receipt's id reads them: every record of the het job.
std::vector<model::JobSnapshot> components_of(const slurm::JobsResult& read, std::uint32_t id) {
  std::vector<model::JobSnapshot> out;
  for (const auto& record : read.jobs) {
    if (record.job_id == id || record.het_job_id == id) out.push_back(record);
  }
  return out;
}

// Why the records cannot be this attempt's job, or empty when they are.
std::string identity_problem(const std::vector<model::JobSnapshot>& components, const model::JobTag& tag) {
  if (components.empty()) return "Slurm returned no record for the job id";
  for (const auto& c : components) {
    if (!tag.identifies(c.tag())) {
      return "Slurm job " + std::to_string(c.job_id) + " does not carry the attempt's tag (name \"" + c.name +
             "\", comment \"" + c.comment + "\")";
    }
  }
  return {};
}

// Slurm would run it again on its own: requeue is on, or it already did.
std::string requeue_problem(const std::vector<model::JobSnapshot>& components) {
  for (const auto& c : components) {
    if (c.requeue) return "component " + std::to_string(c.het_job_offset.value_or(0)) + " has requeue enabled";
    if (c.restart_count > 0 || c.state.has(model::SlurmStateFlag::requeued)) {
      return "Slurm job " + std::to_string(c.job_id) + " was requeued (restart count " +
             std::to_string(c.restart_count) + ")";
    }
  }
  return {};
}

StepEnd identify(Step& step) {
  constexpr std::string_view kWhat = "identify";
  if (step.not_due(kWhat) || step.budget_refuses()) return StepEnd::wait;
  const std::uint32_t id = *step.attempt.slurm_job_id;
  slurm::JobsResult read = step.services.slurm.get_job(slurm::JobRef{id});
  if (!read.ok()) {
    if (read.outcome == slurm::Outcome::not_found) return conclude_forgotten(step);
    return step.retry_spaced(kWhat);
  }
  std::vector<model::JobSnapshot> components = components_of(read, id);
  if (std::string problem = identity_problem(components, tag_of(step.services, step.attempt)); !problem.empty()) {
    return step.retry_said_once(kWhat, kWhat, "anomaly", "identify: " + problem + "; not released, checked again",
                                config::LogLevel::error);
  }
  step.services.retries.forget(step.attempt.submit_token, kWhat);
  if (std::string problem = requeue_problem(components); !problem.empty()) {
    return cancel_and_fail(step, problem, CancelCause::anomaly, "an anomaly: " + problem);
  }
  const FoundJob job = group_found(components, "receipt").front();
  journal::AttemptChanges changes;
  changes.identified = true;
  changes.sluid = job.leader_sluid;
  changes.het_job_id = components.front().het_job_id;
  changes.components = journal::components_json(components);
  if (!read.release.empty()) changes.server_release = read.release;
  changes.dialect = read.dialect;
  StepEnd end = step.update("identified", changes, {{"components", std::to_string(components.size())}});
  if (end == StepEnd::next) {
    step.attempt.identified_at = "now";
    step.attempt.sluid = job.leader_sluid;
    step.carry.identified_job = id;
    step.carry.identified_components = std::move(components);
    crash_point("identify.after");
  }
  return end;
}

StepEnd release(Step& step) {
  constexpr std::string_view kWhat = "release";
  if (step.not_due(kWhat) || step.budget_refuses()) return StepEnd::wait;
  const model::JobTag tag = tag_of(step.services, step.attempt);
  const slurm::JobRef ref{*step.attempt.slurm_job_id, step.attempt.sluid, tag};
  // Identified in this pass: those records were just checked; else release_hold reads again.
  const bool just_identified = step.carry.identified_job == ref.job_id;
  slurm::ReleaseResult answer = step.services.slurm.release_hold(
      ref, just_identified ? std::span<const model::JobSnapshot>(step.carry.identified_components)
                           : std::span<const model::JobSnapshot>());
  crash_point("release.after_send");
  std::string how = answer.already_ended ? "already ended" : "released";
  if (!answer.ok()) {
    // A release sent before a crash may have been applied: read the job to know.
    slurm::JobsResult read = step.services.slurm.get_job(ref);
    if (read.outcome == slurm::Outcome::not_found) return conclude_forgotten(step);
    const auto components = components_of(read, ref.job_id);
    const bool held = std::any_of(components.begin(), components.end(), still_held);
    if (!read.ok() || components.empty() || held) {
      step.log(config::LogLevel::warn, "release failed: " + answer.message);
      return step.retry_spaced(kWhat);
    }
    how = "no longer held";
  }
  journal::AttemptChanges changes;
  changes.released = true;
  StepEnd end = step.update("released", changes, {{"reason", how}});
  if (end == StepEnd::next) {
    step.attempt.released_at = "now";
    crash_point("release.after_commit");
  }
  return end;
}

}  // namespace

StepEnd identify_and_release(Step& step) {
  if (step.attempt.identified_at.empty()) return identify(step);
  if (step.attempt.awaiting_release() && step.job.desire == model::Desire::run) return release(step);
  return StepEnd::wait;
}

}  // namespace tpslurm::reconcile
