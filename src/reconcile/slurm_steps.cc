// The steps on a job Slurm holds (ARCHITECTURE.md §4 step 4): identify it by its numeric id,
// release it when it was submitted held, and apply a cancel desire.
#include "base/crash_point.h"
#include "reconcile/found_jobs.h"
#include "reconcile/steps.h"

namespace tpslurm::reconcile {
namespace {

using model::AttemptState;

constexpr std::chrono::seconds kRetrySoon{5};

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

StepEnd fail_as_anomaly(Step& step, const std::string& problem) {
  const model::JobTag tag = tag_of(step.services, step.attempt);
  slurm::CancelResult cancelled =
      step.services.slurm.cancel(slurm::JobRef{*step.attempt.slurm_job_id, step.attempt.sluid, tag});
  if (!cancelled.ok() && cancelled.outcome != slurm::Outcome::not_found) {
    step.result.look_again = kRetrySoon;
    return step.event("anomaly", {{"reason", problem + "; cancel failed: " + cancelled.message}});
  }
  journal::AttemptChanges changes;
  changes.outcome_reason = "anomaly: " + problem + "; cancelled";
  changes.failure_phase = "anomaly";
  return step.move(AttemptState::failed, changes, {{"anomaly", problem}});
}

StepEnd identify(Step& step) {
  const std::uint32_t id = *step.attempt.slurm_job_id;
  slurm::JobsResult read = step.services.slurm.get_job(slurm::JobRef{id});
  if (!read.ok()) {
    step.result.look_again = kRetrySoon;
    if (read.outcome == slurm::Outcome::not_found) {
      return step.event("anomaly", {{"reason", "identify: Slurm does not know job " + std::to_string(id)}});
    }
    return StepEnd::wait;
  }
  const std::vector<model::JobSnapshot> components = components_of(read, id);
  if (std::string problem = identity_problem(components, tag_of(step.services, step.attempt)); !problem.empty()) {
    step.log(config::LogLevel::error, "identify: " + problem);
    return step.event("anomaly", {{"reason", "identify: " + problem + "; not released, checked again"}});
  }
  if (std::string problem = requeue_problem(components); !problem.empty()) return fail_as_anomaly(step, problem);
  const FoundJob job = group_found(components, "receipt").front();
  journal::AttemptChanges changes;
  changes.identified = true;
  changes.sluid = job.leader_sluid;
  changes.het_job_id = components.front().het_job_id;
  changes.components = components_json(components);
  if (!read.release.empty()) changes.server_release = read.release;
  changes.dialect = read.dialect;
  StepEnd end = step.update("identified", changes, {{"components", std::to_string(components.size())}});
  if (end == StepEnd::next) {
    step.attempt.identified_at = "now";
    step.attempt.sluid = job.leader_sluid;
    crash_point("identify.after");
  }
  return end;
}

StepEnd release(Step& step) {
  const model::JobTag tag = tag_of(step.services, step.attempt);
  const slurm::JobRef ref{*step.attempt.slurm_job_id, step.attempt.sluid, tag};
  slurm::ReleaseResult answer = step.services.slurm.release_hold(ref);
  crash_point("release.after_send");
  std::string how = answer.already_ended ? "already ended" : "released";
  if (!answer.ok()) {
    // A release sent before a crash may have been applied: read the job to know.
    slurm::JobsResult read = step.services.slurm.get_job(ref);
    const auto components = components_of(read, ref.job_id);
    const bool held = std::any_of(components.begin(), components.end(), still_held);
    if (!read.ok() || components.empty() || held) {
      step.result.look_again = kRetrySoon;
      step.log(config::LogLevel::warn, "release failed: " + answer.message);
      return StepEnd::wait;
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

StepEnd apply_cancel(Step& step) {
  const std::string words =
      "cancelled on request" + (step.job.desire_reason.empty() ? std::string() : ": " + step.job.desire_reason);
  journal::AttemptChanges changes;
  changes.outcome_reason = words;
  if (!step.attempt.slurm_job_id) return step.move(AttemptState::cancelled, changes, {});
  const slurm::JobRef ref{*step.attempt.slurm_job_id, step.attempt.sluid, tag_of(step.services, step.attempt)};
  slurm::CancelResult answer = step.services.slurm.cancel(ref);
  if (!answer.ok() && answer.outcome != slurm::Outcome::not_found) {
    step.result.look_again = kRetrySoon;
    return step.event("cancel.failed", {{"reason", answer.message}});
  }
  return step.move(AttemptState::cancelled, changes,
                   {{"reason", words}, {"slurm", answer.already_done ? "had already ended" : "cancelled"}});
}

}  // namespace tpslurm::reconcile
